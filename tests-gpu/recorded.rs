//! A command buffer recorded once and submitted again ([`Recorded`]): each submission runs its
//! commands anew (a copy of what the host wrote since, timestamps later than the last), and it is
//! freed before the pool it came from without a validation message.

use ash::vk;
use perftest::vk::buffer::{Buffer, BufferDesc};
use perftest::vk::commands::{Recorded, Stamp};
use perftest::vk::TimestampPool;

use crate::harness::Gpu;

#[test]
fn a_recorded_command_buffer_runs_its_commands_anew_at_each_submission() {
    let gpu = Gpu::with_cases(Vec::new());
    let ctx = &gpu.ctx;
    let usage = vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
    let mut source = Buffer::new(ctx, "source", BufferDesc::cpu_to_gpu(4096, usage)).unwrap();
    let target = Buffer::new(ctx, "target", BufferDesc::gpu_to_cpu(4096, usage)).unwrap();
    let stamps = TimestampPool::new(ctx, "stamps").unwrap();
    let recorded = Recorded::new(ctx, |rec| {
        rec.reset_timestamps(&stamps);
        rec.timestamp(&stamps, Stamp::Start);
        rec.copy_buffer(&source, &target);
        rec.timestamp(&stamps, Stamp::End);
        rec.transfer_to_host();
    })
    .unwrap();
    let mut ends = Vec::new();
    for word in [7u8, 9] {
        source.bytes_mut().unwrap().fill(word);
        recorded.submit().unwrap();
        assert!(target.bytes().unwrap().iter().all(|&b| b == word), "the copy ran again for {word}");
        ends.push(stamps.read().unwrap());
    }
    assert!(ends[1][0] >= ends[0][1], "the second submission's stamps come after the first's: {ends:?}");
    drop(recorded);
    drop((source, target, stamps));
    gpu.close();
}
