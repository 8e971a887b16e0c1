//! One case's measurement against fake timers: scaling, the warm-up each device's settling
//! asks for, samples, the witness, retries' starts.

use super::*;
use crate::runner::scaling::{AIMED_TRIES, MAX_SUBMIT_MS};

/// A GPU's warm-up, as a run at the default target has it.
const AGREEING: Settling = Settling::Agreeing { cap_ms: 1000.0 };

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
    let steady = measure(&mut gpu, &policy(), None, &converging, AGREEING).unwrap();
    assert_eq!(steady.samples.len(), LEAST_SAMPLES);
    assert_eq!(gpu.1, 3, "scaling's last run and the warm-up run agreeing with it are samples");
    // Scaling and warm-up take what they take; then samples swinging 10%: all ten.
    let mut swinging = Scripted([20.0, 22.0].repeat(20), 0);
    let noisy = measure(&mut swinging, &policy(), None, &converging, AGREEING).unwrap();
    assert_eq!(noisy.samples.len(), 10);
    // One sample 2% off among steady ones: cv / sqrt(n) first falls under 0.3% at seven.
    let mut slight = Scripted(vec![20.0, 20.0, 20.4], 0);
    slight.0.extend([20.0; 10]);
    let some = measure(&mut slight, &policy(), None, &converging, AGREEING).unwrap();
    assert_eq!(some.samples.len(), 7, "{:?}", some.samples);
    // --fixed-samples takes exactly what it says.
    let fixed =
        measure(&mut Scripted(vec![20.0], 0), &policy(), None, &Sampling::fixed(10), AGREEING).unwrap();
    assert_eq!(fixed.samples.len(), 10);
    let one = measure(&mut Scripted(vec![20.0], 0), &policy(), None, &Sampling::fixed(1), AGREEING).unwrap();
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
    let m = measure(&mut preempted, &policy(), None, &Sampling::fixed(3), AGREEING).unwrap();
    assert!(m.settled);
    assert_eq!((m.warmup_runs, m.samples.len()), (scaling_runs + 2, 3));
}

#[test]
fn scales_from_one_group_to_the_target() {
    let mut gpu = FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] };
    let m = measure(&mut gpu, &policy(), None, &Sampling::fixed(5), AGREEING).unwrap();
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
    let m = measure(&mut gpu, &policy(), Some(19_990), &Sampling::fixed(3), AGREEING).unwrap();
    assert_eq!(gpu.log, [19_990; 3]);
    assert!(m.settled && m.warmup_runs == 2 && m.samples.len() == 3, "{m:?}");
    // A device now four times slower per group: the kept count takes 80 ms, and is aimed
    // down to the target from there.
    let mut slower = FakeGpu { ms_per_group: 0.004, ramp_after: usize::MAX, runs: 0, log: vec![] };
    let m = measure(&mut slower, &policy(), Some(19_990), &Sampling::fixed(3), AGREEING).unwrap();
    assert_eq!(slower.log[..2], [19_990, 4_999]);
    assert!(policy().on_target(m.summary.median) && m.groups == 4_999, "{m:?}");
}

#[test]
fn a_retry_starts_where_the_try_before_settled_and_one_off_the_target_is_aimed() {
    let (mut gpu, policy) =
        (FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] }, policy());
    let mut next = tries(&mut gpu, &policy, None, Sampling::fixed(3), AGREEING);
    let (first, second) = (next().unwrap(), next().unwrap());
    drop(next);
    assert_eq!(gpu.log[..4], [1, 10, 100, 1000], "the first try grows from one group");
    assert_eq!(gpu.log.iter().filter(|&&g| g == 1).count(), 1, "the second does not: {:?}", gpu.log);
    // Its first run is at the settled count, on target, so it and the next are samples.
    assert!(second.groups == first.groups && second.warmup_runs == 2, "{second:?}");

    // A try that ended off the target (40 ms from 100 workgroups, 12 ms under: after four aimed
    // runs that swung across the band, twice the target will do): the next starts from its count
    // aimed at the target.
    struct Stepped(Vec<u64>);
    impl Timer for Stepped {
        fn time_ms(&mut self, groups: u64) -> Result<f64> {
            self.0.push(groups);
            Ok(if groups >= 100 { 40.0 } else { 12.0 })
        }
    }
    let mut slow = Stepped(vec![]);
    let mut next =
        tries(&mut slow, &policy, Some(1000), Sampling::fixed(1), Settling::Agreeing { cap_ms: 0.0 });
    let off = next().unwrap();
    let runs = off.warmup_runs + 1;
    next().unwrap();
    drop(next);
    assert_eq!(slow.0[..runs], [1000, 500, 250, 125, 63, 105, 105]);
    assert_eq!(slow.0[runs], policy.next(105, 40.0), "{:?}", slow.0);
}

#[test]
fn warm_up_follows_a_clock_ramp() {
    // Scaling reaches 19 802 groups on run 5; the clock doubles from run 6, inside warm-up.
    let mut gpu = FakeGpu { ms_per_group: 0.001, ramp_after: 5, runs: 0, log: vec![] };
    let m = measure(&mut gpu, &policy(), None, &Sampling::fixed(3), AGREEING).unwrap();
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
    let m = measure(&mut clocked, &policy(), None, &Sampling::fixed(4), AGREEING).unwrap();
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
        measure(&mut plain, &policy(), None, &Sampling::fixed(3), AGREEING).unwrap().clock_mhz(),
        None
    );
}

#[test]
fn aims_that_fall_short_go_on_to_the_target() {
    /// A dispatch with a fixed ramp and tail: a few workgroups take 3 ms, so each aim in
    /// proportion from a small count falls short (7, 46, 266 and 940 groups: 3.1, 3.5, 5.7 and
    /// 12.4 ms), as four `instr` throughput cases' did on an H200 (results/half-the-time-18/).
    struct Tailed;
    impl Timer for Tailed {
        fn time_ms(&mut self, groups: u64) -> Result<f64> {
            Ok(3.0 + 0.01 * groups as f64)
        }
    }
    let m = measure(&mut Tailed, &policy(), None, &Sampling::fixed(3), AGREEING).unwrap();
    assert!(m.settled && policy().on_target(m.summary.median), "{:?}", m.samples);
    // Four aimed misses, all short: the fifth aim lands on target; the run after it agrees.
    assert_eq!(m.warmup_runs, 1 + AIMED_TRIES + 1 + 1, "{:?}", m.samples);
}

#[test]
fn a_first_run_over_the_band_after_aims_that_fell_short_is_aimed_again() {
    /// A fixed ramp (3 ms) up to 1,000 workgroups, then each workgroup slower the more there are,
    /// as the `CoopMat 128x128x16` tiles on an H200 (results/half-the-time-19/): aims of 7, 46,
    /// 266 and 940 workgroups fall short, the fifth (1,516) takes 26 ms.
    struct Growing;
    impl Timer for Growing {
        fn time_ms(&mut self, groups: u64) -> Result<f64> {
            let g = groups as f64;
            let per = if g <= 1000.0 { 0.01 + 3.0 / g } else { 0.013 + 8e-6 * (g - 1000.0) };
            Ok(g * per)
        }
    }
    let m = measure(&mut Growing, &policy(), None, &Sampling::fixed(3), AGREEING).unwrap();
    // Kept until results/half-the-time-19/: 26 ms. Aimed again from it: 1,168 workgroups, 16.8 ms.
    assert!(m.settled && policy().on_target(m.summary.median), "{:?}", m.samples);
    assert_eq!(m.groups, 1168, "{:?}", m.samples);
    assert_eq!(m.warmup_runs, 1 + AIMED_TRIES + 2 + 1, "{:?}", m.samples);
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
    // MAX_SCALING_STEPS; from the fourth aimed miss (1 to 1000 groups, then four aimed), up to
    // twice the target does, and the warm-up's second run agrees with scaling's last.
    let mut swinging = Swinging(1.6, 0);
    let m = measure(&mut swinging, &policy(), None, &Sampling::fixed(3), AGREEING).unwrap();
    assert_eq!(m.warmup_runs, 4 + AIMED_TRIES + 2);
    assert!(m.settled && m.summary.median >= 10.0 && m.summary.median <= 40.0, "{:?}", m.samples);
    // 2.5x (8 and 50 ms) is never near enough: scaling gives up at its cap, as before.
    let mut wide = Swinging(2.5, 0);
    let m = measure(&mut wide, &policy(), None, &Sampling::fixed(3), AGREEING).unwrap();
    assert!(m.warmup_runs >= MAX_SCALING_STEPS, "{}", m.warmup_runs);
    // A steady device still lands in the band.
    let mut steady = FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] };
    let m = measure(&mut steady, &policy(), None, &Sampling::fixed(3), AGREEING).unwrap();
    assert!(policy().on_target(m.summary.median), "{}", m.summary.median);
}

#[test]
fn a_device_that_cannot_reach_the_target_is_capped_not_looped() {
    let tiny = Policy { max_groups: 50, ..policy() };
    let mut gpu = FakeGpu { ms_per_group: 0.001, ramp_after: usize::MAX, runs: 0, log: vec![] };
    let m =
        measure(&mut gpu, &tiny, None, &Sampling::fixed(3), Settling::Agreeing { cap_ms: 100.0 }).unwrap();
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
    let agreeing = AGREEING;
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
    // the next, at one group, is 1.03 us, and scaling goes on from there in the warm-up.
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
fn where_no_clock_settles_two_runs_on_target_or_at_a_limit_settle_and_nothing_else() {
    let repeated = Settling::Repeated { cap_ms: 200.0 };
    // Runs that take 5 and 80 ms in turn, whatever the count: each aimed at the other size
    // (1 group, then 4), never twice on target at one size. Scaling gives up at its cap, the
    // warm-up after 200 ms: unsettled.
    struct Alternating(usize);
    impl Timer for Alternating {
        fn time_ms(&mut self, _: u64) -> Result<f64> {
            self.0 += 1;
            Ok(if self.0 % 2 == 1 { 5.0 } else { 80.0 })
        }
    }
    let m = measure(&mut Alternating(0), &policy(), None, &Sampling::fixed(3), repeated).unwrap();
    assert!(!m.settled && m.warmup_runs <= MAX_SCALING_STEPS + 6, "{m:?}");
    // One group already takes 30 ms (over the band, and it cannot be aimed lower): its second
    // run there settles, and the first, agreeing, is a sample too.
    let m = measure(&mut Scripted(vec![30.0], 0), &policy(), None, &Sampling::fixed(3), repeated).unwrap();
    assert_eq!((m.settled, m.groups, m.warmup_runs, m.samples.len()), (true, 1, 2, 3), "{m:?}");
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
    let m =
        measure(&mut Climbing(0), &policy(), None, &Sampling::fixed(3), Settling::Agreeing { cap_ms: 200.0 })
            .unwrap();
    assert!(!m.settled);
    // Scaling gives up after MAX_SCALING_STEPS; warm-up after about 200 ms of 16-40 ms runs.
    assert!(m.warmup_runs <= MAX_SCALING_STEPS + 20, "{}", m.warmup_runs);
}
