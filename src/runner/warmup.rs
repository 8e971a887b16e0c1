//! Warming the device up: load it until its clock settles at the level it sustains.
//!
//! A GPU left idle for a second drops to its idle clock (345 MHz on the H100 and H200) and needs
//! sustained load to climb back; a case timed before then reads a steady rate at the wrong clock,
//! which no noise test catches. So before the first timed case the runner loads the device
//! ([`super::heater`]) and reads the clock between slices of load until the readings over
//! [`Plan::settle_ms`] of load agree within [`STEADY`](crate::record::measurement::STEADY) (after at least [`Plan::min_ms`]), or
//! [`Plan::budget_ms`] runs out. Before a later case that follows [`Plan::check_ms`] or more
//! without work (a long setup), it reads the clock once more: if it is
//! [`OFF_CLOCK`](crate::record::measurement::OFF_CLOCK) or more below that level (an upload or a long build
//! left the device idle), it loads the device again until a reading is no longer that far below,
//! the clock settles elsewhere (by the same rule as the first warm-up), or
//! [`Plan::rewarm_budget_ms`] runs out. A device without a clock gets
//! [`Plan::blind_ms`] of load first, and [`Plan::refresh_ms`] after every idle gap of
//! [`Plan::idle_ms`] or more.
//!
//! Why it is built so: docs/design/warm-up.md.

use super::clock::steady;
use crate::error::Result;
use crate::record::measurement::below;
use crate::record::warmup::WarmUp;

/// Something that can be loaded and whose clock can be read (the GPU, or a script in tests).
pub trait Heat {
    /// Loads the device for at least `ms` milliseconds; returns the milliseconds it took.
    fn heat(&mut self, ms: f64) -> Result<f64>;
    /// Whether the device has a clock to read.
    fn has_clock(&self) -> bool;
    /// The clock now, MHz; `None` where this reading failed (or there is no clock).
    fn clock_mhz(&mut self) -> Result<Option<f64>>;
}

/// How long to load the device, and when its clock counts as settled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Load between two clock readings, ms.
    pub slice_ms: f64,
    /// The least load before the clock may count as settled, ms: a GPU holds its idle clock for
    /// a while under load before it climbs.
    pub min_ms: f64,
    /// The readings over this much load must agree within [`STEADY`](crate::record::measurement::STEADY), ms.
    pub settle_ms: f64,
    /// The most load before the warm-up gives up, ms.
    pub budget_ms: f64,
    /// The most load before a re-warm gives up, ms.
    pub rewarm_budget_ms: f64,
    /// The load on a device without a clock to read, ms.
    pub blind_ms: f64,
    /// An idle gap this long or longer (ms) is followed by [`Plan::refresh_ms`] of load on a
    /// device without a clock.
    pub idle_ms: f64,
    /// The load after an idle gap on a device without a clock, ms.
    pub refresh_ms: f64,
    /// An idle gap shorter than this (ms) needs no clock reading before the next case: the H100
    /// and H200 hold their clock through gaps of 1.5 s, and a case's samples are still held to the
    /// level by their own clock reading ([`super::retry`]).
    pub check_ms: f64,
}

/// What comes before a case on a device with a clock, by how long it was idle ([`Plan::check`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Nothing: it worked a moment ago.
    None,
    /// One clock reading, and load if it is below the level.
    Read,
    /// A slice of load, then the reading: after a long gap the clock can still read high and fall
    /// a moment later.
    SliceThenRead,
}

/// The plan every run uses (results/warm-up/README.md has the H100 and H200 ramps it was chosen from).
pub const PLAN: Plan = Plan {
    slice_ms: 50.0,
    min_ms: 1500.0,
    settle_ms: 1000.0,
    budget_ms: 8000.0,
    rewarm_budget_ms: 2000.0,
    blind_ms: 1000.0,
    idle_ms: 1000.0,
    refresh_ms: 250.0,
    check_ms: 250.0,
};

/// The plan on a CPU implementation (lavapipe, SwiftShader): [`PLAN`] with a tenth of its fixed
/// loads. Its shaders run on the host's cores, whose clock the operating system raises within
/// milliseconds of load (cpufreq acts on the scheduler's tick; hardware P-states faster still),
/// where an idle GPU takes 0.3 s; a second of load before each run only spent the CI machine's
/// cores (about 170 such runs in the GPU tests).
pub const CPU_PLAN: Plan = Plan { blind_ms: 100.0, refresh_ms: 25.0, ..PLAN };

impl Plan {
    /// The plan for a device of `kind`: [`CPU_PLAN`] for a CPU implementation, else [`PLAN`].
    pub fn for_device(kind: ash::vk::PhysicalDeviceType) -> &'static Plan {
        if kind == ash::vk::PhysicalDeviceType::CPU {
            &CPU_PLAN
        } else {
            &PLAN
        }
    }

    /// What comes before a case after `idle_ms` without work.
    pub fn check(&self, idle_ms: f64) -> Check {
        match idle_ms {
            ms if ms >= self.idle_ms => Check::SliceThenRead,
            ms if ms >= self.check_ms => Check::Read,
            _ => Check::None,
        }
    }

    /// The level the clock has settled at after `load_ms` of load, given `readings` (MHz, with the
    /// load before each): the mean of the readings over the last [`Plan::settle_ms`] of load, if
    /// they agree within [`STEADY`](crate::record::measurement::STEADY) after at least [`Plan::min_ms`]. With a `target` (a re-warm),
    /// also the last reading, if it is not [`OFF_CLOCK`](crate::record::measurement::OFF_CLOCK) or more below
    /// the target.
    pub fn settled(&self, readings: &[(f64, f64)], load_ms: f64, target: Option<f64>) -> Option<f64> {
        let &(_, last) = readings.last()?;
        if target.is_some_and(|target| !below(last, target)) {
            return Some(last);
        }
        if load_ms < self.min_ms.max(self.settle_ms) {
            return None;
        }
        let window: Vec<Option<f64>> = readings
            .iter()
            .filter(|(at, _)| *at >= load_ms - self.settle_ms)
            .map(|(_, mhz)| Some(*mhz))
            .collect();
        (window.len() >= 3).then(|| steady(&window).ok()).flatten()
    }
}

/// Warms `device` up as `plan` says; with `target`, until its clock is back at that level.
pub fn warm_up(device: &mut dyn Heat, plan: &Plan, target: Option<f64>) -> Result<WarmUp> {
    if !device.has_clock() {
        let load_ms = device.heat(plan.blind_ms)?;
        return Ok(WarmUp {
            load_ms,
            watched: false,
            readings: Vec::new(),
            settled_mhz: None,
            reference_mhz: None,
        });
    }
    let budget_ms = if target.is_some() { plan.rewarm_budget_ms } else { plan.budget_ms };
    let mut readings = Vec::new();
    let mut load_ms = 0.0;
    loop {
        // A reading the probe could not make (timestamps out of order) is left out.
        if let Some(mhz) = device.clock_mhz()? {
            readings.push((load_ms, mhz));
        }
        let settled_mhz = plan.settled(&readings, load_ms, target);
        if settled_mhz.is_some() || load_ms >= budget_ms {
            return Ok(WarmUp { load_ms, watched: true, readings, settled_mhz, reference_mhz: None });
        }
        load_ms += device.heat(plan.slice_ms)?;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A device whose clock follows `clock(load so far)` (`None`: a failed reading), each slice
    /// taking exactly what was asked; `has_clock` false for a device without one.
    pub(crate) struct Scripted<F: FnMut(f64) -> Option<f64>> {
        pub clock: F,
        pub load_ms: f64,
        pub has_clock: bool,
    }

    /// A device with a clock that follows `clock`.
    pub(crate) fn scripted<F: FnMut(f64) -> Option<f64>>(clock: F) -> Scripted<F> {
        Scripted { clock, load_ms: 0.0, has_clock: true }
    }

    impl<F: FnMut(f64) -> Option<f64>> Heat for Scripted<F> {
        fn heat(&mut self, ms: f64) -> Result<f64> {
            self.load_ms += ms;
            Ok(ms)
        }
        fn has_clock(&self) -> bool {
            self.has_clock
        }
        fn clock_mhz(&mut self) -> Result<Option<f64>> {
            Ok((self.clock)(self.load_ms))
        }
    }

    /// The H200's cold start as measured (results/warm-up/README.md): 345 MHz, then 375 from 176 ms of load, then
    /// 1980 from 285 ms.
    fn cold_h200(load_ms: f64) -> Option<f64> {
        Some(match load_ms {
            l if l < 176.0 => 345.0,
            l if l < 285.0 => 375.0,
            _ => 1980.0,
        })
    }

    #[test]
    fn a_cold_gpu_is_loaded_until_it_reaches_the_clock_it_sustains() {
        let warm = warm_up(&mut scripted(cold_h200), &PLAN, None).unwrap();
        assert_eq!(warm.settled_mhz, Some(1980.0));
        assert_eq!(warm.first_mhz(), Some(345.0));
        // The minimum load, 1.5 s, outlasts the climb and the second of agreeing readings.
        assert_eq!(warm.load_ms, PLAN.min_ms);
        assert_eq!(warm.readings.len(), 1 + (PLAN.min_ms / PLAN.slice_ms) as usize);
        assert_eq!(warm.text(), "1.5 s of load to reach 1980 MHz (from 345 MHz)");
    }

    #[test]
    fn a_steady_idle_clock_is_not_mistaken_for_a_settled_one() {
        // 345 MHz under load for 1.4 s, steady all the while: the minimum load waits it out, and
        // the second of readings before settling must all be at the new level.
        let mut gpu = scripted(|load: f64| Some(if load < 1400.0 { 345.0 } else { 1980.0 }));
        let warm = warm_up(&mut gpu, &PLAN, None).unwrap();
        assert_eq!(warm.settled_mhz, Some(1980.0));
        assert_eq!(warm.load_ms, 1400.0 + PLAN.settle_ms);
    }

    #[test]
    fn a_clock_that_never_settles_stops_at_the_budget() {
        let mut gpu = scripted(|load: f64| Some(if (load / 50.0) as u64 % 2 == 0 { 1800.0 } else { 1980.0 }));
        let warm = warm_up(&mut gpu, &PLAN, None).unwrap();
        assert_eq!((warm.settled_mhz, warm.load_ms), (None, PLAN.budget_ms));
        assert_eq!(
            warm.text(),
            "8.0 s of load and the clock did not settle within 2% (from 1800 MHz; 1800 to 1980 MHz; last 1800 MHz)"
        );
    }

    #[test]
    fn a_device_without_a_clock_is_loaded_for_a_fixed_time() {
        let mut gpu = Scripted { clock: |_| None, load_ms: 0.0, has_clock: false };
        let warm = warm_up(&mut gpu, &PLAN, None).unwrap();
        assert_eq!((warm.load_ms, warm.settled_mhz, warm.watched), (PLAN.blind_ms, None, false));
        assert!(warm.readings.is_empty());
        assert_eq!(
            warm.text(),
            "1.0 s of load, a fixed time: no clock to watch (the device has no usable shader clock)"
        );
    }

    #[test]
    fn a_cpu_implementation_is_loaded_a_tenth_as_long() {
        use ash::vk::PhysicalDeviceType as Kind;
        for kind in [Kind::DISCRETE_GPU, Kind::INTEGRATED_GPU, Kind::VIRTUAL_GPU, Kind::OTHER] {
            assert_eq!(Plan::for_device(kind), &PLAN, "{kind:?}");
        }
        let cpu = Plan::for_device(Kind::CPU);
        let mut device = Scripted { clock: |_| None, load_ms: 0.0, has_clock: false };
        let warm = warm_up(&mut device, cpu, None).unwrap();
        assert_eq!(warm.load_ms, 100.0);
        assert_eq!(
            warm.text(),
            "0.1 s of load, a fixed time: no clock to watch (the device has no usable shader clock)"
        );
        // Only the fixed loads differ: a clock, where one could be read, is watched as on a GPU.
        assert_eq!((cpu.refresh_ms, cpu.min_ms, cpu.idle_ms), (25.0, PLAN.min_ms, PLAN.idle_ms));
    }

    #[test]
    fn failed_readings_are_left_out_and_are_not_a_missing_clock() {
        // Every third reading fails, the first among them: the warm-up still watches the clock.
        let mut calls = 0;
        let clock = move |load: f64| {
            calls += 1;
            (calls % 3 != 1).then(|| cold_h200(load).unwrap())
        };
        let warm = warm_up(&mut scripted(clock), &PLAN, None).unwrap();
        assert_eq!((warm.settled_mhz, warm.watched), (Some(1980.0), true));
        assert_eq!(warm.readings.len(), 20, "31 readings, 11 failed: {:?}", warm.readings);
        assert_eq!(warm.readings[0], (50.0, 345.0), "the first reading failed and is not there");
        // A probe that never reads: the budget, and a text that says so.
        let never = warm_up(&mut scripted(|_| None), &PLAN, None).unwrap();
        assert_eq!((never.load_ms, never.settled_mhz), (PLAN.budget_ms, None));
        assert_eq!(never.text(), "8.0 s of load; the clock probe could not read the clock");
    }

    #[test]
    fn a_case_after_a_short_gap_reads_no_clock_and_a_long_gap_loads_first() {
        assert_eq!([0.0, 249.0].map(|ms| PLAN.check(ms)), [Check::None; 2]);
        assert_eq!([250.0, 999.0].map(|ms| PLAN.check(ms)), [Check::Read; 2]);
        assert_eq!(PLAN.check(1000.0), Check::SliceThenRead);
    }

    #[test]
    fn a_rewarm_stops_back_at_the_level_and_costs_nothing_when_still_warm() {
        // Idle for a while after an upload: 1059 MHz, then a climb back.
        let mut gpu = scripted(|load: f64| Some((1059.0 + load * 4.0).min(1980.0)));
        let warm = warm_up(&mut gpu, &PLAN, Some(1980.0)).unwrap();
        // 1881 MHz (5% below 1980) is reached at 205.5 ms of load: the reading at 250 ms.
        assert_eq!((warm.load_ms, warm.settled_mhz), (250.0, Some(1980.0)));
        for mhz in [1975.0, 1901.0, 2099.0] {
            // Still warm, 4% below, or above (the case's own load lifts it): no load.
            let none = warm_up(&mut scripted(move |_| Some(mhz)), &PLAN, Some(1980.0)).unwrap();
            assert_eq!((none.load_ms, none.settled_mhz), (0.0, Some(mhz)), "{mhz}");
            assert_eq!(none.text(), format!("none needed: the clock was at {mhz:.0} MHz"));
        }
    }

    #[test]
    fn a_rewarm_that_settles_elsewhere_stops_there_instead_of_spending_its_budget() {
        // A GPU that holds 1700 MHz now (power or heat): settled by the first warm-up's rule.
        let warm = warm_up(&mut scripted(|_| Some(1700.0)), &PLAN, Some(1980.0)).unwrap();
        assert_eq!((warm.load_ms, warm.settled_mhz), (PLAN.min_ms, Some(1700.0)));
        // An idle step held for the minimum load is not taken for a level.
        let mut step = scripted(|load: f64| Some(if load < 1000.0 { 345.0 } else { 1980.0 }));
        assert_eq!(warm_up(&mut step, &PLAN, Some(1980.0)).unwrap().settled_mhz, Some(1980.0));
        // One that never settles stops at the re-warm budget.
        let mut jitter =
            scripted(|load: f64| Some(if (load / 50.0) as u64 % 2 == 0 { 1500.0 } else { 1700.0 }));
        let warm = warm_up(&mut jitter, &PLAN, Some(1980.0)).unwrap();
        assert_eq!((warm.load_ms, warm.settled_mhz), (PLAN.rewarm_budget_ms, None));
    }
}
