//! A kernel of the runner's own, outside any case (the clock probe's spin, the clock witness, the
//! warm-up load): its pipeline, a host-visible results buffer at binding 0, and its descriptor set.

use ash::vk;

use super::pipelines::{self, Pipelines};
use crate::error::{Error, Result};
use crate::registry::{CaseSpec, Mode, Push};
use crate::vk::buffer::BufferDesc;
use crate::vk::commands::{submit, Recorder, Stamp};
use crate::vk::pipeline::{Binding, DescriptorSet};
use crate::vk::timestamps::elapsed_ms;
use crate::vk::{Buffer, Context, Pipeline, TimestampPool};

/// A built kernel. Fields drop in order: the set before the buffer it binds, the pipelines last.
pub struct Kernel<'ctx> {
    case: CaseSpec,
    set: DescriptorSet<'ctx>,
    results: Buffer<'ctx>,
    pipelines: Pipelines<'ctx>,
}

impl<'ctx> Kernel<'ctx> {
    /// Compiles and creates `case` (whose only binding is the results buffer) with a results
    /// buffer of `result_bytes`.
    pub fn new(ctx: &'ctx Context, case: CaseSpec, result_bytes: u64) -> Result<Self> {
        let pipelines = pipelines::build_all(ctx, &[&case], 1)?;
        let results = Buffer::new(
            ctx,
            &format!("{}: results", case.name),
            BufferDesc::gpu_to_cpu(result_bytes, vk::BufferUsageFlags::STORAGE_BUFFER),
        )?;
        let set = DescriptorSet::new(
            ctx,
            pipeline(&pipelines, &case)?,
            &[Binding::Storage(results.raw)],
            &case.name,
        )?;
        Ok(Self { case, set, results, pipelines })
    }

    /// Binds the kernel with the family words `push` (timing mode), then records a barrier that
    /// orders what is dispatched next after earlier compute work.
    pub fn bind(&self, rec: &Recorder<'_>, push: &[u32]) -> Result<()> {
        self.bind_beside(rec, push)?;
        rec.compute_barrier();
        Ok(())
    }

    /// Binds the kernel with the family words `push` (timing mode) and no barrier: what is
    /// dispatched next may run beside the work dispatched before it.
    pub fn bind_beside(&self, rec: &Recorder<'_>, push: &[u32]) -> Result<()> {
        let pipeline = pipeline(&self.pipelines, &self.case)?;
        rec.bind(pipeline, &self.set, &Push::words(push).bytes(Mode::Time));
        Ok(())
    }

    /// Times one workgroup of the kernel with the words `push`, alone in a submission of its own
    /// between the two queries of `timestamps`: its GPU milliseconds, or `None` where the
    /// timestamps say nothing (equal, or out of order). The clock probe's spins and the witness's
    /// calibration are timed so.
    pub fn time_alone(
        &self,
        ctx: &Context,
        timestamps: &TimestampPool<'_>,
        push: &[u32],
    ) -> Result<Option<f64>> {
        let mut bound = Ok(());
        submit(ctx, |rec| {
            rec.reset_timestamps(timestamps);
            bound = self.bind(rec, push);
            rec.timestamp(timestamps, Stamp::Start);
            rec.dispatch([1, 1, 1]);
            rec.timestamp(timestamps, Stamp::End);
            rec.host_barrier();
        })?;
        bound?;
        let [start, end] = timestamps.read()?;
        Ok(elapsed_ms(start, end, ctx.info.timestamp_valid_bits, ctx.info.timestamp_period))
    }

    /// The results buffer's bytes, as the last finished submission left them.
    pub fn results(&self) -> Result<&[u8]> {
        self.results.bytes()
    }
}

fn pipeline<'a, 'ctx>(pipelines: &'a Pipelines<'ctx>, case: &CaseSpec) -> Result<&'a Pipeline<'ctx>> {
    pipelines.get(case).ok_or_else(|| Error::CaseSpec {
        case: case.name.clone(),
        problem: "its pipeline was not built".into(),
    })
}
