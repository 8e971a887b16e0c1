//! How long a staging buffer's host-visible memory takes to allocate, write and free, against the
//! same size of device-local memory and a whole upload through perftest's own path: whether
//! keeping one staging buffer for the run's uploads would save its allocation. Built as a cargo
//! example of this repository (copy it to examples/stagebench.rs; `cargo build --release --example
//! stagebench`), run on the GPU machine as `stagebench [REPEATS]`. Prints CSV.

use std::time::Instant;

use ash::vk;
use perftest::runner::open::context_for;
use perftest::vk::buffer::{Buffer, BufferDesc};
use perftest::vk::context::{Adapter, ContextOptions};
use perftest::vk::transfer;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() -> Result<(), perftest::Error> {
    let repeats: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    let ctx = context_for(Adapter::open(&ContextOptions::default())?, &[])?;
    println!("size_mib,repeat,host_alloc_ms,first_write_ms,second_write_ms,host_free_ms,device_alloc_ms,upload_ms,device_free_ms");
    for mib in [256u64, 1024, 2048] {
        let size = mib << 20;
        for r in 0..repeats {
            let t = Instant::now();
            let mut staging = Buffer::new(&ctx, "staging", BufferDesc::cpu_to_gpu(size, vk::BufferUsageFlags::TRANSFER_SRC))?;
            let alloc = ms(t);
            let fill = |b: &mut [u8]| {
                use rayon::prelude::*;
                b.par_chunks_mut(1 << 20).enumerate().for_each(|(i, c)| c.fill(i as u8 | 1));
            };
            let t = Instant::now();
            fill(staging.bytes_mut()?);
            let first = ms(t);
            let t = Instant::now();
            fill(staging.bytes_mut()?);
            let second = ms(t);
            let t = Instant::now();
            let usage = vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::STORAGE_BUFFER;
            let mut target = Buffer::new(&ctx, "target", BufferDesc::gpu_only(size, usage))?;
            let device_alloc = ms(t);
            let t = Instant::now();
            let f = |b: &mut [u8]| fill(b);
            transfer::upload(&ctx, &mut target, "target", Some(&f))?;
            let upload = ms(t);
            let t = Instant::now();
            drop(staging);
            let free = ms(t);
            let t = Instant::now();
            drop(target);
            let device_free = ms(t);
            println!("{mib},{r},{alloc:.1},{first:.1},{second:.1},{free:.1},{device_alloc:.1},{upload:.1},{device_free:.1}");
        }
    }
    Ok(())
}
