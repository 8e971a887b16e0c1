//! How long the driver takes to allocate and free device-local memory in 4 GiB pieces, from one
//! thread or several at once: the study's question of whether the SDC free-memory pass's 2.8 s of
//! allocation and 2.7 s of release could be shortened by allocating in parallel (they cannot: the
//! driver serialises them). Built as a cargo example of this repository (copy it to
//! examples/allocbench.rs; `cargo build --release --example allocbench`), run on the GPU machine as
//! `allocbench COUNT THREADS [clear] [BYTES]` (alloc.sh). Prints one line per run.

use ash::vk;
use std::time::Instant;

/// One allocation: its memory, the buffer bound to it and the milliseconds it took.
type Made = (vk::DeviceMemory, vk::Buffer, f64);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(30);
    let threads: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1).max(1);
    let clear = args.get(3).is_some_and(|s| s == "clear");
    let size: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(4u64 << 30);
    // SAFETY: plain Vulkan calls on objects made here, each destroyed once, children before parents;
    // every submission is waited for before what it uses is freed.
    unsafe {
        let entry = ash::Entry::load().expect("a Vulkan loader");
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance =
            entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None).expect("instance");
        let physical = instance.enumerate_physical_devices().expect("devices")[0];
        let props = instance.get_physical_device_memory_properties(physical);
        let types = &props.memory_types[..props.memory_type_count as usize];
        let index = types
            .iter()
            .position(|t| t.property_flags == vk::MemoryPropertyFlags::DEVICE_LOCAL)
            .or_else(|| types.iter().position(|t| t.property_flags.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)))
            .expect("a device-local memory type") as u32;
        let priority = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(0).queue_priorities(&priority)];
        let mut addresses = vk::PhysicalDeviceVulkan12Features::default().buffer_device_address(true);
        let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues).push_next(&mut addresses);
        let device = instance.create_device(physical, &info, None).expect("device");
        let queue = device.get_device_queue(0, 0);
        // As perftest's address tables allocate: memory for device addresses, a storage buffer on it.
        let allocate = |device: &ash::Device| -> Made {
            let start = Instant::now();
            let mut flags = vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
            let info =
                vk::MemoryAllocateInfo::default().allocation_size(size).memory_type_index(index).push_next(&mut flags);
            let memory = device.allocate_memory(&info, None).expect("memory");
            let usage = vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
            let buffer = device.create_buffer(&vk::BufferCreateInfo::default().size(size).usage(usage), None).expect("buffer");
            device.bind_buffer_memory(buffer, memory, 0).expect("bind");
            (memory, buffer, start.elapsed().as_secs_f64() * 1e3)
        };
        let per = count.div_ceil(threads);
        let start = Instant::now();
        let made: Vec<Made> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let device = device.clone();
                    let n = per.min(count.saturating_sub(t * per));
                    s.spawn(move || (0..n).map(|_| allocate(&device)).collect::<Vec<_>>())
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().expect("an allocating thread")).collect()
        });
        let alloc_ms = start.elapsed().as_secs_f64() * 1e3;
        let mut clear_ms = 0.0;
        if clear {
            let pool_info = vk::CommandPoolCreateInfo::default()
                .queue_family_index(0)
                .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
            let pool = device.create_command_pool(&pool_info, None).expect("pool");
            let info = vk::CommandBufferAllocateInfo::default().command_pool(pool).command_buffer_count(1);
            let cmd = device.allocate_command_buffers(&info).expect("command buffer")[0];
            let fence = device.create_fence(&vk::FenceCreateInfo::default(), None).expect("fence");
            let start = Instant::now();
            for (_, buffer, _) in &made {
                device.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default()).expect("begin");
                device.cmd_fill_buffer(cmd, *buffer, 0, vk::WHOLE_SIZE, 0);
                device.end_command_buffer(cmd).expect("end");
                let cmds = [cmd];
                device.queue_submit(queue, &[vk::SubmitInfo::default().command_buffers(&cmds)], fence).expect("submit");
                device.wait_for_fences(&[fence], true, u64::MAX).expect("wait");
                device.reset_fences(&[fence]).expect("reset");
            }
            clear_ms = start.elapsed().as_secs_f64() * 1e3;
            device.destroy_fence(fence, None);
            device.destroy_command_pool(pool, None);
        }
        let start = Instant::now();
        std::thread::scope(|s| {
            for chunk in made.chunks(per.max(1)) {
                let device = device.clone();
                s.spawn(move || {
                    for (memory, buffer, _) in chunk {
                        device.destroy_buffer(*buffer, None);
                        device.free_memory(*memory, None);
                    }
                });
            }
        });
        let free_ms = start.elapsed().as_secs_f64() * 1e3;
        let first: Vec<String> = made.iter().take(6).map(|m| format!("{:.0}", m.2)).collect();
        println!(
            "{count} x {} MiB, {threads} threads{}: alloc {alloc_ms:.0} ms (first each {}), clear {clear_ms:.0} ms, free {free_ms:.0} ms",
            size >> 20,
            if clear { ", cleared" } else { "" },
            first.join(" ")
        );
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}
