//! Adaptive dispatch sizing: grow the workgroup count until one measurement takes the target time.

/// The sizing rules for one device and target.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// The time one measurement should take (`--target-ms`).
    pub target_ms: f64,
    /// Never predict a submission longer than this (GPU watchdogs on laptops and iGPUs).
    pub max_submit_ms: f64,
    /// The most workgroups one dispatch may have (`maxComputeWorkGroupCount` x by y).
    pub max_groups: u64,
}

pub use crate::record::measurement::MAX_SUBMIT_MS;

/// The share of the target from which a run's time predicts the dispatch in proportion (0.2 ms of
/// 20): timestamps resolve it to a microsecond, and a GPU part-filled by a small dispatch runs it
/// slower per workgroup, so the prediction falls short rather than over (the watchdog cap holds
/// work that slows as it grows, as contended atomics do). The run before the aimed one is the
/// most of scaling's time: from a tenth it took 2 to 20 ms (15 s of a full H200 run); from a
/// fortieth, 6.5-6.7 s of scaling; from this hundredth 5.2-5.3 s, its aims landing at 0.97 of
/// the target (median) against 0.985, 27 of 1,367 below the band; from a two-hundredth 6.1 s,
/// 101 below it (results/half-the-time-15/).
pub const AIM_FROM: f64 = 1.0 / 100.0;

/// Aimed runs (each predicted in proportion from the one before) after which, once they have
/// swung across the band, a time from the band's floor to twice the target is near enough. A
/// contended compare-and-swap loop's time moves more than the band from run to run and grows
/// faster than its workgroups, so that aiming in proportion swings around the band: on an H200
/// the three such cases took 11 to 34 runs and up to 1.6 s of a full run's 6.5 to 7.8 s of scaling
/// (results/half-the-time-7/).
pub const AIMED_TRIES: usize = 4;

/// The runs a measurement aimed in proportion: how many, and how often their times crossed the
/// band (from under it to over it, or back), so that the band is widened for times that swing
/// around it and not for a first run over it after aims that fell short.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Aims {
    /// Runs aimed from.
    pub tries: usize,
    /// Times the side of the band changed from one aimed-from run to the next.
    pub crossings: usize,
    /// The side of the band the last aimed-from run took: over it (`true`) or under it.
    over: Option<bool>,
}

impl Aims {
    /// Counts a run of `ms` that the next is aimed from, where it aims (`Policy::aims_from`).
    pub fn aim_from(&mut self, policy: &Policy, ms: f64) {
        if !policy.aims_from(ms) {
            return;
        }
        self.tries += 1;
        self.crossings += usize::from(self.crosses(policy, ms));
        self.over = policy.side(ms).or(self.over);
    }

    /// Whether a run of `ms` lies on the other side of the band than the last aimed-from run.
    fn crosses(&self, policy: &Policy, ms: f64) -> bool {
        matches!((self.over, policy.side(ms)), (Some(a), Some(b)) if a != b)
    }
}

impl Policy {
    /// The rules for `target_ms` on a device whose `maxComputeWorkGroupCount` is `max`, with the
    /// [`MAX_SUBMIT_MS`] watchdog cap.
    pub fn for_device(target_ms: f64, max: [u32; 3]) -> Self {
        Policy { target_ms, max_submit_ms: MAX_SUBMIT_MS, max_groups: u64::from(max[0]) * u64::from(max[1]) }
    }

    /// The next workgroup count after `groups` took `ms`: x10 while under [`AIM_FROM`] of the
    /// target, then in proportion to the target; never a predicted `max_submit_ms` or more.
    pub fn next(&self, groups: u64, ms: f64) -> u64 {
        let groups_f = groups as f64;
        let wanted =
            if self.aims_from(ms) { (groups_f * self.target_ms / ms).round() } else { groups_f * 10.0 };
        let watchdog_cap = (groups_f * self.max_submit_ms / ms).floor();
        (wanted.min(watchdog_cap) as u64).clamp(1, self.max_groups.max(1))
    }

    /// Where to start again from `groups` that took `ms` (a run before, a try before): the same
    /// count where it took the target, so that the work is the same again, else that count aimed
    /// at the target ([`Policy::next`]).
    pub fn again(&self, groups: u64, ms: f64) -> u64 {
        match self.on_target(ms) {
            true => groups,
            false => self.next(groups, ms),
        }
    }

    /// Whether `ms` is close enough to the target to stop growing.
    pub fn on_target(&self, ms: f64) -> bool {
        ms >= 0.8 * self.target_ms && ms <= 1.25 * self.target_ms
    }

    /// Whether `ms` is close enough after the runs `aims` counts: on target, or up to twice the
    /// target once [`AIMED_TRIES`] aimed runs have missed it and their times, this one's with them,
    /// have crossed the band twice (swung over it and back, or under and back). Never short of the
    /// band: a dispatch's ramp and part-filled last wave are a larger share of a shorter one,
    /// which reads a lower rate. Half the target was near enough until results/half-the-time-18/
    /// (four `instr` throughput cases settled at 12-14 ms on an H200 and read 3-35% below their
    /// rate at 20 ms); a first run over the band after aims that fell short was until
    /// results/half-the-time-19/ (`CoopMat 128x128x16` tiles, whose workgroups take longer in a
    /// larger dispatch, settled at 26 ms and read 0.82x).
    pub fn near_target(&self, ms: f64, aims: &Aims) -> bool {
        let swung = aims.crossings + usize::from(aims.crosses(self, ms)) >= 2;
        self.on_target(ms)
            || (aims.tries >= AIMED_TRIES
                && swung
                && ms >= 0.8 * self.target_ms
                && ms <= 2.0 * self.target_ms)
    }

    /// The side of the band `ms` lies on: over it (`true`), under it, or on target (`None`).
    fn side(&self, ms: f64) -> Option<bool> {
        (!self.on_target(ms)).then_some(ms > self.target_ms)
    }

    /// Whether a run of `ms` aims the next in proportion (rather than x10).
    pub fn aims_from(&self, ms: f64) -> bool {
        ms >= self.target_ms * AIM_FROM
    }
}

/// Splits `groups` workgroups into a dispatch shape within `max` per dimension, using x then y.
/// The product can be a little under `groups` when they do not fit one row; use it as the count.
pub fn dispatch_shape(groups: u64, max: [u32; 3]) -> [u32; 3] {
    let max_x = u64::from(max[0].max(1));
    let max_y = u64::from(max[1].max(1));
    let groups = groups.clamp(1, max_x * max_y);
    let y = groups.div_ceil(max_x);
    let x = groups / y;
    [x as u32, y as u32, 1]
}

/// The workgroup count of a shape.
pub fn shape_groups(shape: [u32; 3]) -> u64 {
    shape.iter().map(|&n| u64::from(n)).product()
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: Policy = Policy { target_ms: 20.0, max_submit_ms: MAX_SUBMIT_MS, max_groups: 1 << 32 };

    #[test]
    fn grows_tenfold_while_under_a_hundredth_of_the_target() {
        assert_eq!(POLICY.next(1, 0.03), 10);
        assert_eq!(POLICY.next(1000, 0.19), 10_000);
        assert_eq!(POLICY.next(1000, 0.2), 100_000, "from a hundredth, in proportion");
    }

    #[test]
    fn then_aims_at_the_target_in_proportion() {
        assert_eq!(POLICY.next(1000, 0.5), 40_000);
        // The tutorial's Quadro: 10000 groups in 7.30 ms -> about 27 400 for 20 ms.
        assert_eq!(POLICY.next(10_000, 7.30), 27_397);
        assert_eq!(POLICY.next(27_397, 40.0), 13_699);
    }

    #[test]
    fn never_predicts_past_the_watchdog_cap() {
        let long_target = Policy { target_ms: 400.0, max_submit_ms: 100.0, ..POLICY };
        assert_eq!(long_target.next(100, 3.0), 1000, "x10 is a 30 ms prediction: allowed");
        assert_eq!(long_target.next(100, 9.0), 1111, "aimed at 400 ms, held to the 100 ms cap");
        let slow = Policy { target_ms: 400.0, max_submit_ms: 25.0, ..POLICY };
        assert_eq!(slow.next(100, 3.0), 833, "x10 would predict 30 ms over the 25 ms cap");
    }

    #[test]
    fn stays_within_one_and_the_device_limit() {
        let small = Policy { max_groups: 5000, ..POLICY };
        assert_eq!(small.next(1000, 0.1), 5000);
        assert_eq!(POLICY.next(1, 500.0), 1);
    }

    #[test]
    fn a_count_that_took_the_target_is_kept_and_one_off_it_aimed() {
        assert_eq!(POLICY.again(1000, 16.0), 1000);
        assert_eq!(POLICY.again(1000, 25.0), 1000);
        assert_eq!(POLICY.again(1000, 40.0), 500);
        assert_eq!(POLICY.again(1000, 10.0), 2000);
    }

    #[test]
    fn on_target_is_a_band_around_it() {
        assert!(POLICY.on_target(20.0) && POLICY.on_target(16.0) && POLICY.on_target(25.0));
        assert!(!POLICY.on_target(15.9) && !POLICY.on_target(25.1));
    }

    /// The aims of runs taking `times`, in turn.
    fn aims(times: &[f64]) -> Aims {
        let mut aims = Aims::default();
        times.iter().for_each(|&ms| aims.aim_from(&POLICY, ms));
        aims
    }

    #[test]
    fn after_aims_that_swung_across_the_band_up_to_twice_the_target_is_near_enough() {
        // Under, over, under: after four aimed misses that swung, 26 and 39 ms will do.
        let swung = aims(&[5.0, 12.0, 32.0, 12.0]);
        assert_eq!((swung.tries, swung.crossings), (4, 2));
        assert!(POLICY.near_target(26.0, &swung) && POLICY.near_target(39.0, &swung));
        // Never short of the band, never over twice the target.
        assert!(POLICY.near_target(16.0, &swung) && !POLICY.near_target(15.9, &swung));
        assert!(!POLICY.near_target(12.0, &swung) && !POLICY.near_target(40.1, &swung));
        // Three aimed misses are not enough, however they swung.
        assert!(!POLICY.near_target(26.0, &aims(&[32.0, 12.0, 32.0])));
        // Four that fell short: the first run over the band is aimed again, not kept; a run that
        // swings back over after it is.
        let short = aims(&[3.0, 3.1, 5.7, 12.4]);
        assert_eq!(short.crossings, 0);
        assert!(!POLICY.near_target(26.0, &short));
        assert!(POLICY.near_target(26.0, &aims(&[3.0, 3.1, 5.7, 12.4, 26.0, 12.0])));
        // Runs on target do not change the side; runs under a hundredth are not aimed from.
        let on = aims(&[0.1, 12.0, 20.0, 30.0]);
        assert_eq!((on.tries, on.crossings), (3, 1));
        assert!(POLICY.near_target(20.0, &Aims::default()));
        assert!(POLICY.aims_from(0.2) && !POLICY.aims_from(0.19));
    }

    #[test]
    fn shapes_fit_the_limits_and_stay_close() {
        assert_eq!(dispatch_shape(1000, [65535; 3]), [1000, 1, 1]);
        let shape = dispatch_shape(200_000, [65535; 3]);
        assert_eq!(shape, [50_000, 4, 1]);
        let odd = dispatch_shape(131_073, [65535; 3]);
        assert!(odd[0] <= 65535 && shape_groups(odd) <= 131_073 && shape_groups(odd) > 131_000, "{odd:?}");
        assert_eq!(dispatch_shape(0, [65535; 3]), [1, 1, 1]);
    }
}
