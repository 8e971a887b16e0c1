//! One case on the GPU: its buffers, pipeline and timestamps; a timed run and a verify run.

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::measure::Timer;
use super::scaling::{dispatch_shape, shape_groups};
use super::verify;
use crate::error::{Error, Result};
use crate::registry::{Mode, Resource, Selected};
use crate::vk::buffer::TexelView;
use crate::vk::commands::{compute_barrier, host_barrier, submit};
use crate::vk::image::{Image, Sampler};
use crate::vk::pipeline::Binding;
use crate::vk::timestamps::elapsed_ms;
use crate::vk::{Buffer, Context, Pipeline, TimestampPool};

/// Dispatches between the two timestamps of one measurement, each behind a barrier.
pub const DISPATCHES: u64 = 4;
/// Workgroups of a verify run.
pub const VERIFY_GROUPS: u32 = 2;
/// What the results buffer holds before a verify run, so an unwritten result shows.
const POISON: u32 = 0xDEAD_BEEF;

/// A case ready to run. Fields drop in order: the pipeline before the buffers it binds.
pub struct Bench<'ctx> {
    ctx: &'ctx Context,
    case: Selected,
    pipeline: Pipeline<'ctx>,
    timestamps: TimestampPool<'ctx>,
    results: Buffer<'ctx>,
    _views: Vec<TexelView<'ctx>>,
    _images: Vec<(Image<'ctx>, Sampler<'ctx>)>,
    _inputs: Vec<Buffer<'ctx>>,
}

impl<'ctx> Bench<'ctx> {
    /// Compiles the case's permutation and creates its resources.
    pub fn new(ctx: &'ctx Context, case: Selected) -> Result<Self> {
        let (family, name) = (case.family, case.case.name);
        let spirv = ctx.compiler.compile(family, case.case)?;
        let result_bytes = u64::from(VERIFY_GROUPS) * family.invocations_per_group() * 4;
        let results = Buffer::new(
            ctx,
            &format!("{name}: results"),
            result_bytes,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            MemoryLocation::GpuToCpu,
        )?;
        let mut inputs = Vec::new();
        let mut views = Vec::new();
        let mut images = Vec::new();
        let mut bindings = vec![Binding::Storage(results.raw)];
        // A filled host-visible buffer for one input.
        let filled = |label: &str, bytes, usage, fill: fn(&mut [u8])| -> Result<Buffer<'ctx>> {
            let mut buffer = Buffer::new(ctx, label, bytes, usage, MemoryLocation::CpuToGpu)?;
            fill(buffer.bytes_mut());
            Ok(buffer)
        };
        for (i, resource) in family.resources.iter().enumerate() {
            let label = format!("{name}: input {}", i + 1);
            let binding = match *resource {
                Resource::StorageBuffer { bytes, fill } => {
                    let buffer = filled(&label, bytes, vk::BufferUsageFlags::STORAGE_BUFFER, fill)?;
                    let binding = Binding::Storage(buffer.raw);
                    inputs.push(buffer);
                    binding
                }
                Resource::UniformBuffer { bytes, fill } => {
                    let buffer = filled(&label, bytes, vk::BufferUsageFlags::UNIFORM_BUFFER, fill)?;
                    let binding = Binding::Uniform(buffer.raw);
                    inputs.push(buffer);
                    binding
                }
                Resource::TexelBuffer { format, bytes, fill } => {
                    let buffer = filled(&label, bytes, vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER, fill)?;
                    let view = TexelView::new(ctx, &label, &buffer, format)?;
                    let binding = Binding::TexelBuffer(view.raw);
                    inputs.push(buffer);
                    views.push(view);
                    binding
                }
                Resource::Image2D { format, size, texel_bytes, filter, fill } => {
                    let image = Image::new(ctx, &label, format, size, texel_bytes, fill)?;
                    let sampler = Sampler::new(ctx, &label, filter)?;
                    let binding = Binding::CombinedImage(image.view, sampler.raw);
                    images.push((image, sampler));
                    binding
                }
            };
            bindings.push(binding);
        }
        let pipeline = Pipeline::new(ctx, name, &spirv, &bindings)?;
        let timestamps = TimestampPool::new(ctx, &format!("{name}: timestamps"))?;
        Ok(Self { ctx, case, pipeline, timestamps, results, _views: views, _images: images, _inputs: inputs })
    }

    /// Work of one measurement of `groups` workgroups per dispatch, per unit of the case's work.
    pub fn work(&self, groups: u64) -> Vec<(f64, crate::registry::Work)> {
        let invocations = (DISPATCHES * groups * self.case.family.invocations_per_group()) as f64;
        self.case.case.work.iter().map(|w| (invocations * w.per_invocation, *w)).collect()
    }

    fn bind(&self, device: &ash::Device, cmd: vk::CommandBuffer, mode: Mode) {
        let params = (self.case.family.params)(self.case.case, mode).as_bytes();
        let (p, point) = (&self.pipeline, vk::PipelineBindPoint::COMPUTE);
        // SAFETY: cmd is recording; the pipeline, layout and set are live and compatible.
        unsafe {
            device.cmd_bind_pipeline(cmd, point, p.raw);
            device.cmd_bind_descriptor_sets(cmd, point, p.layout, 0, &[p.set], &[]);
            device.cmd_push_constants(cmd, p.layout, vk::ShaderStageFlags::COMPUTE, 0, &params);
        }
    }

    /// The driver's statistics of the case's pipeline (see [`Pipeline::statistics`]).
    pub fn shader_statistics(&self) -> Result<Option<Vec<String>>> {
        self.pipeline.statistics()
    }

    /// Runs the case on a few workgroups with the result write on, and compares with the CPU reference.
    pub fn verify(&mut self) -> Result<usize> {
        self.results.bytes_mut().chunks_exact_mut(4).for_each(|w| w.copy_from_slice(&POISON.to_ne_bytes()));
        submit(self.ctx, |device, cmd| {
            self.bind(device, cmd, Mode::Verify);
            compute_barrier(device, cmd);
            // SAFETY: cmd is recording with a compute pipeline bound.
            unsafe { device.cmd_dispatch(cmd, VERIFY_GROUPS, 1, 1) };
            host_barrier(device, cmd);
        })?;
        let words = verify::words(self.results.bytes());
        let (family, case) = (self.case.family, self.case.case);
        verify::compare(case.name, &words, |index| (family.reference)(case, index))
    }
}

impl Timer for Bench<'_> {
    fn time_ms(&mut self, groups: u64) -> Result<f64> {
        let [x, y, z] = dispatch_shape(groups, self.ctx.info.max_group_count);
        self.record_timed(x, y, z)
    }

    fn actual_groups(&self, groups: u64) -> u64 {
        shape_groups(dispatch_shape(groups, self.ctx.info.max_group_count))
    }
}

impl Bench<'_> {
    /// One measurement: `DISPATCHES` dispatches of (x, y, z) between two timestamps.
    fn record_timed(&mut self, x: u32, y: u32, z: u32) -> Result<f64> {
        let pool = self.timestamps.raw;
        let wall = submit(self.ctx, |device, cmd| {
            // SAFETY: cmd is recording; the pool has two queries, reset here before use.
            unsafe { device.cmd_reset_query_pool(cmd, pool, 0, 2) };
            self.bind(device, cmd, Mode::Time);
            // Orders this submission's dispatches after the previous submission's.
            compute_barrier(device, cmd);
            // SAFETY: query 0 was reset above.
            unsafe { device.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, pool, 0) };
            for i in 0..DISPATCHES {
                if i > 0 {
                    compute_barrier(device, cmd);
                }
                // SAFETY: a compute pipeline is bound; x, y, z are within maxComputeWorkGroupCount.
                unsafe { device.cmd_dispatch(cmd, x, y, z) };
            }
            // SAFETY: query 1 was reset above.
            unsafe { device.cmd_write_timestamp(cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool, 1) };
        })?;
        let [start, end] = self.timestamps.read()?;
        let info = &self.ctx.info;
        let name = self.case.case.name;
        let ms =
            elapsed_ms(start, end, info.timestamp_valid_bits, info.timestamp_period).ok_or_else(|| {
                Error::Timing { case: name.into(), detail: format!("the timestamps are equal ({start})") }
            })?;
        let wall_ms = wall.as_secs_f64() * 1e3;
        // The GPU cannot take longer than the CPU waited for it; allow for clock granularity.
        if ms > wall_ms * 1.05 + 0.5 {
            return Err(Error::Timing {
                case: name.into(),
                detail: format!(
                    "{ms:.3} ms between the timestamps, but the submission took {wall_ms:.3} ms of wall time \
                     (timestamp period {} ns, {} valid bits)",
                    info.timestamp_period, info.timestamp_valid_bits
                ),
            });
        }
        Ok(ms)
    }
}
