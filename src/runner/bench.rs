//! One case on the GPU: its resources, descriptor set and timestamps; a timed run and a verify run.
//!
//! The runner is where the registry meets Vulkan: a [`CaseSpec`]'s resource descriptions become
//! buffers, views, images and samplers (in `resources.rs`), through `vk/`'s wrappers (no raw ash
//! calls).

use std::time::Duration;

use ash::vk;

use super::clock::{ClockProbe, Readers};
use super::gpu_time::gpu_ms;
use super::kept::{Kept, Object};
use super::measure::Timer;
use super::resources::{self, buffer_desc, memory_notes, spec_error, Built, Checked, ResetOp, Resources};
use super::scaling::{dispatch_shape, shape_groups};
use super::verify;
use super::witness::{placement, Reading, Witness};
use crate::error::Result;
use crate::registry::{
    CaseSpec, Mode, Placement, Scale, Work, HEADER_BYTES, VERIFY_DISPATCHES, VERIFY_GROUPS,
};
use crate::vk::buffer::BufferDesc;
use crate::vk::commands::{submit, Recorded, Recorder, Stamp};
use crate::vk::pipeline::{Binding, DescriptorSet};
use crate::vk::{Buffer, Context, Pipeline, TimestampPool};

/// Dispatches between the two timestamps of one measurement, each behind a barrier.
pub const DISPATCHES: u64 = 4;
/// The most dispatches one measurement records: about 16 bytes of commands each.
const MAX_DISPATCHES: u64 = 1 << 18;
/// The most submissions one measurement makes (a few seconds at the slowest round trips).
const MAX_SUBMISSIONS: u64 = 100_000;
/// What the results buffer holds before a verify run, so an unwritten result shows.
const POISON: u32 = 0xDEAD_BEEF;

/// A case ready to run. Fields drop in order: the set before the resources it binds.
pub struct Bench<'ctx, 'p> {
    /// The train of dispatches last timed, with its count and barrier ([`Bench::time_train`]):
    /// first, so that it is freed before what it records.
    train: Option<(u64, bool, Recorded<'ctx>)>,
    ctx: &'ctx Context,
    case: &'p CaseSpec,
    pipeline: &'p Pipeline<'ctx>,
    set: DescriptorSet<'ctx>,
    timestamps: TimestampPool<'ctx>,
    push: [Vec<u8>; 2],
    resets: Vec<ResetOp>,
    results: Buffer<'ctx>,
    resources: Resources<'ctx>,
    /// What a verify run reads back instead of the results ([`CaseSpec::checks`]).
    checked: Option<Checked>,
    /// The buffer its workgroups record their compute units in ([`CaseSpec::unit_records`]).
    records: Option<usize>,
    /// The buffer its shader logs faults in ([`CaseSpec::fault_log`]).
    faults: Option<usize>,
    /// Its copies before each dispatch: source, through, count ([`CaseSpec::copies`]).
    copies: Option<(usize, usize, u32)>,
    /// Invocations dispatched by timed work so far (scaling, samples, the energy hold).
    dispatched: u64,
    /// The workgroup count of indirect dispatches ([`Scale::Dispatches`]).
    indirect: Option<Buffer<'ctx>>,
    /// Each round trip of a [`Scale::Submissions`] case's measurements, submit to fence.
    round_trips: Vec<Duration>,
    clocks: Readers<'p, 'ctx>,
}

/// The clock witness in one measurement: its wait and its window in device-clock ticks, and the
/// dispatches it runs beside (one slot each, in order).
struct Beside<'a, 'ctx> {
    witness: &'a Witness<'ctx>,
    delay: u32,
    spin: u32,
    at: Vec<u64>,
}

impl<'ctx, 'p> Bench<'ctx, 'p> {
    /// Creates the case's resources and descriptor set for `pipeline`.
    pub fn new(ctx: &'ctx Context, case: &'p CaseSpec, pipeline: &'p Pipeline<'ctx>) -> Result<Self> {
        Self::keeping(ctx, case, pipeline, &Kept::nothing())
    }

    /// [`Bench::new`], taking contents that other cases read too from `kept` (or making them and
    /// keeping them there).
    pub fn keeping(
        ctx: &'ctx Context,
        case: &'p CaseSpec,
        pipeline: &'p Pipeline<'ctx>,
        kept: &Kept<'ctx>,
    ) -> Result<Self> {
        case.validate().map_err(|problem| spec_error(case, problem))?;
        let name = &case.name;
        let result_bytes = u64::from(VERIFY_GROUPS) * case.invocations_per_group() * 4;
        let results = Buffer::new(
            ctx,
            &format!("{name}: results"),
            BufferDesc::gpu_to_cpu(result_bytes, vk::BufferUsageFlags::STORAGE_BUFFER),
        )?;
        let mut push = [case.push.bytes(Mode::Time), case.push.bytes(Mode::Verify)];
        let Built { resources, bindings: mut resource_bindings, resets, checked, records, faults, copies } =
            resources::build(ctx, case, &mut push, kept)?;
        let mut bindings = vec![Binding::Storage(results.raw)];
        bindings.append(&mut resource_bindings);
        let types: Vec<vk::DescriptorType> = bindings.iter().map(|b| b.descriptor_type()).collect();
        if types != super::pipelines::descriptor_types(case) {
            return Err(spec_error(case, "its bindings differ from its pipeline's set layout".into()));
        }
        let set = DescriptorSet::new(ctx, pipeline, &bindings, name)?;
        let timestamps = TimestampPool::new(ctx, &format!("{name}: timestamps"))?;
        let indirect = match case.scale {
            Scale::Dispatches { indirect: true, .. } => {
                let desc = buffer_desc(Placement::DeviceLocal, 12, vk::BufferUsageFlags::INDIRECT_BUFFER);
                let groups =
                    |bytes: &mut [u8]| bytes.copy_from_slice(&[1u32, 1, 1].map(u32::to_ne_bytes).concat());
                Some(crate::vk::transfer::with_data(ctx, &format!("{name}: indirect"), desc, Some(&groups))?)
            }
            _ => None,
        };
        Ok(Self {
            train: None,
            ctx,
            case,
            pipeline,
            set,
            timestamps,
            push,
            resets,
            results,
            resources,
            checked,
            records,
            faults,
            copies,
            dispatched: 0,
            indirect,
            round_trips: Vec::new(),
            clocks: Readers::default(),
        })
    }

    /// Reads the clock with `clocks`: the witness beside a sample's work where the case's
    /// dispatches allow it, else the probe around the samples (see [`ClockProbe`], [`Witness`]).
    pub fn with_clocks(mut self, clocks: Readers<'p, 'ctx>) -> Self {
        self.clocks = clocks;
        self
    }

    /// Work of one measurement of `groups` workgroups per dispatch (or of `groups` dispatches,
    /// problems or submissions: [`Scale::Dispatches`], [`Scale::Problem`], [`Scale::Submissions`]),
    /// per unit of the case's work.
    pub fn work(&self, groups: u64) -> Vec<(f64, Work)> {
        let counted = match self.case.scale {
            Scale::Dispatches { .. } | Scale::Problem { .. } | Scale::Submissions => groups as f64,
            _ => (DISPATCHES * groups * self.case.invocations_per_group()) as f64,
        };
        self.case.work.iter().map(|w| (counted * w.per_invocation, *w)).collect()
    }

    /// For a case whose workgroups record their compute units ([`CaseSpec::unit_records`]): the
    /// records of the last timed dispatch, read back whole (`None` for other cases).
    pub fn unit_records(&self) -> Result<Option<Vec<u32>>> {
        self.records.map(|at| self.read_back(at, "unit records")).transpose()
    }

    /// For a case whose shader checks its own results ([`CaseSpec::fault_log`]): its log after
    /// every dispatch so far, and the results those dispatches checked (`None` for other cases).
    pub fn fault_log(&self) -> Result<Option<(Vec<u32>, u64)>> {
        let (Some(at), Some(log)) = (self.faults, self.case.fault_log) else { return Ok(None) };
        let unchecked = match self.case.scale {
            Scale::Problem { groups } => {
                log.unchecked_passes * u64::from(groups) * self.case.invocations_per_group()
            }
            _ => 0,
        };
        let checked = self.dispatched.saturating_sub(unchecked) * log.per_invocation;
        Ok(Some((self.read_back(at, "fault log")?, checked)))
    }

    /// The words of buffer `at`, after the work before: copied into a host-visible buffer.
    fn read_back(&self, at: usize, what: &str) -> Result<Vec<u32>> {
        let source = &self.resources.buffers[at];
        let desc = BufferDesc::gpu_to_cpu(source.size, vk::BufferUsageFlags::empty());
        let readback = Buffer::new(self.ctx, &format!("{}: {what}", self.case.name), desc)?;
        submit(self.ctx, |rec| {
            rec.compute_to_transfer();
            rec.copy_buffer(source, &readback);
            rec.transfer_to_host();
        })?;
        Ok(verify::words(readback.bytes()?))
    }

    /// For a [`CaseSpec::chain_clock`] case whose clock the probe reads: the clocks a measurement
    /// of `groups` trips took by the shader clock ([`Bench::chain_span`] times `groups` and the
    /// dispatches of a measurement). `None` for other cases and on a device with no known clock
    /// (a CPU driver's shader clock is not a GPU's).
    pub fn chain_clocks(&self, groups: u64) -> Result<Option<f64>> {
        if self.clocks.probe.is_none() {
            return Ok(None);
        }
        Ok(self.chain_span()?.map(|per_trip| per_trip * groups as f64 * DISPATCHES as f64))
    }

    /// For a [`CaseSpec::chain_clock`] case: the shader clock's count per loop trip over the last
    /// timed dispatch (the span invocation 0 wrote, over the trips pushed). `None` for other cases
    /// and where no span was written.
    pub fn chain_span(&self) -> Result<Option<f64>> {
        let Scale::PushWord(index) = self.case.scale else { return Ok(None) };
        if !self.case.chain_clock {
            return Ok(None);
        }
        let at = HEADER_BYTES + 4 * index;
        let trips = self.push[0].get(at..at + 4).map_or(0, |w| verify::words(w)[0]);
        let words = verify::words(self.results.bytes()?.get(..8).unwrap_or_default());
        let [low, high] = words[..] else { return Ok(None) };
        let span = u64::from(low) | u64::from(high) << 32;
        if trips == 0 || span == 0 || span == u64::from(POISON) {
            return Ok(None);
        }
        Ok(Some(span as f64 / f64::from(trips)))
    }

    /// Records one dispatch of one workgroup, after a barrier that orders it after the last
    /// submission's: a [`Scale::Submissions`] case's whole command buffer.
    fn record_one(&self, rec: &Recorder<'_>, push: &[u8]) {
        rec.bind(self.pipeline, &self.set, push);
        rec.compute_barrier();
        rec.dispatch([1, 1, 1]);
    }

    /// One measurement of a [`Scale::Submissions`] case: `count` submissions of one dispatch,
    /// each waited for; the CPU's milliseconds in all (each round trip is kept).
    fn time_submissions(&mut self, count: u64) -> Result<f64> {
        if !self.resets.is_empty() {
            submit(self.ctx, |rec| self.record_resets(rec))?;
        }
        let mut total = Duration::ZERO;
        for _ in 0..count {
            let wall = submit(self.ctx, |rec| self.record_one(rec, &self.push[0]))?;
            self.round_trips.push(wall);
            total += wall;
        }
        Ok(total.as_secs_f64() * 1e3)
    }

    /// What the round trips of a [`Scale::Submissions`] case's measurements were: median, 99th
    /// percentile and longest, over how many; `None` for other cases.
    pub fn round_trip_note(&self) -> Option<String> {
        let mut micros: Vec<f64> = self.round_trips.iter().map(|d| d.as_secs_f64() * 1e6).collect();
        micros.sort_by(f64::total_cmp);
        let at = |q: f64| micros[((micros.len() - 1) as f64 * q).round() as usize];
        (!micros.is_empty()).then(|| {
            format!(
                "round trip, vkQueueSubmit to vkWaitForFences returning (CPU-timed): median {:.1} µs, 99th \
                 percentile {:.1} µs, longest {:.1} µs over {} submissions (warm-up included)",
                at(0.5),
                at(0.99),
                at(1.0),
                micros.len()
            )
        })
    }

    /// Records `count` dispatches as its [`Scale::Dispatches`] or [`Scale::Problem`] asks: one
    /// workgroup each (or the problem's), directly or indirectly, with a barrier between two
    /// where `barrier`, and the witness beside those `beside` names.
    fn record_train(
        &self,
        rec: &Recorder<'_>,
        count: u64,
        barrier: bool,
        beside: Option<&Beside<'_, '_>>,
    ) -> Result<()> {
        let groups = match self.case.scale {
            Scale::Problem { groups } => groups,
            _ => 1,
        };
        for i in 0..count {
            if barrier && i > 0 {
                rec.compute_barrier();
            }
            self.record_copies(rec);
            self.witness_beside(rec, i, beside)?;
            match &self.indirect {
                Some(buffer) => rec.dispatch_indirect(buffer),
                None => rec.dispatch([groups, 1, 1]),
            }
        }
        Ok(())
    }

    /// Records the case's copies ([`CaseSpec::copies`]): after the last dispatch's reads and
    /// writes, `source` into `through` and back, each after the one before, all before the next.
    fn record_copies(&self, rec: &Recorder<'_>) {
        let Some((source, through, count)) = self.copies else { return };
        let buffers = &self.resources.buffers;
        rec.compute_to_transfer();
        for j in 0..count {
            if j > 0 {
                rec.transfer_barrier();
            }
            match j % 2 {
                0 => rec.copy_buffer(&buffers[source], &buffers[through]),
                _ => rec.copy_buffer(&buffers[through], &buffers[source]),
            }
        }
        rec.transfer_to_compute();
    }

    /// Records the witness before dispatch `i` where `beside` puts one there, with no barrier
    /// between, then binds the case's pipeline again: the two run side by side.
    fn witness_beside(&self, rec: &Recorder<'_>, i: u64, beside: Option<&Beside<'_, '_>>) -> Result<()> {
        let Some(beside) = beside else { return Ok(()) };
        let Some(slot) = beside.at.iter().position(|&at| at == i) else { return Ok(()) };
        beside.witness.record(rec, slot, beside.delay, beside.spin)?;
        rec.bind(self.pipeline, &self.set, &self.push[0]);
        Ok(())
    }

    /// A note per buffer placed in a kind of memory: which memory type, heap and flags it got.
    pub fn memory_notes(&self) -> Vec<String> {
        let kept = self.resources.kept.iter().filter_map(|object| match object {
            Object::Buffer(buffer) => Some(&**buffer),
            Object::Image(_) => None,
        });
        memory_notes(self.ctx, self.resources.buffers.iter().chain(kept).map(|b| ("the buffer", b)))
    }

    /// The driver's statistics of the case's pipeline (see [`Pipeline::statistics`]).
    pub fn shader_statistics(&self) -> Result<Option<Vec<String>>> {
        self.pipeline.statistics()
    }

    /// Records the resets (between barriers that order them after earlier and before later compute).
    fn record_resets(&self, rec: &Recorder<'_>) {
        if self.resets.is_empty() {
            return;
        }
        rec.compute_to_transfer();
        let (buffers, images) = (&self.resources.buffers, &self.resources.images);
        for op in &self.resets {
            match *op {
                ResetOp::Fill(buffer, value) => rec.fill_buffer(&buffers[buffer], value),
                ResetOp::CopyBuffer(source, target) => rec.copy_buffer(&buffers[source], &buffers[target]),
                ResetOp::CopyImage(source, image) => {
                    let (image, transfer) = (&images[image], vk::ImageLayout::TRANSFER_DST_OPTIMAL);
                    rec.image_layout(image, image.layout, transfer);
                    rec.copy_to_image(&buffers[source], image, transfer);
                    rec.image_layout(image, transfer, image.layout);
                }
            }
        }
        rec.transfer_to_compute();
    }

    /// Runs the case on a few workgroups with the result write on, and compares with the CPU reference.
    pub fn verify(&mut self) -> Result<usize> {
        let reference = self.case.reference.clone().ok_or_else(|| {
            spec_error(
                self.case,
                "it has no CPU reference (CaseSpec::reference), so it cannot be verified".into(),
            )
        })?;
        self.results.bytes_mut()?.chunks_exact_mut(4).for_each(|w| w.copy_from_slice(&POISON.to_ne_bytes()));
        // A checked buffer or image is read back through a host-visible copy, poisoned first.
        let readback = match self.checked {
            Some(checked) => {
                let bytes = match checked {
                    Checked::Buffer(at) => self.resources.buffers[at].size,
                    Checked::Image(at) => {
                        let image = &self.resources.images[at];
                        u64::from(image.size[0]) * u64::from(image.size[1]) * image.texel_bytes
                    }
                };
                let desc = BufferDesc::gpu_to_cpu(bytes, vk::BufferUsageFlags::empty());
                let mut readback = Buffer::new(self.ctx, &format!("{}: readback", self.case.name), desc)?;
                readback
                    .bytes_mut()?
                    .chunks_exact_mut(4)
                    .for_each(|w| w.copy_from_slice(&POISON.to_ne_bytes()));
                Some((checked, readback))
            }
            None => None,
        };
        // A submissions case submits its dispatches one at a time, each waited for; the last
        // goes with the readback below.
        if self.case.scale == Scale::Submissions {
            submit(self.ctx, |rec| self.record_resets(rec))?;
            for _ in 1..VERIFY_DISPATCHES {
                submit(self.ctx, |rec| self.record_one(rec, &self.push[1]))?;
            }
        }
        let mut recorded = Ok(());
        submit(self.ctx, |rec| {
            if self.case.scale != Scale::Submissions {
                self.record_resets(rec);
            }
            rec.bind(self.pipeline, &self.set, &self.push[1]);
            rec.compute_barrier();
            match self.case.scale {
                Scale::Dispatches { barrier, indirect } => {
                    if indirect {
                        rec.indirect_barrier();
                    }
                    recorded = self.record_train(rec, VERIFY_DISPATCHES, barrier, None);
                }
                Scale::Problem { .. } => recorded = self.record_train(rec, 1, true, None),
                Scale::Submissions => rec.dispatch([1, 1, 1]),
                _ => rec.dispatch([VERIFY_GROUPS, 1, 1]),
            }
            if let Some((checked, readback)) = &readback {
                rec.compute_to_transfer();
                match *checked {
                    Checked::Buffer(at) => rec.copy_buffer(&self.resources.buffers[at], readback),
                    Checked::Image(at) => {
                        // Copied out of TRANSFER_SRC_OPTIMAL (the validation layer warns about
                        // GENERAL), then back to the layout the shader and the resets expect.
                        let (image, source) =
                            (&self.resources.images[at], vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
                        rec.image_layout(image, image.layout, source);
                        rec.copy_from_image(image, source, readback);
                        rec.image_layout(image, source, image.layout);
                    }
                }
                rec.transfer_to_host();
            } else {
                rec.host_barrier();
            }
        })?;
        recorded?;
        let bytes = readback.as_ref().map_or_else(|| self.results.bytes(), |(_, r)| r.bytes())?;
        let what = if readback.is_some() { "word" } else { "invocation" };
        verify::compare(&self.case.name, &verify::words(bytes), what, reference.as_ref())
    }

    /// One measurement: `DISPATCHES` dispatches of `shape` between two timestamps, with the
    /// witness beside those `beside` names.
    fn record_timed(&self, shape: [u32; 3], beside: Option<&Beside<'_, '_>>) -> Result<f64> {
        self.time_between_stamps(|rec| {
            for i in 0..DISPATCHES {
                if i > 0 {
                    rec.compute_barrier();
                }
                self.witness_beside(rec, i, beside)?;
                rec.dispatch(shape);
            }
            Ok(())
        })
    }

    /// One measurement: `count` dispatches between two timestamps ([`Scale::Dispatches`],
    /// [`Scale::Problem`]): with the witness beside those `beside` names, recorded for this one;
    /// without, the train kept for its count ([`Bench::time_train`]).
    fn time_dispatches(&mut self, count: u64, barrier: bool, beside: Option<&Beside<'_, '_>>) -> Result<f64> {
        match beside {
            Some(_) => self.time_between_stamps(|rec| self.record_train(rec, count, barrier, beside)),
            None => self.time_train(count, barrier),
        }
    }

    /// The dispatches one measurement of `groups` makes: [`DISPATCHES`], or the train's length.
    fn dispatches(&self, groups: u64) -> u64 {
        match self.case.scale {
            Scale::Dispatches { .. } | Scale::Problem { .. } => groups.clamp(1, MAX_DISPATCHES),
            _ => DISPATCHES,
        }
    }

    /// One measurement of `groups` as the case's scale says, with the witness beside those
    /// dispatches `beside` names.
    fn measure_once(&mut self, groups: u64, beside: Option<&Beside<'_, '_>>) -> Result<f64> {
        self.dispatched += self.invocations(groups);
        match self.case.scale {
            Scale::Groups => self.record_timed(dispatch_shape(groups, self.ctx.info.max_group_count), beside),
            Scale::PushWord(index) => {
                let at = HEADER_BYTES + 4 * index;
                let count = groups.min(MAX_PUSH_COUNT) as u32;
                let word = self.push[0].get_mut(at..at + 4).ok_or_else(|| {
                    spec_error(self.case, format!("its scale word {index} is outside its push block"))
                })?;
                word.copy_from_slice(&count.to_ne_bytes());
                self.record_timed([1, 1, 1], beside)
            }
            Scale::Dispatches { barrier, .. } => {
                self.time_dispatches(groups.clamp(1, MAX_DISPATCHES), barrier, beside)
            }
            Scale::Problem { .. } => self.time_dispatches(groups.clamp(1, MAX_DISPATCHES), true, beside),
            Scale::Submissions => self.time_submissions(groups.clamp(1, MAX_SUBMISSIONS)),
        }
    }

    /// The invocations one measurement of `groups` dispatches (of [`Scale::Groups`] and
    /// [`Scale::Problem`] cases, the two a fault log counts by; 0 for the others).
    fn invocations(&self, groups: u64) -> u64 {
        let per_group = self.case.invocations_per_group();
        match self.case.scale {
            Scale::Groups => DISPATCHES * self.actual_groups(groups) * per_group,
            Scale::Problem { groups: grid } => self.actual_groups(groups) * u64::from(grid) * per_group,
            _ => 0,
        }
    }

    /// The GPU milliseconds of what `body` records, between two timestamps, with the pipeline
    /// bound. Resets go in a submission of their own first: a top-of-pipe timestamp does not
    /// wait for earlier commands, so a reset recorded before it in the same submission could run
    /// into the timed interval.
    fn time_between_stamps(&self, body: impl FnOnce(&Recorder<'_>) -> Result<()>) -> Result<f64> {
        self.submit_resets()?;
        let mut recorded = Ok(());
        let wall = submit(self.ctx, |rec| recorded = self.record_stamped(rec, body))?;
        recorded?;
        gpu_ms(self.ctx, &self.timestamps, wall, &self.case.name)
    }

    /// [`Bench::time_between_stamps`] of a train of `count` dispatches ([`Bench::record_train`],
    /// no witness), recorded once for each count and barrier and submitted again for every
    /// measurement of that size ([`Recorded`]).
    fn time_train(&mut self, count: u64, barrier: bool) -> Result<f64> {
        let train = match self.train.take() {
            Some(kept) if (kept.0, kept.1) == (count, barrier) => kept,
            stale => {
                // The size before is let go of before the next is recorded.
                drop(stale);
                let mut recorded = Ok(());
                let train = Recorded::new(self.ctx, |rec| {
                    recorded = self.record_stamped(rec, |rec| self.record_train(rec, count, barrier, None))
                })?;
                recorded?;
                (count, barrier, train)
            }
        };
        let wall = self.submit_resets().and_then(|()| train.2.submit());
        self.train = Some(train);
        gpu_ms(self.ctx, &self.timestamps, wall?, &self.case.name)
    }

    /// The case's resets, in a submission of their own (none where it has none).
    fn submit_resets(&self) -> Result<()> {
        if !self.resets.is_empty() {
            submit(self.ctx, |rec| self.record_resets(rec))?;
        }
        Ok(())
    }

    /// Records what `body` records between two timestamps, with the pipeline bound.
    fn record_stamped(
        &self,
        rec: &Recorder<'_>,
        body: impl FnOnce(&Recorder<'_>) -> Result<()>,
    ) -> Result<()> {
        rec.reset_timestamps(&self.timestamps);
        rec.bind(self.pipeline, &self.set, &self.push[0]);
        // Orders this measurement after the previous submission's writes and transfers (and
        // indirect dispatches after the upload of their workgroup count).
        rec.compute_barrier();
        if self.indirect.is_some() {
            rec.indirect_barrier();
        }
        rec.timestamp(&self.timestamps, Stamp::Start);
        let recorded = body(rec);
        rec.timestamp(&self.timestamps, Stamp::End);
        // The chain's clock span (chain_clocks) and the witness's readings are read on the host.
        if self.case.chain_clock || self.clocks.witness.is_some() {
            rec.host_barrier();
        }
        recorded
    }
}

/// The largest count a [`Scale::PushWord`] case takes: llvmpipe (lavapipe) ends any loop after
/// 65,535 iterations, so a larger count would not be honoured there.
const MAX_PUSH_COUNT: u64 = 65_535;

impl Timer for Bench<'_, '_> {
    fn time_ms(&mut self, groups: u64) -> Result<f64> {
        self.measure_once(groups, None)
    }

    fn witnessed(&self) -> bool {
        self.clocks.witness.is_some() && self.case.scale != Scale::Submissions
    }

    fn time_witnessed(&mut self, groups: u64, expect_ms: f64) -> Result<Option<(f64, Vec<Reading>)>> {
        let Some(witness) = self.clocks.witness.filter(|_| self.witnessed()) else { return Ok(None) };
        let Some(place) = placement(expect_ms, self.dispatches(groups)) else {
            return Ok(Some((self.time_ms(groups)?, Vec::new())));
        };
        let (delay, spin) = (witness.ticks(place.delay_us), witness.ticks(place.spin_us));
        let beside = Beside { witness, delay, spin, at: place.at };
        witness.next_tag();
        let ms = self.measure_once(groups, Some(&beside))?;
        let mut readings = Vec::new();
        for slot in 0..beside.at.len() {
            readings.extend(witness.reading(slot, delay, spin)?);
        }
        Ok(Some((ms, readings)))
    }

    fn actual_groups(&self, groups: u64) -> u64 {
        match self.case.scale {
            Scale::Groups => shape_groups(dispatch_shape(groups, self.ctx.info.max_group_count)),
            Scale::PushWord(_) => groups.clamp(1, MAX_PUSH_COUNT),
            Scale::Dispatches { .. } | Scale::Problem { .. } => groups.clamp(1, MAX_DISPATCHES),
            Scale::Submissions => groups.clamp(1, MAX_SUBMISSIONS),
        }
    }

    fn clock_mhz(&mut self) -> Result<Option<f64>> {
        self.clocks.probe.map_or(Ok(None), ClockProbe::mhz)
    }
}
