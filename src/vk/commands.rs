//! Recording and submitting the context's one command buffer (or one recorded once and submitted
//! again, [`Recorded`]): a [`Recorder`] wraps every command perftest records (bind, push,
//! dispatch, timestamps, resets, copies, barriers), so no caller makes a raw ash call.

use std::time::{Duration, Instant};

use ash::vk;

use super::buffer::Buffer;
use super::context::{Context, Submitter};
use super::image::Image;
use super::pipeline::{DescriptorSet, Pipeline};
use super::timestamps::TimestampPool;
use crate::error::{vk_err, Result};

/// How long a submission may take before it is treated as hung.
const FENCE_TIMEOUT: Duration = Duration::from_secs(60);

/// Records with `record`, submits, and waits; returns the CPU wall time from submit to fence.
pub fn submit(ctx: &Context, record: impl FnOnce(&Recorder<'_>)) -> Result<Duration> {
    run(ctx, &ctx.submitter, record)
}

/// [`submit`] on the context's queue of `family`: the run's own, or a side queue (a copy engine,
/// an async-compute queue). A family the context has no queue of is an error.
pub fn submit_on(ctx: &Context, family: u32, record: impl FnOnce(&Recorder<'_>)) -> Result<Duration> {
    let submitter = ctx.submitters().find(|s| s.family == family).ok_or(crate::error::Error::CaseSpec {
        case: "(a side queue)".into(),
        problem: format!("the context has no queue of family {family}"),
    })?;
    run(ctx, submitter, record)
}

/// Records into `submitter`'s command buffer, submits it on its queue with its fence, and waits.
fn run(ctx: &Context, submitter: &Submitter, record: impl FnOnce(&Recorder<'_>)) -> Result<Duration> {
    let cmd = submitter.command_buffer;
    // SAFETY: the buffer is not pending (every submission is waited for) and its pool allows reset.
    unsafe { ctx.device.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty()) }
        .map_err(vk_err("vkResetCommandBuffer"))?;
    record_into(&ctx.device, cmd, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT, record)?;
    execute(ctx, submitter, cmd)
}

/// Begins `cmd` (in the initial state: new or reset) with `flags`, records `record` into it and
/// ends it.
fn record_into(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    flags: vk::CommandBufferUsageFlags,
    record: impl FnOnce(&Recorder<'_>),
) -> Result<()> {
    let begin = vk::CommandBufferBeginInfo::default().flags(flags);
    // SAFETY: the caller hands a buffer in the initial state, not pending.
    unsafe { device.begin_command_buffer(cmd, &begin) }.map_err(vk_err("vkBeginCommandBuffer"))?;
    record(&Recorder { device, cmd });
    // SAFETY: recording state.
    unsafe { device.end_command_buffer(cmd) }.map_err(vk_err("vkEndCommandBuffer"))?;
    Ok(())
}

/// Submits `cmd` (recorded, of `submitter`'s family) on `submitter`'s queue with its fence, and
/// waits; returns the CPU wall time from submit to fence.
fn execute(ctx: &Context, submitter: &Submitter, cmd: vk::CommandBuffer) -> Result<Duration> {
    let Submitter { queue, fence, .. } = *submitter;
    let device = &ctx.device;
    let buffers = [cmd];
    let submits = [vk::SubmitInfo::default().command_buffers(&buffers)];
    // SAFETY: the fence is unsignaled (reset after each wait).
    unsafe { device.reset_fences(&[fence]) }.map_err(vk_err("vkResetFences"))?;
    let start = Instant::now();
    // SAFETY: executable buffer of the queue's family, idle queue of this device.
    unsafe { device.queue_submit(queue, &submits, fence) }.map_err(vk_err("vkQueueSubmit"))?;
    // SAFETY: the fence belongs to this device.
    let waited = unsafe { device.wait_for_fences(&[fence], true, FENCE_TIMEOUT.as_nanos() as u64) };
    if let Err(result) = waited {
        // The submission may still be running (a timeout): the caller drops what it uses next,
        // so wait for the device first; its own error (a lost device) changes nothing here.
        // SAFETY: plain wait on this device.
        let _ = unsafe { device.device_wait_idle() };
        return Err(vk_err("vkWaitForFences")(result));
    }
    Ok(start.elapsed())
}

/// A command buffer of the run's queue recorded once and submitted as often as asked: a
/// measurement whose recording takes longer than its GPU time (a train of 100,000 dispatches
/// records in about 0.15 s for 20 ms of GPU time on an H200) is recorded once per size rather
/// than once per sample, and the GPU does not idle between samples. Freed when dropped; never
/// pending then, as every submission is waited for.
pub struct Recorded<'ctx> {
    ctx: &'ctx Context,
    cmd: vk::CommandBuffer,
}

impl<'ctx> Recorded<'ctx> {
    /// Records `record` into a command buffer of its own from the run's queue's pool.
    pub fn new(ctx: &'ctx Context, record: impl FnOnce(&Recorder<'_>)) -> Result<Self> {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(ctx.submitter.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the run's queue's pool, used from this thread only (as every submission is).
        let cmd = unsafe { ctx.device.allocate_command_buffers(&info) }
            .map_err(vk_err("vkAllocateCommandBuffers"))?[0];
        // Made before recording, so that a failed step below still frees the buffer.
        let recorded = Recorded { ctx, cmd };
        // A new buffer, in the initial state; submitted again, so not one-time-submit.
        record_into(&ctx.device, cmd, vk::CommandBufferUsageFlags::empty(), record)?;
        Ok(recorded)
    }

    /// Submits it on the run's queue and waits; the CPU wall time from submit to fence.
    pub fn submit(&self) -> Result<Duration> {
        execute(self.ctx, &self.ctx.submitter, self.cmd)
    }
}

impl Drop for Recorded<'_> {
    fn drop(&mut self) {
        // SAFETY: not pending (each submission was waited for); allocated from this pool.
        unsafe { self.ctx.device.free_command_buffers(self.ctx.submitter.pool, &[self.cmd]) };
    }
}

/// A command buffer in the recording state.
pub struct Recorder<'a> {
    device: &'a ash::Device,
    cmd: vk::CommandBuffer,
}

/// Where a timestamp is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stamp {
    /// At the top of the pipe: as soon as the GPU reaches it, whether or not earlier commands
    /// (such as transfers) have finished; so nothing but the timed work may precede it in the
    /// submission except barriers ordering earlier submissions' work.
    Start,
    /// After the commands before it finish (bottom of pipe).
    End,
}

impl Recorder<'_> {
    /// Binds `pipeline` and `set`, and pushes `push` (the whole block).
    pub fn bind(&self, pipeline: &Pipeline<'_>, set: &DescriptorSet<'_>, push: &[u8]) {
        let point = vk::PipelineBindPoint::COMPUTE;
        // SAFETY: the pipeline, its layout and the set (allocated with its set layout) are live.
        unsafe {
            self.device.cmd_bind_pipeline(self.cmd, point, pipeline.raw);
            self.device.cmd_bind_descriptor_sets(self.cmd, point, pipeline.layout, 0, &[set.raw], &[]);
        }
        if !push.is_empty() {
            // SAFETY: the layout's push range covers `push` (the runner checks the size).
            unsafe {
                self.device.cmd_push_constants(
                    self.cmd,
                    pipeline.layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    push,
                )
            };
        }
    }

    /// Dispatches `[x, y, z]` workgroups (within `maxComputeWorkGroupCount`).
    pub fn dispatch(&self, [x, y, z]: [u32; 3]) {
        // SAFETY: a compute pipeline is bound (callers bind first).
        unsafe { self.device.cmd_dispatch(self.cmd, x, y, z) };
    }

    /// Dispatches the workgroup count `buffer` holds at offset 0 (three words).
    pub fn dispatch_indirect(&self, buffer: &Buffer<'_>) {
        // SAFETY: a compute pipeline is bound (callers bind first); the buffer was created with
        // INDIRECT_BUFFER usage and holds at least 12 bytes.
        unsafe { self.device.cmd_dispatch_indirect(self.cmd, buffer.raw, 0) };
    }

    /// Orders earlier transfer writes before indirect dispatches read their workgroup counts.
    pub fn indirect_barrier(&self) {
        self.barrier(
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::PipelineStageFlags::DRAW_INDIRECT,
            vk::AccessFlags::INDIRECT_COMMAND_READ,
        );
    }

    /// Writes query `index` of `pool` at the bottom of the pipe (after every command before it).
    pub fn timestamp_at(&self, pool: &TimestampPool<'_>, index: u32) {
        // SAFETY: the query was reset earlier in this command buffer and index < pool.count.
        unsafe {
            self.device.cmd_write_timestamp(self.cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool.raw, index)
        };
    }

    /// Resets every query of `pool`; nothing for a pool timed by fences.
    pub fn reset_timestamps(&self, pool: &TimestampPool<'_>) {
        if pool.fenced {
            return;
        }
        // SAFETY: the pool has `count` queries and no pending use.
        unsafe { self.device.cmd_reset_query_pool(self.cmd, pool.raw, 0, pool.count) };
    }

    /// Writes query `index` of `pool` (0: start, 1: end); nothing for a pool timed by fences.
    pub fn timestamp(&self, pool: &TimestampPool<'_>, stamp: Stamp) {
        if pool.fenced {
            return;
        }
        let (stage, index) = match stamp {
            Stamp::Start => (vk::PipelineStageFlags::TOP_OF_PIPE, 0),
            Stamp::End => (vk::PipelineStageFlags::BOTTOM_OF_PIPE, 1),
        };
        // SAFETY: the query was reset earlier in this command buffer.
        unsafe { self.device.cmd_write_timestamp(self.cmd, stage, pool.raw, index) };
    }

    /// Sets every 32-bit word of `buffer` to `value`.
    pub fn fill_buffer(&self, buffer: &Buffer<'_>, value: u32) {
        // SAFETY: the buffer has TRANSFER_DST usage (BufferDesc adds it) and is live.
        unsafe { self.device.cmd_fill_buffer(self.cmd, buffer.raw, 0, vk::WHOLE_SIZE, value) };
    }

    /// Copies all of `source` into `target` (as large or larger).
    pub fn copy_buffer(&self, source: &Buffer<'_>, target: &Buffer<'_>) {
        let region = [vk::BufferCopy::default().size(source.size.min(target.size))];
        // SAFETY: TRANSFER_SRC / TRANSFER_DST usage; the region fits both.
        unsafe { self.device.cmd_copy_buffer(self.cmd, source.raw, target.raw, &region) };
    }

    /// Copies `size` bytes at `offset` of `source` to the same offset of `target`.
    pub fn copy_range(&self, source: &Buffer<'_>, target: &Buffer<'_>, offset: u64, size: u64) {
        let region = [vk::BufferCopy::default().src_offset(offset).dst_offset(offset).size(size)];
        // SAFETY: TRANSFER_SRC / TRANSFER_DST usage; the caller keeps the range inside both.
        unsafe { self.device.cmd_copy_buffer(self.cmd, source.raw, target.raw, &region) };
    }

    /// Copies `source` (texels row by row, tightly packed) into `image`, in the layout `image` is in.
    pub fn copy_to_image(&self, source: &Buffer<'_>, image: &Image<'_>, layout: vk::ImageLayout) {
        let layers =
            vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1);
        let [width, height] = image.size;
        let extent = vk::Extent3D { width, height, depth: 1 };
        let copy = [vk::BufferImageCopy::default().image_subresource(layers).image_extent(extent)];
        // SAFETY: the buffer holds the whole image; `layout` is TRANSFER_DST_OPTIMAL or GENERAL.
        unsafe { self.device.cmd_copy_buffer_to_image(self.cmd, source.raw, image.raw, layout, &copy) };
    }

    /// Copies `image` (in `layout`: TRANSFER_SRC_OPTIMAL or GENERAL) into `target`, texels row by
    /// row, tightly packed.
    pub fn copy_from_image(&self, image: &Image<'_>, layout: vk::ImageLayout, target: &Buffer<'_>) {
        let layers =
            vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1);
        let [width, height] = image.size;
        let extent = vk::Extent3D { width, height, depth: 1 };
        let copy = [vk::BufferImageCopy::default().image_subresource(layers).image_extent(extent)];
        // SAFETY: the buffer holds the whole image; the image allows transfers from it.
        unsafe { self.device.cmd_copy_image_to_buffer(self.cmd, image.raw, layout, target.raw, &copy) };
    }

    /// Moves `image` from layout `from` to `to`, ordering transfers and compute around it. The
    /// source scope is transfers (the upload, a reset's copy): a transition after compute work
    /// must follow a [`Recorder::compute_to_transfer`], which chains the shader writes into it.
    pub fn image_layout(&self, image: &Image<'_>, from: vk::ImageLayout, to: vk::ImageLayout) {
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(1);
        let barrier = [vk::ImageMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(
                vk::AccessFlags::TRANSFER_WRITE
                    | vk::AccessFlags::TRANSFER_READ
                    | vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE,
            )
            .old_layout(from)
            .new_layout(to)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image.raw)
            .subresource_range(range)];
        let stages = vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::COMPUTE_SHADER;
        // SAFETY: the image is live; the range is its one level and layer.
        unsafe {
            self.device.cmd_pipeline_barrier(
                self.cmd,
                vk::PipelineStageFlags::TOP_OF_PIPE | vk::PipelineStageFlags::TRANSFER,
                stages,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &barrier,
            )
        };
    }

    /// Makes the compute writes before it visible to the compute work after it, so dispatches cannot overlap.
    pub fn compute_barrier(&self) {
        let access = vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE;
        self.barrier(
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::SHADER_WRITE,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            access,
        );
    }

    /// Orders earlier transfers (and their writes) before the transfers after it.
    pub fn transfer_barrier(&self) {
        let access = vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::TRANSFER_READ;
        self.barrier(
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::PipelineStageFlags::TRANSFER,
            access,
        );
    }

    /// Makes transfer writes visible to the host (reading a copy back).
    pub fn transfer_to_host(&self) {
        self.barrier(
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::PipelineStageFlags::HOST,
            vk::AccessFlags::HOST_READ,
        );
    }

    /// Orders earlier compute work before the transfers after it (resets overwrite what shaders read).
    pub fn compute_to_transfer(&self) {
        let access = vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::TRANSFER_READ;
        self.barrier(
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::SHADER_WRITE,
            vk::PipelineStageFlags::TRANSFER,
            access,
        );
    }

    /// Makes transfer writes visible to the compute work after it.
    pub fn transfer_to_compute(&self) {
        let access = vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE;
        self.barrier(
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            access,
        );
    }

    /// Makes compute writes visible to the host (for reading verify results).
    pub fn host_barrier(&self) {
        self.barrier(
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::SHADER_WRITE,
            vk::PipelineStageFlags::HOST,
            vk::AccessFlags::HOST_READ,
        );
    }

    fn barrier(
        &self,
        src_stage: vk::PipelineStageFlags,
        src_access: vk::AccessFlags,
        dst_stage: vk::PipelineStageFlags,
        dst_access: vk::AccessFlags,
    ) {
        let memory = [vk::MemoryBarrier::default().src_access_mask(src_access).dst_access_mask(dst_access)];
        // SAFETY: cmd is recording; a global memory barrier has no other requirements.
        unsafe {
            self.device.cmd_pipeline_barrier(
                self.cmd,
                src_stage,
                dst_stage,
                vk::DependencyFlags::empty(),
                &memory,
                &[],
                &[],
            )
        };
    }
}
