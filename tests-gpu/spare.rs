//! Spare memory: what a dropped buffer gave back is kept for the next buffer of its size and
//! kind, let go when a case needs the room, and closed with the device without a validation
//! message.

use ash::vk;
use perftest::vk::buffer::{Buffer, BufferDesc};

use crate::harness::Gpu;

const MIB: u64 = 1 << 20;

#[test]
fn a_dropped_buffers_memory_is_kept_for_the_next_of_its_size_and_kind() {
    let gpu = Gpu::with_cases(Vec::new());
    let ctx = &gpu.ctx;
    let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
    let desc = BufferDesc::gpu_only(4 * MIB, storage);
    assert_eq!(ctx.spare_bytes(), 0);
    drop(Buffer::new(ctx, "first", desc).unwrap());
    let kept = ctx.spare_bytes();
    assert!((4 * MIB..=4 * MIB + MIB / 2).contains(&kept), "the 4 MiB are kept spare: {kept}");
    // A smaller buffer, or one the CPU writes, is not given them.
    let small = Buffer::new(ctx, "small", BufferDesc::gpu_only(MIB, storage)).unwrap();
    let host = Buffer::new(ctx, "host", BufferDesc::cpu_to_gpu(4 * MIB, storage)).unwrap();
    assert_eq!(ctx.spare_bytes(), kept);
    // One of the same size and kind is.
    let again = Buffer::new(ctx, "again", desc).unwrap();
    assert_eq!(ctx.spare_bytes(), 0);
    drop((small, host, again));
    assert!(ctx.spare_bytes() >= 9 * MIB, "all three kept: {}", ctx.spare_bytes());
    assert!(ctx.let_go_of_spares(), "a case short of room gets them back");
    assert_eq!(ctx.spare_bytes(), 0);
    assert!(!ctx.let_go_of_spares());
    // One kept when the device closes goes with it (the allocator frees what it holds).
    drop(Buffer::new(ctx, "last", desc).unwrap());
    assert!(ctx.spare_bytes() > 0);
    gpu.close();
}
