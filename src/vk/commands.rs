//! Recording and submitting the context's one command buffer, waiting on its fence.

use std::time::{Duration, Instant};

use ash::vk;

use super::context::Context;
use crate::error::{vk_err, Result};

/// How long a submission may take before it is treated as hung.
const FENCE_TIMEOUT: Duration = Duration::from_secs(60);

/// Records with `record`, submits, and waits; returns the CPU wall time from submit to fence.
pub fn submit(ctx: &Context, record: impl FnOnce(&ash::Device, vk::CommandBuffer)) -> Result<Duration> {
    let (device, cmd) = (&ctx.device, ctx.command_buffer);
    let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: the buffer is not pending (every submission is waited for) and its pool allows reset.
    unsafe { device.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty()) }
        .map_err(vk_err("vkResetCommandBuffer"))?;
    // SAFETY: as above.
    unsafe { device.begin_command_buffer(cmd, &begin) }.map_err(vk_err("vkBeginCommandBuffer"))?;
    record(device, cmd);
    // SAFETY: recording state.
    unsafe { device.end_command_buffer(cmd) }.map_err(vk_err("vkEndCommandBuffer"))?;
    let buffers = [cmd];
    let submits = [vk::SubmitInfo::default().command_buffers(&buffers)];
    // SAFETY: the fence is unsignaled (reset after each wait).
    unsafe { device.reset_fences(&[ctx.fence]) }.map_err(vk_err("vkResetFences"))?;
    let start = Instant::now();
    // SAFETY: executable buffer, idle queue of this device.
    unsafe { device.queue_submit(ctx.queue, &submits, ctx.fence) }.map_err(vk_err("vkQueueSubmit"))?;
    // SAFETY: the fence belongs to this device.
    unsafe { device.wait_for_fences(&[ctx.fence], true, FENCE_TIMEOUT.as_nanos() as u64) }
        .map_err(vk_err("vkWaitForFences"))?;
    Ok(start.elapsed())
}

/// Makes the compute writes before it visible to the compute work after it, so dispatches cannot overlap.
pub fn compute_barrier(device: &ash::Device, cmd: vk::CommandBuffer) {
    barrier(
        device,
        cmd,
        vk::PipelineStageFlags::COMPUTE_SHADER,
        vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
    );
}

/// Makes compute writes visible to the host (for reading verify results).
pub fn host_barrier(device: &ash::Device, cmd: vk::CommandBuffer) {
    barrier(device, cmd, vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ);
}

fn barrier(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    dst_stage: vk::PipelineStageFlags,
    dst_access: vk::AccessFlags,
) {
    let memory = [vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::SHADER_WRITE)
        .dst_access_mask(dst_access)];
    // SAFETY: cmd is recording; a global memory barrier has no other requirements.
    unsafe {
        device.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            dst_stage,
            vk::DependencyFlags::empty(),
            &memory,
            &[],
            &[],
        )
    };
}
