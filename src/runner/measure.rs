//! One case's measurement: scale the dispatch to the target, warm up (until rates agree, on a
//! GPU), take samples.
//!
//! Why it is built so: docs/design/timing.md.

use super::scaling::{Aims, Policy};
use super::witness::Reading;
use crate::error::Result;
use std::time::Instant;

use crate::record::measurement::{ClockFacts, ClockSource, Measurement};
use crate::record::phases::Phases;
use crate::record::stats::{median, summarize};

/// Something that can time a dispatch of `groups` workgroups (the GPU, or a fake in tests).
pub trait Timer {
    /// Runs one measurement and returns its GPU time in milliseconds.
    fn time_ms(&mut self, groups: u64) -> Result<f64>;
    /// The workgroup count actually dispatched for a request of `groups` (shapes may round).
    fn actual_groups(&self, groups: u64) -> u64 {
        groups
    }
    /// The GPU's clock now, in MHz, where it can be measured (the probe, in submissions of its own).
    fn clock_mhz(&mut self) -> Result<Option<f64>> {
        Ok(None)
    }
    /// Whether [`Timer::time_witnessed`] can read the clock beside the work (then the probe is
    /// not read around the samples).
    fn witnessed(&self) -> bool {
        false
    }
    /// Runs one measurement of `groups` with the clock witness beside its work, expected to take
    /// about `expect_ms`: its GPU time and the clocks the witness read (none where the dispatches
    /// are too short to read beside). `None` where the timer has no witness.
    fn time_witnessed(&mut self, groups: u64, expect_ms: f64) -> Result<Option<(f64, Vec<Reading>)>> {
        let _ = (groups, expect_ms);
        Ok(None)
    }
}

/// How far the sample that carried the witness may be from the others' median before the
/// witness counts as having disturbed it (a driver that ran it before the work, not beside it):
/// the larger of [`SETTLED`] and three times the others' cv. Witnesses run alone would lengthen a
/// four-dispatch sample by three quarters (each waits and reads for three quarters of its
/// dispatch: [`DELAY_SHARE`](super::witness::DELAY_SHARE), [`SPIN_SHARE`](super::witness::SPIN_SHARE)).
pub fn witness_tolerance(others_cv: f64) -> f64 {
    SETTLED.max(3.0 * others_cv)
}

/// The clock of the samples from the witness's `readings`: each reading in MHz, and their
/// relative uncertainty (the largest of theirs, plus half their spread: the clock moved that much
/// within the sample).
pub fn witnessed_clock(readings: &[Reading]) -> Option<(Vec<f64>, f64)> {
    let mhz: Vec<f64> = readings.iter().map(|r| r.mhz).collect();
    let (low, high) = mhz.iter().fold((f64::MAX, f64::MIN), |(l, h), &m| (l.min(m), h.max(m)));
    let mean = mhz.iter().sum::<f64>() / mhz.len().max(1) as f64;
    let own = readings.iter().map(|r| r.uncertainty).fold(0.0, f64::max);
    (!mhz.is_empty()).then(|| (mhz, own + (high - low) / 2.0 / mean))
}

/// How many samples a measurement takes: at least `least`, then until their mean's relative
/// standard error (cv / sqrt(n)) is at most `spread`, at most `most`. A steady case (an H100's
/// cv is near 10^-5) stops at `least`; a noisy one takes `most`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampling {
    /// The fewest samples.
    pub least: usize,
    /// The most samples.
    pub most: usize,
    /// The relative standard error of the mean at which sampling stops.
    pub spread: f64,
}

/// Samples a converging measurement takes at least.
pub const LEAST_SAMPLES: usize = 3;

/// The relative standard error of the samples' mean at which a converging measurement stops: at
/// 3 samples, a cv of 0.52% (nvbench's default `--max-noise` is 0.5%); well under the 3% that
/// flags a case noisy, whose samples never meet it.
pub const SPREAD: f64 = 0.003;

impl Sampling {
    /// At least [`LEAST_SAMPLES`], until the mean's standard error is under [`SPREAD`], at most `most`.
    pub fn converging(most: usize) -> Self {
        let most = most.max(1);
        Sampling { least: LEAST_SAMPLES.min(most), most, spread: SPREAD }
    }

    /// Exactly `n` samples.
    pub fn fixed(n: usize) -> Self {
        Sampling { least: n.max(1), most: n.max(1), spread: 0.0 }
    }

    /// Whether `times` are samples enough.
    fn enough(&self, times: &[f64]) -> bool {
        if times.len() >= self.most {
            return true;
        }
        let Some(summary) = summarize(times).filter(|_| times.len() >= self.least) else { return false };
        summary.cv / (times.len() as f64).sqrt() <= self.spread
    }
}

/// Two consecutive warm-up rates within this fraction count as settled clocks.
pub const SETTLED: f64 = 0.02;
/// Whether a warm-up run's `rate` settles it: within [`SETTLED`] of either of the two runs before
/// it (`rates`, the last first). A clock still ramping moves every rate past the one before; a
/// single run slowed by something else (a CPU driver's thread preempted) does not hold the
/// warm-up back, as the run after it agrees with the one before it.
fn settles(rate: f64, rates: [f64; 2]) -> bool {
    rates.iter().any(|&before| agrees(rate, before))
}

/// Whether two rates are within [`SETTLED`] of each other (never with a NaN).
fn agrees(rate: f64, before: f64) -> bool {
    (rate / before - 1.0).abs() <= SETTLED
}

/// What the warm-up waits for before the runs after scaling become samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Settling {
    /// A GPU's clocks ramp under load and fall in idle gaps: runs aimed at the target until a
    /// rate agrees within [`SETTLED`] with one before it.
    Agreeing {
        /// The GPU time the warm-up may spend before it gives up (the case is then unsettled).
        cap_ms: f64,
    },
    /// A CPU implementation (lavapipe, SwiftShader) has no clock that idles between cases, and
    /// its runs spread with the host's scheduler: the second run on the target (or at a limit it
    /// cannot be aimed past) at one size is a sample, and the first there too where the two agree
    /// within [`SETTLED`]; the samples' own spread says how many follow. (Lavapipe's first run at
    /// a new size is often slow, and a case's first run builds the shader's machine code.)
    Repeated {
        /// The GPU time runs may be aimed for before the warm-up gives up.
        cap_ms: f64,
    },
}

/// Growth steps before scaling gives up (x10 from one group reaches 1e30).
const MAX_SCALING_STEPS: usize = 30;

/// Measures with `timer`: scale to `policy.target_ms` (from the count `from`, where a run before
/// settled there, else from one), warm up as `settling` says, then take samples as `sampling`
/// says.
///
/// The runs that settle the warm-up are samples: the one that settles it, and the one before it
/// where that ran at the same size (a run already on target is not re-aimed) and agrees with it,
/// timed at the samples' size on a clock that held for both.
pub fn measure(
    timer: &mut dyn Timer,
    policy: &Policy,
    from: Option<u64>,
    sampling: &Sampling,
    settling: Settling,
) -> Result<Measurement> {
    let start = Instant::now();
    let mut groups = timer.actual_groups(from.unwrap_or(1));
    let mut run_start = Instant::now();
    let mut ms = timer.time_ms(groups)?;
    let mut runs = 1;
    // Runs aimed in proportion: after AIMED_TRIES of them that swung across the band, near the
    // target is enough.
    let mut aims = Aims::default();
    while !policy.near_target(ms, &aims) && runs < MAX_SCALING_STEPS {
        let next = timer.actual_groups(policy.next(groups, ms));
        if next == groups {
            break; // at a limit (device maximum or watchdog cap)
        }
        aims.aim_from(policy, ms);
        groups = next;
        run_start = Instant::now();
        ms = timer.time_ms(groups)?;
        runs += 1;
    }
    let scaled = Instant::now();
    // Warm-up: aim at the target again after each run off it (clocks may still be ramping) until
    // a run settles it as `settling` says: a rate agrees with one before it, or (no clock to
    // wait for) a second run on target at one size.
    // The run before (its size, time and start) and the rate of the one before that.
    let mut before_run = (groups, ms, run_start);
    let mut earlier_rate = f64::NAN;
    let mut warm_gpu_ms = 0.0;
    let mut times = Vec::with_capacity(sampling.most);
    let mut samples_start = None;
    let (Settling::Agreeing { cap_ms } | Settling::Repeated { cap_ms }) = settling;
    while warm_gpu_ms < cap_ms {
        if !policy.near_target(ms, &aims) {
            aims.aim_from(policy, ms);
            groups = timer.actual_groups(policy.next(groups, ms));
        }
        run_start = Instant::now();
        ms = timer.time_ms(groups)?;
        runs += 1;
        warm_gpu_ms += ms;
        let rate = groups as f64 / ms;
        let (size, time, began) = before_run;
        let before_rate = size as f64 / time;
        let settled = match settling {
            Settling::Agreeing { .. } => settles(rate, [before_rate, earlier_rate]),
            Settling::Repeated { .. } => {
                let at_limit = timer.actual_groups(policy.next(groups, ms)) == groups;
                size == groups && (policy.near_target(ms, &aims) || at_limit)
            }
        };
        if settled {
            if size == groups && agrees(rate, before_rate) {
                times.push(time);
                samples_start = Some(began);
            }
            times.push(ms);
            samples_start = samples_start.or(Some(run_start));
            break;
        }
        earlier_rate = before_rate;
        before_run = (groups, ms, run_start);
    }
    // Never more samples than asked for (a run of one sample keeps scaling's last).
    times.truncate(sampling.most);
    let settled = samples_start.is_some();
    let samples_start = samples_start.unwrap_or_else(Instant::now);
    let scale_ms = (scaled.min(samples_start) - start).as_secs_f64() * 1e3;
    let warm_ms = samples_start.saturating_duration_since(scaled).as_secs_f64() * 1e3;
    // The first sample taken here carries the clock witness, beside its work; where the timer has
    // none, the probe reads the clock before the samples and after them.
    let witnessing = timer.witnessed();
    if witnessing {
        times.truncate(sampling.most.saturating_sub(1));
    }
    let before = if witnessing { None } else { timer.clock_mhz()? };
    let mut witnessed = None;
    let mut witness_change = None;
    if witnessing {
        let expect_ms = median(times.iter().copied()).unwrap_or(ms);
        if let Some((sample, readings)) = timer.time_witnessed(groups, expect_ms)? {
            let others = summarize(&times);
            witness_change = others.as_ref().map(|o| sample / o.median - 1.0);
            let tolerance = witness_tolerance(others.map_or(0.0, |o| o.cv));
            if witness_change.is_none_or(|change| change.abs() <= tolerance) {
                times.push(sample);
                witnessed = witnessed_clock(&readings);
            }
        }
    }
    while !sampling.enough(&times) {
        times.push(timer.time_ms(groups)?);
    }
    let (clocks_mhz, clock_source, clock_uncertainty) = match witnessed {
        Some((readings, uncertainty)) => (readings, ClockSource::Witness, Some(uncertainty)),
        None => {
            let after = timer.clock_mhz()?;
            (before.into_iter().chain(after).collect(), ClockSource::Probe, None)
        }
    };
    let samples_ms = Phases::since(samples_start);
    let samples_gpu_ms = times.iter().sum();
    let summary = summarize(&times).expect("sampling takes one sample at least");
    Ok(Measurement {
        groups,
        samples: times,
        summary,
        warmup_runs: runs,
        settled,
        clocks_mhz,
        clock: Box::new(ClockFacts {
            source: clock_source,
            uncertainty: clock_uncertainty,
            witness_change,
            own_load: false,
            held_as_before: false,
        }),
        reference_mhz: None,
        retries: Vec::new(),
        gave_up: false,
        fenced: false,
        phases: Box::new(Phases { scale_ms, warm_ms, samples_ms, samples_gpu_ms, ..Phases::default() }),
        shader: Box::default(),
    })
}

/// The tries of one case: each a [`measure`] of `timer`, the first scaled from `from` and each
/// later one from where the try before settled ([`Policy::again`]: its count where it took the
/// target, else that count aimed at it), so that a retry after a clock fell does not grow from
/// one group again.
pub fn tries<'t>(
    timer: &'t mut dyn Timer,
    policy: &'t Policy,
    mut from: Option<u64>,
    sampling: Sampling,
    settling: Settling,
) -> impl FnMut() -> Result<Measurement> + 't {
    move || {
        let m = measure(timer, policy, from, &sampling, settling)?;
        from = Some(policy.again(m.groups, m.summary.median));
        Ok(m)
    }
}

#[cfg(test)]
mod tests;
