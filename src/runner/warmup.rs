//! Warming the device up: load it until its clock settles at the level it sustains.
//!
//! A GPU left idle for a second drops to its idle clock (345 MHz on the H100 and H200) and needs
//! sustained load to climb back; a case timed before then reads a steady rate at the wrong clock,
//! which no noise test catches. So before the first timed case the runner loads the device
//! ([`super::heater`]) and reads the clock between slices of load until the readings over
//! [`Plan::settle_ms`] of load agree within [`STEADY`] (after at least [`Plan::min_ms`]), or
//! [`Plan::budget_ms`] runs out. Before each later case it reads the clock once more: if it is
//! [`OFF_CLOCK`](super::measure::OFF_CLOCK) or more below that level (an upload or a long build
//! left the device idle), it loads the device again until a reading is within [`STEADY`] of the
//! level, the clock settles elsewhere, or [`Plan::rewarm_budget_ms`] runs out. A device without a clock gets
//! [`Plan::blind_ms`] of load first, and [`Plan::refresh_ms`] after every idle gap of
//! [`Plan::idle_ms`] or more.

use super::clock::STEADY;
use super::measure::below;
use crate::error::Result;

/// Something that can be loaded and whose clock can be read (the GPU, or a script in tests).
pub trait Heat {
    /// Loads the device for at least `ms` milliseconds; returns the milliseconds it took.
    fn heat(&mut self, ms: f64) -> Result<f64>;
    /// The clock now, MHz; `None` where the device has no clock to read.
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
    /// The readings over this much load must agree within [`STEADY`], ms.
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
}

/// The plan every run uses (see NOTES.md for the H100 and H200 ramps it was chosen from).
pub const PLAN: Plan = Plan {
    slice_ms: 50.0,
    min_ms: 1500.0,
    settle_ms: 1000.0,
    budget_ms: 8000.0,
    rewarm_budget_ms: 2000.0,
    blind_ms: 1000.0,
    idle_ms: 1000.0,
    refresh_ms: 250.0,
};

/// What a warm-up did.
#[derive(Clone, Debug, PartialEq)]
pub struct WarmUp {
    /// Milliseconds of load applied.
    pub load_ms: f64,
    /// Each clock reading in MHz, with the milliseconds of load before it (the first before any).
    pub readings: Vec<(f64, f64)>,
    /// The level the clock settled at, MHz: the mean of the readings that agreed (or the reading
    /// at the level a re-warm aimed for); `None` without a clock, or if it never settled.
    pub settled_mhz: Option<f64>,
}

impl WarmUp {
    /// The first clock reading, MHz (before any load).
    pub fn first_mhz(&self) -> Option<f64> {
        self.readings.first().map(|(_, mhz)| *mhz)
    }

    /// One line for the header or a note: `1.4 s of load to reach 1980 MHz (from 345 MHz)`.
    pub fn text(&self) -> String {
        let seconds = self.load_ms / 1e3;
        let (first, settled) = (self.first_mhz(), self.settled_mhz);
        match (first, settled) {
            (None, _) => format!(
                "{seconds:.1} s of load, a fixed time: no clock to watch (the device has no usable shader clock)"
            ),
            (Some(first), Some(_)) if self.load_ms == 0.0 => {
                format!("none needed: the clock was at {first:.0} MHz")
            }
            (Some(first), Some(level)) => {
                format!("{seconds:.1} s of load to reach {level:.0} MHz (from {first:.0} MHz)")
            }
            (Some(first), None) => {
                let (low, high) = range(self.readings.iter().map(|(_, mhz)| *mhz));
                let last = self.readings.last().map_or(first, |(_, mhz)| *mhz);
                format!(
                    "{seconds:.1} s of load and the clock did not settle within {:.0}% (from {first:.0} MHz; \
                     {low:.0} to {high:.0} MHz; last {last:.0} MHz)",
                    STEADY * 100.0
                )
            }
        }
    }
}

/// The lowest and highest of `values`.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(v), h.max(v)))
}

impl Plan {
    /// The level the clock has settled at after `load_ms` of load, given `readings` (MHz, with the
    /// load before each). With a `target` (a re-warm): the first reading if it is not
    /// [`OFF_CLOCK`](super::measure::OFF_CLOCK) or more below it, a later one within [`STEADY`] of
    /// it, or else a level the readings settled at elsewhere.
    pub fn settled(&self, readings: &[(f64, f64)], load_ms: f64, target: Option<f64>) -> Option<f64> {
        let &(_, last) = readings.last()?;
        let least = match target {
            Some(target) if load_ms == 0.0 => return (!below(last, target)).then_some(last),
            Some(target) if (last / target - 1.0).abs() <= STEADY => return Some(last),
            Some(_) => self.settle_ms,
            None => self.min_ms.max(self.settle_ms),
        };
        if load_ms < least {
            return None;
        }
        let window: Vec<f64> =
            readings.iter().filter(|(at, _)| *at >= load_ms - self.settle_ms).map(|(_, mhz)| *mhz).collect();
        let (low, high) = range(window.iter().copied());
        (window.len() >= 3 && high / low - 1.0 <= STEADY)
            .then(|| window.iter().sum::<f64>() / window.len() as f64)
    }
}

/// Warms `device` up as `plan` says; with `target`, until its clock is back at that level.
pub fn warm_up(device: &mut dyn Heat, plan: &Plan, target: Option<f64>) -> Result<WarmUp> {
    let Some(first) = device.clock_mhz()? else {
        let load_ms = device.heat(plan.blind_ms)?;
        return Ok(WarmUp { load_ms, readings: Vec::new(), settled_mhz: None });
    };
    let mut readings = vec![(0.0, first)];
    let mut load_ms = 0.0;
    loop {
        if let Some(level) = plan.settled(&readings, load_ms, target) {
            return Ok(WarmUp { load_ms, readings, settled_mhz: Some(level) });
        }
        if load_ms >= if target.is_some() { plan.rewarm_budget_ms } else { plan.budget_ms } {
            return Ok(WarmUp { load_ms, readings, settled_mhz: None });
        }
        load_ms += device.heat(plan.slice_ms)?;
        // A reading the probe could not make (timestamps out of order) is left out.
        if let Some(mhz) = device.clock_mhz()? {
            readings.push((load_ms, mhz));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A device whose clock follows `clock(load so far)`, each slice taking exactly what was asked.
    pub(crate) struct Scripted<F: FnMut(f64) -> Option<f64>> {
        pub clock: F,
        pub load_ms: f64,
    }

    impl<F: FnMut(f64) -> Option<f64>> Heat for Scripted<F> {
        fn heat(&mut self, ms: f64) -> Result<f64> {
            self.load_ms += ms;
            Ok(ms)
        }
        fn clock_mhz(&mut self) -> Result<Option<f64>> {
            Ok((self.clock)(self.load_ms))
        }
    }

    /// The H200's cold start as the issue saw it: 345 MHz for the first 600 ms of load, then a
    /// climb of 400 MHz per 100 ms to 1980.
    pub(crate) fn cold_h200(load_ms: f64) -> Option<f64> {
        Some(if load_ms < 600.0 { 345.0 } else { (345.0 + (load_ms - 600.0) * 4.0).min(1980.0) })
    }

    #[test]
    fn a_cold_gpu_is_loaded_until_it_reaches_the_clock_it_sustains() {
        let mut gpu = Scripted { clock: cold_h200, load_ms: 0.0 };
        let warm = warm_up(&mut gpu, &PLAN, None).unwrap();
        let level = warm.settled_mhz.unwrap();
        assert!((1960.0..=1980.0).contains(&level), "{level}");
        assert_eq!(warm.first_mhz(), Some(345.0));
        // Within 2% of 1980 after 1000 ms of load; then a second of agreeing readings.
        assert!((2000.0..=2050.0).contains(&warm.load_ms), "{}", warm.load_ms);
        assert_eq!(warm.text(), format!("2.0 s of load to reach {level:.0} MHz (from 345 MHz)"));
    }

    #[test]
    fn a_steady_idle_clock_is_not_mistaken_for_a_settled_one() {
        // 345 MHz under load for 900 ms, steady all the while: the minimum load waits it out.
        let mut gpu =
            Scripted { clock: |load: f64| Some(if load < 900.0 { 345.0 } else { 1980.0 }), load_ms: 0.0 };
        let warm = warm_up(&mut gpu, &PLAN, None).unwrap();
        assert_eq!(warm.settled_mhz, Some(1980.0));
    }

    #[test]
    fn a_clock_that_never_settles_stops_at_the_budget() {
        let mut gpu = Scripted {
            clock: |load: f64| Some(if (load / 50.0) as u64 % 2 == 0 { 1800.0 } else { 1980.0 }),
            load_ms: 0.0,
        };
        let warm = warm_up(&mut gpu, &PLAN, None).unwrap();
        assert_eq!(warm.settled_mhz, None);
        assert!((PLAN.budget_ms..PLAN.budget_ms + PLAN.slice_ms).contains(&warm.load_ms), "{}", warm.load_ms);
        assert_eq!(
            warm.text(),
            "8.0 s of load and the clock did not settle within 2% (from 1800 MHz; 1800 to 1980 MHz; last 1800 MHz)"
        );
    }

    #[test]
    fn a_device_without_a_clock_is_loaded_for_a_fixed_time() {
        let mut gpu = Scripted { clock: |_| None, load_ms: 0.0 };
        let warm = warm_up(&mut gpu, &PLAN, None).unwrap();
        assert_eq!((warm.load_ms, warm.settled_mhz), (PLAN.blind_ms, None));
        assert!(warm.readings.is_empty());
        assert_eq!(
            warm.text(),
            "1.0 s of load, a fixed time: no clock to watch (the device has no usable shader clock)"
        );
    }

    #[test]
    fn a_rewarm_stops_at_the_level_it_aims_for_and_costs_nothing_when_still_warm() {
        // Idle for a while after an upload: 1059 MHz, then a climb back.
        let mut gpu = Scripted { clock: |load: f64| Some((1059.0 + load * 4.0).min(1980.0)), load_ms: 0.0 };
        let warm = warm_up(&mut gpu, &PLAN, Some(1980.0)).unwrap();
        assert_eq!(warm.settled_mhz, Some(1980.0));
        assert!((200.0..=300.0).contains(&warm.load_ms), "{}", warm.load_ms);
        let mut warm_gpu = Scripted { clock: |_| Some(1975.0), load_ms: 0.0 };
        let none = warm_up(&mut warm_gpu, &PLAN, Some(1980.0)).unwrap();
        assert_eq!((none.load_ms, none.settled_mhz), (0.0, Some(1975.0)));
        assert_eq!(none.text(), "none needed: the clock was at 1975 MHz");
        // 4% below is within the tolerance, and a clock above the level is no cold GPU: no load.
        for mhz in [1901.0, 2099.0] {
            let mut near = Scripted { clock: move |_| Some(mhz), load_ms: 0.0 };
            assert_eq!(warm_up(&mut near, &PLAN, Some(1980.0)).unwrap().load_ms, 0.0, "{mhz}");
        }
    }

    #[test]
    fn a_rewarm_that_settles_elsewhere_stops_there_instead_of_spending_its_budget() {
        // A GPU that holds 1700 MHz now (power or heat): settled after a second of load.
        let mut gpu = Scripted { clock: |_| Some(1700.0), load_ms: 0.0 };
        let warm = warm_up(&mut gpu, &PLAN, Some(1980.0)).unwrap();
        assert_eq!(warm.settled_mhz, Some(1700.0));
        assert!((PLAN.settle_ms..=PLAN.settle_ms + 50.0).contains(&warm.load_ms), "{}", warm.load_ms);
        // One that never settles stops at the re-warm budget.
        let mut jitter = Scripted {
            clock: |load: f64| Some(1500.0 + (load / 50.0) as u64 as f64 % 2.0 * 200.0),
            load_ms: 0.0,
        };
        let warm = warm_up(&mut jitter, &PLAN, Some(1980.0)).unwrap();
        assert_eq!(warm.settled_mhz, None);
        assert!((PLAN.rewarm_budget_ms..PLAN.rewarm_budget_ms + PLAN.slice_ms).contains(&warm.load_ms));
    }

    #[test]
    fn readings_the_probe_could_not_make_are_left_out() {
        let mut calls = 0;
        let clock = move |_: f64| {
            calls += 1;
            (calls % 3 != 0).then_some(1980.0)
        };
        let mut gpu = Scripted { clock, load_ms: 0.0 };
        let warm = warm_up(&mut gpu, &PLAN, None).unwrap();
        assert_eq!(warm.settled_mhz, Some(1980.0));
        assert!(warm.readings.iter().all(|(_, mhz)| *mhz == 1980.0));
    }
}
