//! Running a selection of cases on a context: skip what the device lacks, build the pipelines,
//! warm the device up, then time (baselines first, so every line has its ratio) or verify each
//! case in order.

use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::assemble::{order, Assembler, Finished};
use super::bench::Bench;
use super::clock::{self, Clock, Readers};
use super::copy::CopyBench;
use super::counts::Counts;
use super::energy::Meter;
use super::heater::Heater;
use super::kept::Kept;
use super::later::{Beside, Later};
use super::measure::{measure, tries, Sampling, Settling, Timer};
use super::message::Record;
use super::pipelines::{self, Pipelines};
use super::retry::measure_steady;
use super::scaling::Policy;
use super::warmth::Warmth;
use super::warmup::Plan;
use super::witness::Witness;
use crate::caps::DeviceCaps;
use crate::error::{Error, Result};
use crate::record::energy::Held;
use crate::record::faults::FaultCount;
use crate::record::measurement::Measurement;
use crate::record::outcome::{Counted, Failure, Outcome};
use crate::record::phases::Phases;
use crate::registry::{CaseSpec, Scale};
use crate::sensors::energy::EnergySensor;
use crate::vk::debug::{drain, Sink};
use crate::vk::transfer::let_go_of_staging;
use crate::vk::Context;

/// What a measurement timed by CPU fences aims at, at least. On the H100 the fence (submission,
/// launch, wake-up) added 0.10 to 0.37 ms to 20 ms measurements (rates 0.7% to 1.9% lower than by
/// timestamps, docs/design/timing.md); at 50 ms that is under 1%.
pub const FENCED_TARGET_MS: f64 = 50.0;

/// Set by Ctrl-C or SIGTERM (or SIGHUP): the run stops after the case in progress and writes
/// what finished.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// Set by a second stop signal: a worker still in its case is stopped now and the case recorded
/// as interrupted; what finished is still written.
pub static HURRY: AtomicBool = AtomicBool::new(false);

/// How to run the selected cases.
#[derive(Clone, Copy, Debug)]
pub struct RunSettings {
    /// Target milliseconds per measurement.
    pub target_ms: f64,
    /// The most samples after warm-up; `None` for the device's default ([`RunSettings::most_samples`]).
    pub samples: Option<u32>,
    /// Verify instead of timing.
    pub verify: bool,
    /// Build the pipelines and report their statistics, running nothing (`--compile-only`).
    pub compile_only: bool,
    /// Report the driver's shader statistics of each case.
    pub shader_stats: bool,
    /// Time with the CPU's clock around each submission and its fence, even where the queue has
    /// GPU timestamps (`--fence-timing`).
    pub fence_timing: bool,
    /// Take exactly `samples` samples per case (`--fixed-samples`), not stopping once they agree.
    pub fixed_samples: bool,
    /// Measure each case's energy (`--energy`): `Some` with the window in seconds, `Some(None)`
    /// for the sensor's own ([`default_window`](super::energy::default_window)).
    pub energy: Option<Option<f64>>,
}

/// The most samples a case takes on a GPU unless `--samples` says otherwise.
pub const MOST_SAMPLES: u32 = 10;

/// The most samples a case takes on a CPU implementation (lavapipe, SwiftShader) unless
/// `--samples` says otherwise: its samples spread with the host's scheduler and seldom meet the
/// 0.3% at which a GPU's stop at three, so a third to half of a lavapipe run's cases took all ten;
/// with five, full runs on two cores took 162 and 181 s against 209 and 267 s
/// (results/half-the-time-16/).
pub const CPU_MOST_SAMPLES: u32 = 5;

impl RunSettings {
    /// The most samples a case takes on a device of `kind`: `--samples`, else [`MOST_SAMPLES`],
    /// [`CPU_MOST_SAMPLES`] on a CPU implementation.
    pub fn most_samples(&self, kind: ash::vk::PhysicalDeviceType) -> u32 {
        self.samples.unwrap_or(match kind {
            ash::vk::PhysicalDeviceType::CPU => CPU_MOST_SAMPLES,
            _ => MOST_SAMPLES,
        })
    }

    /// How many samples a case takes on a device of `kind`.
    pub fn sampling(&self, kind: ash::vk::PhysicalDeviceType) -> Sampling {
        let most = self.most_samples(kind) as usize;
        match self.fixed_samples {
            true => Sampling::fixed(most),
            false => Sampling::converging(most),
        }
    }

    /// Whether cases are timed (neither verified nor only compiled).
    pub fn timed(&self) -> bool {
        !self.verify && !self.compile_only
    }

    /// What a case's warm-up waits for on a device of `kind`: agreeing rates on a GPU, a second
    /// run on the target on a CPU implementation (no clock idles there between cases:
    /// results/half-the-time-17/); either for at most 50 measurements' GPU time.
    pub fn settling(&self, kind: ash::vk::PhysicalDeviceType) -> Settling {
        let cap_ms = 50.0 * self.target_ms;
        match kind {
            ash::vk::PhysicalDeviceType::CPU => Settling::Repeated { cap_ms },
            _ => Settling::Agreeing { cap_ms },
        }
    }
}

/// The selection made ready: why each case is skipped (if it is), the pipelines of the rest, the
/// clock probe and the warm state. Fields drop in order: the probe and the warm-up load before the
/// pipelines.
pub struct Prepared<'ctx> {
    /// Per case, in order: the reasons it cannot run on this device, joined; `None` if it can.
    pub skipped: Vec<Option<String>>,
    /// The calibrated clock probe, or why the clock is unknown.
    pub clock: Clock<'ctx>,
    /// The warm-up load and the level the first warm-up reached (timed runs only).
    pub warmth: Option<Warmth<'ctx>>,
    /// The pipelines of the first family's runnable cases (none where they are built as each case
    /// runs).
    pub pipelines: Pipelines<'ctx>,
    /// The later families' pipelines ([`Later`]).
    pub later: Later<'ctx>,
    /// The family whose pipelines were built first (that of the first runnable case).
    pub first_family: Option<&'static str>,
    /// Whether each case builds its pipeline just before it runs ([`Job::lazy`](super::message::Job::lazy)).
    pub lazy: bool,
    /// The energy sensor each timed case's work is held for after its samples (`--energy`, where
    /// the device has one).
    pub energy: Option<RefCell<Meter<EnergySensor>>>,
}

impl<'ctx> Prepared<'ctx> {
    /// The pipelines `case`'s is among: the first family's, or its later family's ([`Later::of`]).
    fn pipelines_of(&self, case: &CaseSpec) -> Result<&Pipelines<'ctx>> {
        if self.pipelines.get(case).is_some() || self.later.pipelines == 0 {
            return Ok(&self.pipelines);
        }
        self.later.of(case, self.warmth.as_ref())
    }

    /// Holds `timer`'s measurement of `groups` for the energy sensor's window, where the run
    /// measures energy; a sensor that fails costs the case its figure (a note says why), not the case.
    fn hold(
        &self,
        timer: &mut dyn Timer,
        groups: u64,
        notes: &mut Vec<String>,
        phases: &mut Phases,
    ) -> Result<Option<Held>> {
        let Some(meter) = &self.energy else { return Ok(None) };
        let start = Instant::now();
        let held = meter.borrow_mut().hold(timer, groups)?;
        phases.energy_ms = Phases::since(start);
        Ok(held.map_err(|why| notes.push(format!("energy: not measured ({why})"))).ok())
    }
}

/// Checks each case's requirements against the device, builds the first family's runnable cases'
/// pipelines on `threads` threads (the other families' are built beside the cases or when the run
/// reaches them: [`Later`]; so the first result comes as soon as its family's pipelines are
/// ready; with `lazy`, none: each case builds its own as it runs), and with `timed`
/// (timed runs) calibrates the clock probe (after a fixed time of load if a clock still climbing
/// from idle fails it) and warms the device up.
pub fn prepare<'ctx>(
    ctx: &'ctx Context,
    cases: &[CaseSpec],
    threads: usize,
    timed: bool,
    lazy: bool,
) -> Result<Prepared<'ctx>> {
    // The reasons name what the device lacks; a case whose features it offers but which were
    // not all enabled (none today: each case's group is enabled whole) is checked against what
    // the device was created with.
    let enabled = DeviceCaps { features: ctx.enabled, ..ctx.caps.clone() };
    let skipped: Vec<Option<String>> = cases
        .iter()
        .map(|case| {
            let needs = case.requirements();
            let lacks = needs.unmet(&ctx.caps);
            let reasons = if lacks.is_empty() { needs.unmet(&enabled) } else { lacks };
            (!reasons.is_empty()).then(|| reasons.join("; "))
        })
        .collect();
    // Transfer cases run no shader: nothing to build.
    let runnable: Vec<&CaseSpec> = cases
        .iter()
        .zip(&skipped)
        .filter(|(c, s)| s.is_none() && !c.transfer && !lazy)
        .map(|(c, _)| c)
        .collect();
    let first = runnable.first().map(|c| c.family);
    let (now, rest): (Vec<&CaseSpec>, Vec<&CaseSpec>) =
        runnable.into_iter().partition(|c| Some(c.family) == first);
    let pipelines = pipelines::build_all(ctx, &now, threads)?;
    // On a GPU the later families' are built beside the warm-up and the cases, one thread left
    // to a timed run's own work (an untimed one mostly waits for them); not on a CPU driver,
    // whose cases are the same cores' work.
    let (beside, builders) = match (ctx.info.row.kind == ash::vk::PhysicalDeviceType::CPU, timed) {
        (true, _) => (Beside::No, threads),
        (false, true) => (Beside::FamilyByFamily, threads.saturating_sub(1).max(1)),
        (false, false) => (Beside::AllAtOnce, threads),
    };
    let later = Later::new(ctx, rest.into_iter().cloned().collect(), builders, beside);
    let (clock, warmth) = match timed {
        true => {
            let (clock, warmth) = warm(ctx)?;
            (clock, Some(warmth))
        }
        false => {
            let unknown = "not read: --verify and --compile-only time nothing";
            (Clock { probe: None, unknown: Some(unknown.into()), witness: Err(unknown.into()) }, None)
        }
    };
    Ok(Prepared { skipped, clock, warmth, pipelines, later, first_family: first, lazy, energy: None })
}

/// Calibrates the clock probe (after a fixed time of load if a clock still climbing from idle
/// fails it) and warms the device up: what a timed run does before its first case.
fn warm(ctx: &Context) -> Result<(Clock<'_>, Warmth<'_>)> {
    let heater = Heater::new(ctx)?;
    let plan = Plan::for_device(ctx.info.row.kind);
    let clock = match clock::probe(ctx) {
        Err(reason) => Clock { probe: None, unknown: Some(reason.clone()), witness: Err(reason) },
        Ok(probe) => {
            // A clock still climbing from idle reads unsteady: load the device, then try again.
            let mut calibrated = clock::calibrate(&probe);
            if calibrated.is_err() {
                heater.heat(plan.blind_ms)?;
                calibrated = clock::calibrate(&probe);
            }
            match calibrated {
                Ok(()) => Clock { probe: Some(probe), unknown: None, witness: Witness::new(ctx) },
                Err(reason) => Clock { probe: None, unknown: Some(reason.clone()), witness: Err(reason) },
            }
        }
    };
    let warmth = Warmth::start(heater, clock.readers(), plan)?;
    Ok((clock, warmth))
}

/// Runs the cases at the positions `order` gives in `cases` (the list `prepared` was made for; see
/// [`order`]), calling `on_start` before each and `on_done` with its record after it; skipped cases come out as [`Outcome::Skipped`] with their reasons.
/// A case that fails costs that case: its record says how ([`Outcome::Failed`]). Stops before
/// the next case after a stop request, and after a case that lost the device (nothing more can
/// run on it). `baselines` names the cases that others' ratios are against (measured again for
/// noise too); `sink` is where the validation layer's messages go, read after each case.
#[allow(clippy::too_many_arguments)]
pub fn execute<'ctx>(
    ctx: &'ctx Context,
    cases: &[CaseSpec],
    order: &[usize],
    prepared: &Prepared<'ctx>,
    settings: &RunSettings,
    baselines: &HashSet<&str>,
    sink: &Sink,
    on_start: &mut dyn FnMut(&CaseSpec) -> Result<()>,
    on_done: &mut dyn FnMut(Record) -> Result<()>,
) -> Result<()> {
    let max = ctx.info.max_group_count;
    // A fence's cost is in every CPU-timed measurement: longer ones keep it under 1%.
    let target_ms = if ctx.fenced { settings.target_ms.max(FENCED_TARGET_MS) } else { settings.target_ms };
    let policy = Policy::for_device(target_ms, max);
    // Verify and compile-only runs time nothing, so they read no clock.
    let clocks = if settings.timed() { prepared.clock.readers() } else { Readers::default() };
    let kept = Kept::new(ctx, cases, order);
    let shelf = super::copy::Shelf::new(ctx, cases, order);
    let mut counts = Counts::open(&ctx.info.identity);
    let (sampling, settling) = (settings.sampling(ctx.info.row.kind), settings.settling(ctx.info.row.kind));
    for (position, &index) in order.iter().enumerate() {
        let case = &cases[index];
        if STOP.load(Ordering::SeqCst) {
            break;
        }
        on_start(case)?;
        let steady = Steady {
            clocks,
            warmth: prepared.warmth.as_ref(),
            baseline: baselines.contains(case.name.as_str()),
            family: case.family,
            from: counts.start(&case.name, &policy),
            sampling,
            settling,
        };
        let start = Instant::now();
        let mut phases = Phases::default();
        let mut record = match &prepared.skipped[index] {
            Some(reason) => Record::of(case, Outcome::Skipped(reason.clone()), Vec::new(), None),
            None => {
                // A pass over the device's free memory was sized when the run began: what later
                // cases keep makes room for it (they make theirs again), wherever it runs (stagger).
                if case.requires.own_memory {
                    kept.clear();
                    shelf.clear();
                    let_go_of_staging(ctx);
                }
                match run_case(ctx, case, prepared, settings, &policy, &steady, &kept, &shelf, &mut phases) {
                    Ok(record) => Record { notes: [&case.notes[..], &record.notes].concat(), ..record },
                    Err(error) => Record::of(case, case_failure(error.in_case(&case.name)), Vec::new(), None),
                }
            }
        };
        let lost = matches!(record.outcome, Outcome::Failed { failure: Failure::DeviceLost, .. });
        record.validation = drain(sink);
        if let Outcome::Timed { measurement, .. } = &record.outcome {
            counts.learn(&case.name, measurement, &policy);
            let m = *measurement.phases;
            (phases.scale_ms, phases.warm_ms, phases.samples_ms) = (m.scale_ms, m.warm_ms, m.samples_ms);
            (phases.samples_gpu_ms, phases.rewarm_ms, phases.remeasure_ms) =
                (m.samples_gpu_ms, m.rewarm_ms, m.remeasure_ms);
        }
        // The kept contents and copy buffers no later case reads go with the case's own resources.
        let_go(
            || {
                kept.after(position);
                shelf.after(position);
            },
            &mut phases,
        );
        phases.total_ms = Phases::since(start);
        record.phases = phases;
        on_done(record)?;
        if lost {
            break;
        }
    }
    // A cache: a count that cannot be kept costs the next run its scaling, never a result.
    let _ = counts.save();
    Ok(())
}

/// What an error in a case makes of the case: a memory type without room (the allocator's
/// out-of-memory comes as [`Error::NoRoom`] too) or memory that ran out skips it (the case cannot
/// run here, the rest can); a difference from the CPU reference, a lost device and any other error
/// fail it.
fn case_failure(error: Error) -> Outcome {
    let failure = match &error {
        Error::NoRoom { .. } => return Outcome::Skipped(error.to_string()),
        Error::Vulkan { result, .. } if out_of_memory(*result) => {
            return Outcome::Skipped(format!("out of memory: {error}"))
        }
        Error::Verify { .. } => Failure::Differs,
        Error::DeviceLost { .. } => Failure::DeviceLost,
        _ => Failure::Error,
    };
    Outcome::Failed { failure, detail: error.to_string() }
}

/// What `make` gives, made again where it found no room once `clear` (what the run keeps for later
/// cases) and the staging buffer kept from the last upload gave theirs back (both let go: `|`, not
/// `||`).
fn with_room<T>(ctx: &Context, make: impl Fn() -> Result<T>, clear: impl FnOnce() -> bool) -> Result<T> {
    match make() {
        Err(error) if takes_room(&error) && (clear() | let_go_of_staging(ctx)) => make(),
        made => made,
    }
}

/// Whether `error` says memory ran out or a heap had no room.
fn takes_room(error: &Error) -> bool {
    match error {
        Error::NoRoom { .. } => true,
        Error::Vulkan { result, .. } => out_of_memory(*result),
        _ => false,
    }
}

/// Whether `result` says device or host memory ran out.
fn out_of_memory(result: ash::vk::Result) -> bool {
    matches!(result, ash::vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | ash::vk::Result::ERROR_OUT_OF_HOST_MEMORY)
}

/// Runs `cases` in this process, baselines first, and hands each on in list order with its ratio
/// ([`Assembler`]); the results in list order. The plain way to run cases in tests and tools.
pub fn run_cases<'ctx>(
    ctx: &'ctx Context,
    cases: &[CaseSpec],
    prepared: &Prepared<'ctx>,
    settings: &RunSettings,
    mut on_done: impl FnMut(Finished<'_>),
) -> Result<Vec<(String, Outcome)>> {
    let ordered: Vec<usize> = order(cases, !settings.timed());
    let baselines: HashSet<&str> = cases.iter().filter_map(|c| c.baseline.as_deref()).collect();
    let mut assembler = Assembler::new(cases);
    let mut results = Vec::with_capacity(cases.len());
    let mut collect = |f: Finished<'_>| {
        results.push((f.case.name.clone(), f.record.outcome.clone()));
        on_done(f);
    };
    let sink = ctx.validation_sink();
    execute(ctx, cases, &ordered, prepared, settings, &baselines, &sink, &mut |_| Ok(()), &mut |record| {
        assembler.take(record, &mut collect);
        Ok(())
    })?;
    assembler.finish(&mut collect);
    Ok(results)
}

/// What holds a case's measurement to a steady clock: what reads the clock, the warm state,
/// whether the case is a baseline, and the count a run before settled at.
struct Steady<'a, 'ctx> {
    clocks: Readers<'a, 'ctx>,
    warmth: Option<&'a Warmth<'ctx>>,
    baseline: bool,
    /// The case's family: a case held by its own load tells the family's next case.
    family: &'static str,
    /// Where the first try's scaling starts ([`Counts::start`]); a later try starts where the one
    /// before settled.
    from: Option<u64>,
    /// How many samples each try takes on this device ([`RunSettings::sampling`]).
    sampling: Sampling,
    /// What each try's warm-up waits for on this device ([`RunSettings::settling`]).
    settling: Settling,
}

impl Steady<'_, '_> {
    /// Measures `timer` after the warm-up check (its note, if it loaded the device, goes into
    /// `notes`), and again while a try ran on the wrong clock ([`measure_steady`]).
    fn measure(
        &self,
        timer: &mut dyn Timer,
        policy: &Policy,
        notes: &mut Vec<String>,
    ) -> Result<Measurement> {
        let Some(warmth) = self.warmth else {
            return measure(timer, policy, self.from, &self.sampling, self.settling);
        };
        let start = Instant::now();
        notes.extend(warmth.before_case(self.clocks)?);
        let rewarm_ms = Phases::since(start);
        let measured = measure_steady(
            tries(timer, policy, self.from, self.sampling, self.settling),
            || warmth.rewarm(self.clocks),
            warmth.reference(),
            self.baseline,
            warmth.held(self.family),
        );
        warmth.worked();
        if let Ok(m) = &measured {
            warmth.keep_held(self.family, m.clock_mhz().filter(|_| m.clock.own_load));
        }
        measured.map(|mut m| {
            m.phases.rewarm_ms += rewarm_ms;
            m
        })
    }
}

#[allow(clippy::too_many_arguments)]
fn run_case<'ctx>(
    ctx: &'ctx Context,
    case: &CaseSpec,
    prepared: &Prepared<'ctx>,
    settings: &RunSettings,
    policy: &Policy,
    steady: &Steady<'_, 'ctx>,
    kept: &Kept<'ctx>,
    shelf: &super::copy::Shelf<'ctx>,
    phases: &mut Phases,
) -> Result<Record> {
    if case.transfer && settings.compile_only {
        return Ok(Record::of(
            case,
            Outcome::Skipped("a transfer: it runs no shader to compile".into()),
            Vec::new(),
            None,
        ));
    }
    if case.transfer {
        if let Some(kind) = case.queue.filter(|&kind| ctx.queue_family(kind) == Some(ctx.info.row.family)) {
            let reason = format!(
                "the run's own queue is of family {}, the first {} family: the lines without a queue are \
                 these copies",
                ctx.info.row.family,
                kind.label()
            );
            return Ok(Record::of(case, Outcome::Skipped(reason), Vec::new(), None));
        }
        let start = Instant::now();
        // Buffers held for later copies give their room back to a case that finds none.
        let make = || CopyBench::new(ctx, case, steady.clocks.probe, shelf);
        let mut bench = with_room(ctx, make, || shelf.clear())?;
        phases.setup_ms = Phases::since(start);
        let mut notes = bench.memory_notes();
        if settings.verify {
            let start = Instant::now();
            let checked = bench.verify()?;
            phases.verify_ms = Phases::since(start);
            let_go(|| bench.shelve(shelf), phases);
            return Ok(Record::of(case, Outcome::Verified { checked }, notes, None));
        }
        let mut measurement = steady.measure(&mut bench, policy, &mut notes)?;
        measurement.fenced = ctx.fenced;
        let energy = prepared.hold(&mut bench, measurement.groups, &mut notes, phases)?;
        let work = bench.work(measurement.groups);
        let_go(|| bench.shelve(shelf), phases);
        let timed =
            Outcome::Timed { measurement, work, ratio: None, with_time: false, counted: Counted::Copies };
        return Ok(Record { energy, ..Record::of(case, timed, notes, None) });
    }
    // The transfer buffers kept for a next copy give their room back.
    shelf.clear();
    // Built here where the worker builds each case's pipeline as it runs: kept until the case ends.
    let start = Instant::now();
    let own = match prepared.lazy {
        true => Some(pipelines::build_all(ctx, &[case], 1)?),
        false => None,
    };
    let built = match &own {
        Some(own) => own,
        None => prepared.pipelines_of(case)?,
    };
    phases.pipeline_ms = Phases::since(start);
    let pipeline = built.get(case).ok_or_else(|| crate::error::Error::CaseSpec {
        case: case.name.clone(),
        problem: "its pipeline was not built (run it through runner::prepare)".into(),
    })?;
    if settings.compile_only {
        let statistics = pipeline.statistics()?;
        let notes = stats_notes(true, statistics.as_deref());
        return Ok(Record::of(
            case,
            Outcome::Compiled { executables: statistics.as_ref().map(Vec::len) },
            notes,
            statistics,
        ));
    }
    let start = Instant::now();
    // Contents kept for later cases give their room back to a case that did not fit beside them.
    let bench = with_room(ctx, || Bench::keeping(ctx, case, pipeline, kept), || kept.clear())?;
    let mut bench = bench.with_clocks(steady.clocks);
    phases.setup_ms = Phases::since(start);
    let statistics = bench.shader_statistics()?;
    let mut notes = stats_notes(settings.shader_stats, statistics.as_deref());
    notes.extend(bench.memory_notes());
    if settings.verify {
        let start = Instant::now();
        let checked = bench.verify()?;
        phases.verify_ms = Phases::since(start);
        let_go(|| drop(bench), phases);
        let_go(|| drop(own), phases);
        return Ok(Record::of(case, Outcome::Verified { checked }, notes, statistics));
    }
    let mut measurement = steady.measure(&mut bench, policy, &mut notes)?;
    // Round trips are the CPU's time, whatever the queue's timestamps.
    measurement.fenced = ctx.fenced || case.scale == Scale::Submissions;
    measurement.shader.chain_clocks = bench.chain_clocks(measurement.groups)?;
    if let (Some(words), Scale::Problem { groups }) = (bench.unit_records()?, case.scale) {
        match crate::record::units::of_records(&words, groups as usize) {
            Ok(units) => measurement.shader.units = units,
            Err(why) => notes.push(format!("no rate per compute unit: {why}")),
        }
    }
    notes.extend(bench.round_trip_note());
    // After what the samples' last dispatch and round trips left: the hold repeats them.
    let energy = prepared.hold(&mut bench, measurement.groups, &mut notes, phases)?;
    // After every dispatch of the case: the hold's are checked too.
    if let Some((words, checked)) = bench.fault_log()? {
        match FaultCount::of_words(&words, checked) {
            Ok(mut count) => {
                count.injected = case.injected.clone();
                if case.fault_log.is_some_and(|l| l.fingerprint) {
                    count.fingerprint = words.get(crate::record::faults::FINGERPRINT_WORD).copied();
                }
                let no_temperature = match count.mismatches {
                    0 => None,
                    _ => conditions(ctx, &measurement, &mut count),
                };
                notes.push(count.note(no_temperature.as_deref()));
                measurement.shader.faults = Some(count);
            }
            Err(why) => notes.push(format!("corruption check: not read ({why})")),
        }
    }
    let work = bench.work(measurement.groups);
    let counted = match case.scale {
        Scale::Groups => Counted::Workgroups,
        Scale::PushWord(_) => Counted::Repeats,
        Scale::Dispatches { .. } | Scale::Problem { .. } => Counted::Dispatches,
        Scale::Submissions => Counted::Submissions,
    };
    let timed = Outcome::Timed { measurement, work, ratio: None, with_time: false, counted };
    let_go(|| drop(bench), phases);
    let_go(|| drop(own), phases);
    Ok(Record { energy, ..Record::of(case, timed, notes, statistics) })
}

/// Lets go of a case's resources (`free`: its buffers, images and descriptor set, or the
/// pipeline it built for itself), the time it took counted as the case's freeing. Not while
/// later work runs: a GiB freed beside a timed sample slowed it 1.5-2% on an H200
/// (results/half-the-time-12/).
fn let_go(free: impl FnOnce(), phases: &mut Phases) {
    let start = Instant::now();
    free();
    phases.free_ms += Phases::since(start);
}

/// Where results differed: the case's clock (the record's), and the GPU's temperature now (NVML,
/// on NVIDIA); returns why the temperature is unknown, where it is.
fn conditions(
    ctx: &Context,
    measurement: &crate::record::measurement::Measurement,
    count: &mut FaultCount,
) -> Option<String> {
    count.clock_mhz = measurement.clock_mhz();
    match crate::sensors::nvml::NvidiaGpu::open(&ctx.info.row.uuid).and_then(|gpu| gpu.temperature_c()) {
        Ok(t) => {
            count.temperature_c = Some(t);
            None
        }
        // Without NVIDIA's library there is nothing to ask: say so, not the loader's error.
        Err(why) if why.starts_with("NVML could not be loaded") => Some("no NVML on this host".to_owned()),
        Err(why) => Some(why),
    }
}

/// The notes that show the driver's statistics of a case's shader (`--shader-stats`), or say the
/// driver offers none.
fn stats_notes(wanted: bool, statistics: Option<&[String]>) -> Vec<String> {
    match (wanted, statistics) {
        (false, _) => Vec::new(),
        (true, Some(lines)) => lines.iter().map(|l| format!("shader {l}")).collect(),
        (true, None) => {
            vec!["shader statistics: not offered by this driver (VK_KHR_pipeline_executable_properties)"
                .into()]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpu_implementation_takes_five_samples_unless_told_and_settles_on_target() {
        use ash::vk::PhysicalDeviceType as Kind;
        let settings = |samples, fixed_samples| RunSettings {
            target_ms: 20.0,
            samples,
            verify: false,
            compile_only: false,
            shader_stats: false,
            fence_timing: false,
            fixed_samples,
            energy: None,
        };
        let default = settings(None, false);
        assert_eq!(default.most_samples(Kind::DISCRETE_GPU), MOST_SAMPLES);
        assert_eq!(default.most_samples(Kind::INTEGRATED_GPU), MOST_SAMPLES);
        assert_eq!(default.most_samples(Kind::CPU), CPU_MOST_SAMPLES);
        assert_eq!(default.sampling(Kind::CPU), Sampling::converging(5));
        // `--samples` (or PERFTEST_SAMPLES, or --quick's 5) is taken on every device.
        assert_eq!(settings(Some(10), false).sampling(Kind::CPU), Sampling::converging(10));
        assert_eq!(settings(Some(4), false).sampling(Kind::DISCRETE_GPU), Sampling::converging(4));
        assert_eq!(settings(None, true).sampling(Kind::CPU), Sampling::fixed(5));
        // A CPU implementation's warm-up waits for a second run on target, a GPU's for agreeing rates.
        assert_eq!(default.settling(Kind::CPU), Settling::Repeated { cap_ms: 1000.0 });
        assert_eq!(default.settling(Kind::INTEGRATED_GPU), Settling::Agreeing { cap_ms: 1000.0 });
    }

    #[test]
    fn an_error_in_a_case_fails_or_skips_that_case_as_its_kind_says() {
        let vulkan = |result| Error::Vulkan { call: "vkAllocateMemory", case: Some("A".into()), result };
        let skipped = |outcome: Outcome| matches!(outcome, Outcome::Skipped(reason) if reason.starts_with("out of memory: "));
        assert!(skipped(case_failure(vulkan(ash::vk::Result::ERROR_OUT_OF_DEVICE_MEMORY))));
        assert!(skipped(case_failure(vulkan(ash::vk::Result::ERROR_OUT_OF_HOST_MEMORY))));
        let full = Error::NoRoom {
            memory: "type 0 (heap 0, 2.0 GiB)".into(),
            bytes: 1 << 30,
            result: ash::vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
        };
        let named = |o: Outcome| matches!(o, Outcome::Skipped(r) if r.contains("1073741824 bytes in type 0"));
        assert!(named(case_failure(full)), "a full heap is named with the size");
        let failure = |error: Error| match case_failure(error) {
            Outcome::Failed { failure, .. } => failure,
            other => panic!("{other:?}"),
        };
        assert_eq!(failure(vulkan(ash::vk::Result::ERROR_DEVICE_LOST).in_case("A")), Failure::DeviceLost);
        let differs = Error::Verify {
            case: "A".into(),
            checked: 64,
            mismatches: 1,
            first: "word 0".into(),
            expected: "64".into(),
            got: "128".into(),
        };
        assert_eq!(failure(differs), Failure::Differs);
        assert_eq!(failure(vulkan(ash::vk::Result::ERROR_INITIALIZATION_FAILED)), Failure::Error);
        let timing = Error::Timing { case: "A".into(), detail: "the timestamps are equal".into() };
        assert!(
            matches!(case_failure(timing), Outcome::Failed { failure: Failure::Error, detail } if detail.contains("implausible"))
        );
    }
}
