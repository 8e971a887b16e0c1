//! Running a selection of cases on a context: skip what the device lacks, build the pipelines,
//! warm the device up, then time (baselines first, so every line has its ratio) or verify each
//! case in order.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};

use super::bench::Bench;
use super::clock::{self, Clock, ClockProbe};
use super::copy::CopyBench;
use super::heater::Heater;
use super::measure::{measure, Measurement, Timer};
use super::outcome::{Counted, Outcome};
use super::pipelines::{self, Pipelines};
use super::retry::measure_steady;
use super::scaling::Policy;
use super::warmth::Warmth;
use super::warmup::PLAN;
use crate::caps::DeviceCaps;
use crate::error::Result;
use crate::registry::{CaseSpec, Scale};
use crate::vk::Context;

/// Set by Ctrl-C or SIGTERM (or SIGHUP): the run stops after the case in progress and writes
/// what finished.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// How to run the selected cases.
#[derive(Clone, Copy, Debug)]
pub struct RunSettings {
    /// Target milliseconds per measurement.
    pub target_ms: f64,
    /// Samples after warm-up.
    pub samples: u32,
    /// Verify instead of timing.
    pub verify: bool,
    /// Report the driver's shader statistics of each case.
    pub shader_stats: bool,
}

impl RunSettings {
    /// GPU time that warm-up may spend per case before it gives up on settled clocks.
    pub fn warmup_cap_ms(&self) -> f64 {
        50.0 * self.target_ms
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
    /// The pipelines of the runnable cases.
    pub pipelines: Pipelines<'ctx>,
}

/// Checks each case's requirements against the device, builds the runnable cases' pipelines on
/// `threads` threads, and with `timed` (timed runs) calibrates the clock probe (after a fixed
/// time of load if a clock still climbing from idle fails it) and warms the device up.
pub fn prepare<'ctx>(
    ctx: &'ctx Context,
    cases: &[CaseSpec],
    threads: usize,
    timed: bool,
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
    let runnable: Vec<&CaseSpec> =
        cases.iter().zip(&skipped).filter(|(c, s)| s.is_none() && !c.transfer).map(|(c, _)| c).collect();
    let pipelines = pipelines::build_all(ctx, &runnable, threads)?;
    if !timed {
        let clock = Clock { probe: None, unknown: Some("not read: --verify times nothing".into()) };
        return Ok(Prepared { skipped, clock, warmth: None, pipelines });
    }
    let heater = Heater::new(ctx)?;
    let clock = match clock::probe(ctx) {
        Err(reason) => Clock { probe: None, unknown: Some(reason) },
        Ok(probe) => {
            // A clock still climbing from idle reads unsteady: load the device, then try again.
            let mut calibrated = clock::calibrate(&probe);
            if calibrated.is_err() {
                heater.heat(PLAN.blind_ms)?;
                calibrated = clock::calibrate(&probe);
            }
            match calibrated {
                Ok(()) => Clock { probe: Some(probe), unknown: None },
                Err(reason) => Clock { probe: None, unknown: Some(reason) },
            }
        }
    };
    let warmth = Warmth::start(heater, clock.probe.as_ref())?;
    Ok(Prepared { skipped, clock, warmth: Some(warmth), pipelines })
}

/// A case's outcome, its notes, and the driver's statistics of its shader (where offered).
type Done = (Outcome, Vec<String>, Option<Vec<String>>);

/// A finished case, as [`run_cases`] hands it on.
pub struct Finished<'a> {
    /// The case.
    pub case: &'a CaseSpec,
    /// How it ended.
    pub outcome: &'a Outcome,
    /// The outcome of the baseline its ratio is against, where it has a ratio.
    pub baseline: Option<&'a Outcome>,
    /// Notes for the text output (memory placement, a re-warm, shader statistics on request).
    pub notes: &'a [String],
    /// The driver's statistics of its shader, where offered.
    pub shader: Option<&'a [String]>,
}

/// Runs `cases` in order, calling `on_start` before and `on_done` after each (with notes, and the
/// driver's shader statistics where it offers them; with `shader_stats` they are notes too).
/// Skipped cases come out as [`Outcome::Skipped`] with their reasons.
pub fn run_cases<'c>(
    ctx: &Context,
    cases: &'c [CaseSpec],
    prepared: &Prepared<'_>,
    settings: &RunSettings,
    mut on_start: impl FnMut(&'c CaseSpec),
    mut on_done: impl FnMut(Finished<'_>),
) -> Result<Vec<(String, Outcome)>> {
    let max = ctx.info.max_group_count;
    let policy = Policy::for_device(settings.target_ms, max);
    // Verify runs time nothing, so they read no clock.
    let probe = prepared.clock.probe.as_ref().filter(|_| !settings.verify);
    // A baseline is measured again for noise and an unsettled warm-up too, not only its clock.
    let baselines: HashSet<&str> = cases.iter().filter_map(|c| c.baseline.as_deref()).collect();
    let run_one = |index: usize| -> Result<Done> {
        let case = &cases[index];
        let steady = Steady {
            probe,
            warmth: prepared.warmth.as_ref(),
            baseline: baselines.contains(&case.name.as_str()),
        };
        match &prepared.skipped[index] {
            Some(reason) => Ok((Outcome::Skipped(reason.clone()), Vec::new(), None)),
            None => match run_case(ctx, case, prepared, settings, &policy, &steady) {
                // A memory type that had no room left: the case cannot run here, the rest can.
                Err(error @ crate::error::Error::NoRoom { .. }) => {
                    Ok((Outcome::Skipped(error.to_string()), Vec::new(), None))
                }
                other => other.map_err(|e| e.in_case(&cases[index].name)),
            },
        }
    };
    // A case with a baseline prints a ratio: measure each baseline first, so that the lines still
    // come in order, each with its ratio.
    let index_of: HashMap<&str, usize> =
        cases.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
    let mut early: HashMap<usize, Done> = HashMap::new();
    if !settings.verify {
        for baseline in cases.iter().filter_map(|c| c.baseline.as_deref()) {
            if STOP.load(Ordering::SeqCst) {
                break;
            }
            if let Some(&index) = index_of.get(baseline).filter(|i| !early.contains_key(i)) {
                on_start(&cases[index]);
                early.insert(index, run_one(index)?);
            }
        }
    }
    let base_outcomes: HashMap<&str, Outcome> =
        early.iter().map(|(i, (o, _, _))| (cases[*i].name.as_str(), o.clone())).collect();
    let mut results = Vec::with_capacity(cases.len());
    let mut missing_baselines: Vec<&str> = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        // After a stop, start nothing new, but still report the baselines already measured.
        let (mut outcome, mut notes, shader) = match early.remove(&index) {
            Some(done) => done,
            None if STOP.load(Ordering::SeqCst) => continue,
            None => {
                on_start(case);
                run_one(index)?
            }
        };
        let own_rate = outcome.rate();
        let mut against = None;
        if let (Some(baseline), Outcome::Timed { ratio, with_time, .. }) = (&case.baseline, &mut outcome) {
            *with_time = true;
            let base = base_outcomes.get(baseline.as_str()).filter(|o| o.rate().is_some());
            match base {
                Some(base) => {
                    *ratio = own_rate.zip(base.rate()).map(|(r, b)| r / b);
                    // The baseline's own 1.000x needs no flag for being against itself.
                    against = (*baseline != case.name).then_some(base);
                }
                // Said once per missing baseline, on the first line that lacks it.
                None if !missing_baselines.contains(&baseline.as_str()) => {
                    notes.push(format!(
                        "no ratios: the baseline \"{baseline}\" was not timed (filtered out or skipped)"
                    ));
                    missing_baselines.push(baseline);
                }
                None => {}
            }
        }
        on_done(Finished {
            case,
            outcome: &outcome,
            baseline: against,
            notes: &notes,
            shader: shader.as_deref(),
        });
        results.push((case.name.clone(), outcome));
    }
    Ok(results)
}

/// What holds a case's measurement to a steady clock: the probe, the warm state, and whether the
/// case is a baseline.
struct Steady<'a, 'ctx> {
    probe: Option<&'a ClockProbe<'ctx>>,
    warmth: Option<&'a Warmth<'ctx>>,
    baseline: bool,
}

impl Steady<'_, '_> {
    /// Measures `timer` after the warm-up check (its note, if it loaded the device, goes into
    /// `notes`), and again while a try ran on the wrong clock ([`measure_steady`]).
    fn measure(
        &self,
        timer: &mut dyn Timer,
        policy: &Policy,
        settings: &RunSettings,
        notes: &mut Vec<String>,
    ) -> Result<Measurement> {
        let Some(warmth) = self.warmth else {
            return measure(timer, policy, settings.samples as usize, settings.warmup_cap_ms());
        };
        notes.extend(warmth.before_case(self.probe)?);
        let measured = measure_steady(
            || measure(timer, policy, settings.samples as usize, settings.warmup_cap_ms()),
            || warmth.rewarm(self.probe),
            warmth.reference(),
            self.baseline,
        );
        warmth.worked();
        measured
    }
}

fn run_case(
    ctx: &Context,
    case: &CaseSpec,
    prepared: &Prepared<'_>,
    settings: &RunSettings,
    policy: &Policy,
    steady: &Steady<'_, '_>,
) -> Result<Done> {
    if case.transfer {
        let mut bench = CopyBench::new(ctx, case, steady.probe)?;
        let mut notes = bench.memory_notes();
        if settings.verify {
            return Ok((Outcome::Verified { checked: bench.verify()? }, notes, None));
        }
        let measurement = steady.measure(&mut bench, policy, settings, &mut notes)?;
        let work = bench.work(measurement.groups);
        let timed =
            Outcome::Timed { measurement, work, ratio: None, with_time: false, counted: Counted::Copies };
        return Ok((timed, notes, None));
    }
    let pipeline = prepared.pipelines.get(case).ok_or_else(|| crate::error::Error::CaseSpec {
        case: case.name.clone(),
        problem: "its pipeline was not built (run it through runner::prepare)".into(),
    })?;
    let mut bench = Bench::new(ctx, case, pipeline)?.with_probe(steady.probe);
    let statistics = bench.shader_statistics()?;
    let mut notes = match (settings.shader_stats, &statistics) {
        (false, _) => Vec::new(),
        (true, Some(lines)) => lines.iter().map(|l| format!("shader {l}")).collect(),
        (true, None) => {
            vec!["shader statistics: not offered by this driver (VK_KHR_pipeline_executable_properties)"
                .into()]
        }
    };
    notes.extend(bench.memory_notes());
    if settings.verify {
        return Ok((Outcome::Verified { checked: bench.verify()? }, notes, statistics));
    }
    let measurement = steady.measure(&mut bench, policy, settings, &mut notes)?;
    let work = bench.work(measurement.groups);
    let counted = match case.scale {
        Scale::Groups => Counted::Workgroups,
        Scale::PushWord(_) => Counted::Repeats,
    };
    Ok((Outcome::Timed { measurement, work, ratio: None, with_time: false, counted }, notes, statistics))
}
