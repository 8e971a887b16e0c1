//! One case's measurement: scale the dispatch to the target, warm up (until rates agree, on a
//! GPU), take samples.
//!
//! Why it is built so: docs/design/timing.md.

use super::scaling::Policy;
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
    // Runs aimed in proportion: after AIMED_TRIES of them, near the target is enough.
    let mut aimed = 0;
    while !policy.near_target(ms, aimed) && runs < MAX_SCALING_STEPS {
        let next = timer.actual_groups(policy.next(groups, ms));
        if next == groups {
            break; // at a limit (device maximum or watchdog cap)
        }
        aimed += usize::from(policy.aims_from(ms));
        groups = next;
        run_start = Instant::now();
        ms = timer.time_ms(groups)?;
        runs += 1;
    }
    let scaled = Instant::now();
    // Warm-up: aim at the target again after each run off it (clocks may still be ramping) until
    // a rate agrees with one before it.
    // The run before (its size, time and start) and the rate of the one before that.
    let mut before_run = (groups, ms, run_start);
    let mut earlier_rate = f64::NAN;
    let mut warm_gpu_ms = 0.0;
    let mut times = Vec::with_capacity(sampling.most);
    let mut samples_start = None;
    let (Settling::Agreeing { cap_ms } | Settling::Repeated { cap_ms }) = settling;
    while warm_gpu_ms < cap_ms {
        if !policy.near_target(ms, aimed) {
            aimed += usize::from(policy.aims_from(ms));
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
                size == groups && (policy.near_target(ms, aimed) || at_limit)
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
mod tests {
    use super::*;
    use crate::runner::scaling::{AIMED_TRIES, MAX_SUBMIT_MS};

    /// A device with a fixed cost per group, whose clock doubles after `ramp_after` runs.
    struct FakeGpu {
        ms_per_group: f64,
        ramp_after: usize,
        runs: usize,
        log: Vec<u64>,
    }

    impl Timer for FakeGpu {
        fn time_ms(&mut self, groups: u64) -> Result<f64> {
            self.runs += 1;
            self.log.push(groups);
            let speed = if self.runs > self.ramp_after { 2.0 } else { 1.0 };
            Ok(0.01 + groups as f64 * self.ms_per_group / speed)
        }
    }

    fn policy() -> Policy {
        Policy { target_ms: 20.0, max_submit_ms: MAX_SUBMIT_MS, max_groups: 1 << 31 }
    }

    /// Times from `times` in turn (repeating the last), whatever the group count.
    struct Scripted(Vec<f64>, usize);
    impl Timer for Scripted {
        fn time_ms(&mut self, _: u64) -> Result<f64> {
            self.1 += 1;
            Ok(self.0[(self.1 - 1).min(self.0.len() - 1)])
        }
    }

    #[test]
    fn steady_samples_stop_at_three_and_noisy_ones_take_them_all() {
        let converging = Sampling::converging(10);
        // 20 ms every time, as an H100 case (cv near 10^-5).
        let mut gpu = Scripted(vec![20.0], 0);
        let steady =
            measure(&mut gpu, &policy(), None, &converging, Settling::Agreeing { cap_ms: 1000.0 }).unwrap();
        assert_eq!(steady.samples.len(), LEAST_SAMPLES);
        assert_eq!(gpu.1, 3, "scaling's last run and the warm-up run agreeing with it are samples");
        // Scaling and warm-up take what they take; then samples swinging 10%: all ten.
        let mut swinging = Scripted([20.0, 22.0].repeat(20), 0);
        let noisy =
            measure(&mut swinging, &policy(), None, &converging, Settling::Agreeing { cap_ms: 1000.0 })
                .unwrap();
        assert_eq!(noisy.samples.len(), 10);
        // One sample 2% off among steady ones: cv / sqrt(n) first falls under 0.3% at seven.
        let mut slight = Scripted(vec![20.0, 20.0, 20.4], 0);
        slight.0.extend([20.0; 10]);
        let some = measure(&mut slight, &policy(), None, &converging, Settling::Agreeing { cap_ms: 1000.0 })
            .unwrap();
        assert_eq!(some.samples.len(), 7, "{:?}", some.samples);
        // --fixed-samples takes exactly what it says.
        let fixed = measure(
            &mut Scripted(vec![20.0], 0),
            &policy(),
            None,
            &Sampling::fixed(10),
            Settling::Agreeing { cap_ms: 1000.0 },
        )
        .unwrap();
        assert_eq!(fixed.samples.len(), 10);
        let one = measure(
            &mut Scripted(vec![20.0], 0),
            &policy(),
            None,
            &Sampling::fixed(1),
            Settling::Agreeing { cap_ms: 1000.0 },
        )
        .unwrap();
        assert_eq!(one.samples.len(), 1, "the two settling runs never make more samples than asked");
        assert_eq!(Sampling::converging(2).least, 2, "never more than the most");
    }

    #[test]
    fn one_slow_run_does_not_hold_the_warm_up_back_but_a_ramp_does() {
        assert!(settles(100.0, [101.0, f64::NAN]), "the run before agrees");
        assert!(settles(100.0, [80.0, 101.0]), "one slow run between two that agree");
        assert!(!settles(120.0, [110.0, 100.0]), "a clock still ramping");
        assert!(!settles(100.0, [f64::NAN, f64::NAN]));
        // A device whose time follows the group count, but whose first warm-up run (the run
        // after scaling's last) is preempted and takes 25% longer: the run after it settles the
        // warm-up, as the one before the slow one agrees, and is the first sample.
        struct Preempted(FakeGpu, usize);
        impl Timer for Preempted {
            fn time_ms(&mut self, groups: u64) -> Result<f64> {
                let ms = self.0.time_ms(groups)?;
                Ok(if self.0.runs == self.1 { ms * 1.25 } else { ms })
            }
        }
        let gpu = FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] };
        let scaling_runs = 5; // 1 to 1000 groups by tens (1 ms: past a hundredth of 20), then 19 802 for 20 ms
        let mut preempted = Preempted(gpu, scaling_runs + 1);
        let m = measure(
            &mut preempted,
            &policy(),
            None,
            &Sampling::fixed(3),
            Settling::Agreeing { cap_ms: 1000.0 },
        )
        .unwrap();
        assert!(m.settled);
        assert_eq!((m.warmup_runs, m.samples.len()), (scaling_runs + 2, 3));
    }

    #[test]
    fn scales_from_one_group_to_the_target() {
        let mut gpu = FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] };
        let m =
            measure(&mut gpu, &policy(), None, &Sampling::fixed(5), Settling::Agreeing { cap_ms: 1000.0 })
                .unwrap();
        assert_eq!(&gpu.log[..4], &[1, 10, 100, 1000]);
        assert!(policy().on_target(m.summary.median), "{}", m.summary.median);
        assert!(m.settled);
        assert_eq!(m.samples.len(), 5);
    }

    #[test]
    fn a_kept_count_starts_at_the_target_and_one_off_it_is_aimed_again() {
        // The count a run before settled at (20 ms): its first run and the next are the first
        // two samples; nothing grows from one group.
        let mut gpu = FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] };
        let m = measure(
            &mut gpu,
            &policy(),
            Some(19_990),
            &Sampling::fixed(3),
            Settling::Agreeing { cap_ms: 1000.0 },
        )
        .unwrap();
        assert_eq!(gpu.log, [19_990; 3]);
        assert!(m.settled && m.warmup_runs == 2 && m.samples.len() == 3, "{m:?}");
        // A device now four times slower per group: the kept count takes 80 ms, and is aimed
        // down to the target from there.
        let mut slower = FakeGpu { ms_per_group: 0.004, ramp_after: usize::MAX, runs: 0, log: vec![] };
        let m = measure(
            &mut slower,
            &policy(),
            Some(19_990),
            &Sampling::fixed(3),
            Settling::Agreeing { cap_ms: 1000.0 },
        )
        .unwrap();
        assert_eq!(slower.log[..2], [19_990, 4_999]);
        assert!(policy().on_target(m.summary.median) && m.groups == 4_999, "{m:?}");
    }

    #[test]
    fn a_retry_starts_where_the_try_before_settled_and_one_off_the_target_is_aimed() {
        let (mut gpu, policy) =
            (FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] }, policy());
        let mut next =
            tries(&mut gpu, &policy, None, Sampling::fixed(3), Settling::Agreeing { cap_ms: 1000.0 });
        let (first, second) = (next().unwrap(), next().unwrap());
        drop(next);
        assert_eq!(gpu.log[..4], [1, 10, 100, 1000], "the first try grows from one group");
        assert_eq!(gpu.log.iter().filter(|&&g| g == 1).count(), 1, "the second does not: {:?}", gpu.log);
        // Its first run is at the settled count, on target, so it and the next are samples.
        assert!(second.groups == first.groups && second.warmup_runs == 2, "{second:?}");

        // A try that ended off the target (every run takes 40 ms: after four aimed runs twice the
        // target will do): the next starts from its count aimed at the target.
        struct Always(Vec<u64>);
        impl Timer for Always {
            fn time_ms(&mut self, groups: u64) -> Result<f64> {
                self.0.push(groups);
                Ok(40.0)
            }
        }
        let mut slow = Always(vec![]);
        let mut next =
            tries(&mut slow, &policy, Some(1000), Sampling::fixed(1), Settling::Agreeing { cap_ms: 0.0 });
        let off = next().unwrap();
        let runs = off.warmup_runs + 1;
        next().unwrap();
        drop(next);
        assert_eq!(slow.0[..runs], [1000, 500, 250, 125, 63, 63]);
        assert_eq!(slow.0[runs], policy.next(63, 40.0), "{:?}", slow.0);
    }

    #[test]
    fn warm_up_follows_a_clock_ramp() {
        // Scaling reaches 19 802 groups on run 5; the clock doubles from run 6, inside warm-up.
        let mut gpu = FakeGpu { ms_per_group: 0.001, ramp_after: 5, runs: 0, log: vec![] };
        let m =
            measure(&mut gpu, &policy(), None, &Sampling::fixed(3), Settling::Agreeing { cap_ms: 1000.0 })
                .unwrap();
        assert!(m.settled);
        // After the clock doubles, the dispatch doubles to stay at about 20 ms.
        assert!((m.groups as f64 - 40_000.0).abs() < 400.0, "{}", m.groups);
        assert!((m.summary.median - 20.0).abs() < 0.5, "{}", m.summary.median);
    }

    #[test]
    fn the_clock_is_read_after_the_first_sample_and_after_the_last() {
        /// Times like [`FakeGpu`] and logs when the clock is read among the timings.
        struct Clocked(FakeGpu, Vec<&'static str>);
        impl Timer for Clocked {
            fn time_ms(&mut self, groups: u64) -> Result<f64> {
                self.1.push("time");
                self.0.time_ms(groups)
            }
            fn clock_mhz(&mut self) -> Result<Option<f64>> {
                self.1.push("clock");
                Ok(Some(if self.1.len() < 10 { 1980.0 } else { 1960.0 }))
            }
        }
        let gpu = FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] };
        let mut clocked = Clocked(gpu, vec![]);
        let m = measure(
            &mut clocked,
            &policy(),
            None,
            &Sampling::fixed(4),
            Settling::Agreeing { cap_ms: 1000.0 },
        )
        .unwrap();
        let log = &clocked.1;
        // Scaling's last run and the one that agreed with it are the first two samples; the clock
        // is read after them.
        let first = log.iter().position(|e| *e == "clock").unwrap();
        assert_eq!(log[first - 2..], ["time", "time", "clock", "time", "time", "clock"], "{log:?}");
        assert_eq!(m.samples.len(), 4);
        assert_eq!(m.clocks_mhz.len(), 2);
        assert_eq!(m.clock_mhz(), Some((m.clocks_mhz[0] + m.clocks_mhz[1]) / 2.0));
        // A timer without a clock (lavapipe) gives none, not zero.
        let mut plain = FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] };
        assert_eq!(
            measure(&mut plain, &policy(), None, &Sampling::fixed(3), Settling::Agreeing { cap_ms: 1000.0 })
                .unwrap()
                .clock_mhz(),
            None
        );
    }

    #[test]
    fn times_that_swing_around_the_band_stop_near_the_target() {
        /// A contended compare-and-swap loop: a workgroup's time swings by `swing` from run to run.
        struct Swinging(f64, usize);
        impl Timer for Swinging {
            fn time_ms(&mut self, groups: u64) -> Result<f64> {
                self.1 += 1;
                Ok(groups as f64 * 0.001 * if self.1 % 2 == 0 { self.0 } else { 1.0 })
            }
        }
        // 1.6x: each run aimed at 20 ms takes 32 or 12.5. In proportion it swung until
        // MAX_SCALING_STEPS; from the fourth aimed miss (1 to 1000 groups, then four aimed),
        // half to twice the target does, and the warm-up's second run agrees with scaling's last.
        let mut swinging = Swinging(1.6, 0);
        let m = measure(
            &mut swinging,
            &policy(),
            None,
            &Sampling::fixed(3),
            Settling::Agreeing { cap_ms: 1000.0 },
        )
        .unwrap();
        assert_eq!(m.warmup_runs, 4 + AIMED_TRIES + 2);
        assert!(m.settled && m.summary.median >= 10.0 && m.summary.median <= 40.0, "{:?}", m.samples);
        // 2.5x (8 and 50 ms) is never near enough: scaling gives up at its cap, as before.
        let mut wide = Swinging(2.5, 0);
        let m =
            measure(&mut wide, &policy(), None, &Sampling::fixed(3), Settling::Agreeing { cap_ms: 1000.0 })
                .unwrap();
        assert!(m.warmup_runs >= MAX_SCALING_STEPS, "{}", m.warmup_runs);
        // A steady device still lands in the band.
        let mut steady = FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] };
        let m =
            measure(&mut steady, &policy(), None, &Sampling::fixed(3), Settling::Agreeing { cap_ms: 1000.0 })
                .unwrap();
        assert!(policy().on_target(m.summary.median), "{}", m.summary.median);
    }

    #[test]
    fn a_device_that_cannot_reach_the_target_is_capped_not_looped() {
        let tiny = Policy { max_groups: 50, ..policy() };
        let mut gpu = FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] };
        let m = measure(&mut gpu, &tiny, None, &Sampling::fixed(3), Settling::Agreeing { cap_ms: 100.0 })
            .unwrap();
        assert_eq!(m.groups, 50);
        assert!(gpu.runs < 40, "{} runs", gpu.runs);
    }

    /// A CPU implementation's runs: time follows the group count, each run 3% off the one before
    /// it the other way (a scheduler's noise, past [`SETTLED`]); each time kept.
    #[derive(Default)]
    struct Jittery(Vec<f64>);
    impl Timer for Jittery {
        fn time_ms(&mut self, groups: u64) -> Result<f64> {
            let off = if self.0.len() % 2 == 0 { 0.97 } else { 1.03 };
            self.0.push(groups as f64 * 0.001 * off);
            Ok(self.0[self.0.len() - 1])
        }
    }

    #[test]
    fn where_no_clock_settles_a_second_run_on_target_at_one_size_is_a_sample() {
        let repeated = Settling::Repeated { cap_ms: 1000.0 };
        // Scaling: 1, 10, 100, 1,000 groups, then 19,417 aimed (18.8 ms, on target). The next
        // run there (20.0 ms) is 6% off it: it is the first sample, one run after scaling.
        let mut cpu = Jittery::default();
        let m = measure(&mut cpu, &policy(), None, &Sampling::fixed(3), repeated).unwrap();
        assert!(m.settled && m.warmup_runs == 6, "{m:?}");
        assert_eq!(m.samples, cpu.0[5..], "{:?}", cpu.0);
        // Waiting for two rates to agree spends one run more on the same device.
        let agreeing = Settling::Agreeing { cap_ms: 1000.0 };
        let mut gpu = Jittery::default();
        let waited = measure(&mut gpu, &policy(), None, &Sampling::fixed(3), agreeing).unwrap();
        assert_eq!((waited.warmup_runs, gpu.0.len()), (7, cpu.0.len() + 1));
        // Two runs at the final size that agree are both samples.
        let mut steady = FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: Vec::new() };
        let m = measure(&mut steady, &policy(), None, &Sampling::fixed(3), repeated).unwrap();
        assert_eq!((m.warmup_runs, steady.runs), (6, 7), "{m:?}");
        // Where the target cannot be reached (at most 1,000 groups: 1 ms), the second run at the
        // limit is the first sample.
        let small = Policy { max_groups: 1000, ..policy() };
        let mut limited = Jittery::default();
        let m = measure(&mut limited, &small, None, &Sampling::fixed(3), repeated).unwrap();
        assert!(m.settled && (m.warmup_runs, m.groups) == (5, 1000), "{m:?}");
        assert_eq!(m.samples, limited.0[4..], "{:?}", limited.0);
        // A first run that built the shader (20 ms at one group) is on the target but no sample:
        // the next, at one group, is 0.97 us, and scaling goes on from there in the warm-up.
        struct Compiling(Jittery);
        impl Timer for Compiling {
            fn time_ms(&mut self, groups: u64) -> Result<f64> {
                let ms = self.0.time_ms(groups)?;
                Ok(if self.0 .0.len() == 1 { 20.0 } else { ms })
            }
        }
        let mut compiling = Compiling(Jittery::default());
        let m = measure(&mut compiling, &policy(), None, &Sampling::fixed(3), repeated).unwrap();
        assert!(m.settled && m.groups > 10_000 && policy().on_target(m.summary.median), "{m:?}");
    }

    #[test]
    fn an_unsettled_warm_up_stops_at_its_cap() {
        /// A clock that never stops climbing: each run 5% faster than the one before.
        struct Climbing(i32);
        impl Timer for Climbing {
            fn time_ms(&mut self, groups: u64) -> Result<f64> {
                self.0 += 1;
                Ok(groups as f64 * 0.001 * 0.95f64.powi(self.0))
            }
        }
        let m = measure(
            &mut Climbing(0),
            &policy(),
            None,
            &Sampling::fixed(3),
            Settling::Agreeing { cap_ms: 200.0 },
        )
        .unwrap();
        assert!(!m.settled);
        // Scaling gives up after MAX_SCALING_STEPS; warm-up after about 200 ms of 10-40 ms runs.
        assert!(m.warmup_runs <= MAX_SCALING_STEPS + 20, "{}", m.warmup_runs);
    }
}
