//! Measuring again what ran on the wrong clock, as nvbench discards samples taken while
//! throttled: a case whose clock changed during its samples, or that ran
//! [`OFF_CLOCK`](crate::record::measurement::OFF_CLOCK) or more below the level the warm-up reached, is
//! warmed up again and measured again, at most [`RETRIES`] times. A baseline, whose rate every
//! ratio of its family divides, is measured again for noise (with no re-warm first: noise is not
//! the clock's) and for an unsettled warm-up too. The
//! last try is kept, with why each earlier one was not. A retry that runs below the level again,
//! at the clock of the try before (within [`STEADY`]), ends the retries: the case's own load sets
//! that clock (a power-limited card, as the H100 is under tensor work), more tries would cost time
//! and change nothing, and the result is kept unflagged ([`ClockFacts::own_load`](crate::record::measurement::ClockFacts::own_load)).
//! So does a first try that runs steadily below the level at the clock the family's case before
//! was held at by its own load: the tensor-core families' cases each ran twice in a full run for
//! that (82 cases, 5.7 s of an H200's), and the record says so
//! ([`ClockFacts::held_as_before`](crate::record::measurement::ClockFacts::held_as_before)).
//!
//! Why it is built so: docs/design/warm-up.md.

use std::time::Instant;

use crate::error::Result;
use crate::record::measurement::{Measurement, STEADY};
use crate::record::phases::Phases;

/// Tries after the first.
pub const RETRIES: usize = 2;

/// Why `m` should be measured again, if it should; `baseline` counts noise and an unsettled
/// warm-up too.
pub fn trouble(m: &Measurement, baseline: bool) -> Option<String> {
    if let Some((before, after)) = m.unsteady() {
        return Some(format!("the clock went from {before:.0} to {after:.0} MHz during the samples"));
    }
    if let Some((mhz, reference)) = m.below_reference() {
        return Some(format!("it ran at {mhz:.0} MHz, the warm-up reached {reference:.0} MHz"));
    }
    if baseline && m.summary.is_noisy() {
        return Some(format!("its samples were noisy (cv {:.1}%)", m.summary.cv * 100.0));
    }
    (baseline && !m.settled).then(|| "its warm-up rates did not agree".to_owned())
}

/// Whether `m`'s trouble may be the clock's (it changed, ran low, or the warm-up never settled),
/// which a re-warm addresses; noise alone is measured again without one.
fn off_clock(m: &Measurement) -> bool {
    m.unsteady().is_some() || m.below_reference().is_some() || !m.settled
}

/// Measures with `measure` (each try judged against the warm-up's `reference` clock), and while
/// a try is in [`trouble`], warms up with `rewarm` where the trouble may be the clock's (which
/// returns the reference for the next try) and measures again, at most [`RETRIES`] times.
/// `held`: the clock the family's case before was held at by its own load, if it was.
pub fn measure_steady(
    mut measure: impl FnMut() -> Result<Measurement>,
    mut rewarm: impl FnMut() -> Result<Option<f64>>,
    mut reference: Option<f64>,
    baseline: bool,
    held: Option<f64>,
) -> Result<Measurement> {
    let mut retries = Vec::new();
    let mut low_before: Option<f64> = held;
    let (mut remeasure_ms, mut rewarm_ms) = (0.0, 0.0);
    loop {
        let start = Instant::now();
        let mut m = measure()?;
        let try_ms = Phases::since(start);
        m.reference_mhz = reference;
        let low = m.below_reference().map(|(mhz, _)| mhz);
        // A first try is held to the case before's clock only where its own clock held still.
        let first = retries.is_empty();
        let repeated = low.zip(low_before).is_some_and(|(now, before)| (now / before - 1.0).abs() <= STEADY)
            && (!first || m.unsteady().is_none());
        match trouble(&m, baseline) {
            Some(why) if retries.len() < RETRIES && !repeated => {
                retries.push(why);
                low_before = low;
                remeasure_ms += try_ms;
                if off_clock(&m) {
                    let start = Instant::now();
                    reference = rewarm()?;
                    rewarm_ms += Phases::since(start);
                }
            }
            left => {
                // Low again, at the clock of the try before, after a re-warm: the case's own load
                // sets that clock. That is the card's behaviour under this work, not trouble.
                m.clock.own_load = repeated && m.unsteady().is_none();
                m.clock.held_as_before = m.clock.own_load && first;
                let left = if m.clock.own_load { trouble(&m, baseline) } else { left };
                (m.retries, m.gave_up) = (retries, left.is_some());
                m.phases.remeasure_ms += remeasure_ms;
                m.phases.rewarm_ms += rewarm_ms;
                return Ok(m);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::measurement::OFF_CLOCK;

    /// A try whose clock read `clocks` around samples `samples`.
    fn try_at(clocks: &[f64], samples: &[f64]) -> Measurement {
        Measurement { clocks_mhz: clocks.to_vec(), ..Measurement::of_samples(100, samples) }
    }

    const STEADY_SAMPLES: [f64; 3] = [20.0, 20.0, 20.0];

    /// Runs [`measure_steady`] over `tries` in order; returns the kept try and the re-warms.
    fn run(tries: Vec<Measurement>, reference: Option<f64>, baseline: bool) -> (Measurement, usize) {
        run_held(tries, reference, baseline, None)
    }

    /// [`run`] after a case of the family held at `held` by its own load.
    fn run_held(
        tries: Vec<Measurement>,
        reference: Option<f64>,
        baseline: bool,
        held: Option<f64>,
    ) -> (Measurement, usize) {
        let mut tries = tries.into_iter();
        let mut rewarms = 0;
        let kept = measure_steady(
            || Ok(tries.next().expect("no more tries than scripted")),
            || {
                rewarms += 1;
                Ok(reference)
            },
            reference,
            baseline,
            held,
        )
        .unwrap();
        (kept, rewarms)
    }

    #[test]
    fn a_cold_start_is_measured_again_after_a_rewarm() {
        // The H100 baseline: 345 MHz before the samples, 600 after; then warm.
        let tries =
            vec![try_at(&[345.0, 600.0], &STEADY_SAMPLES), try_at(&[1980.0, 1979.0], &STEADY_SAMPLES)];
        let (kept, rewarms) = run(tries, Some(1980.0), true);
        assert_eq!((kept.clocks_mhz[0], rewarms), (1980.0, 1));
        assert_eq!(kept.retries, ["the clock went from 345 to 600 MHz during the samples"]);
        assert_eq!(kept.reference_mhz, Some(1980.0));
        assert!(!kept.gave_up);
    }

    #[test]
    fn a_steady_rate_at_the_wrong_clock_is_measured_again() {
        // The H200 baseline: a steady 345 MHz, cv 0.005%, which no noise test catches.
        let tries =
            vec![try_at(&[345.0, 345.0], &STEADY_SAMPLES), try_at(&[1980.0, 1980.0], &STEADY_SAMPLES)];
        let (kept, _) = run(tries, Some(1980.0), false);
        assert_eq!(kept.retries, ["it ran at 345 MHz, the warm-up reached 1980 MHz"]);
        assert_eq!(kept.below_reference(), None);
    }

    #[test]
    fn retries_are_bounded_and_the_last_try_keeps_its_trouble() {
        let (tries, clocks) = (vec![1600.0, 1700.0, 1800.0], [1600.0, 1700.0, 1800.0]);
        let tries = tries.iter().map(|mhz| try_at(&[*mhz, *mhz], &STEADY_SAMPLES)).collect();
        let (kept, rewarms) = run(tries, Some(1980.0), false);
        assert_eq!((kept.retries.len(), rewarms), (RETRIES, RETRIES));
        assert_eq!(kept.below_reference(), Some((clocks[2], 1980.0)));
        assert!(kept.gave_up);
    }

    #[test]
    fn a_retry_at_the_same_low_clock_ends_the_retries_as_the_cases_own_load() {
        // A power-limited card: the case's own load holds it at 1700 MHz, try after try.
        let dip = || try_at(&[1700.0, 1700.0], &STEADY_SAMPLES);
        let (kept, rewarms) = run(vec![dip(), dip()], Some(1980.0), false);
        assert_eq!((kept.retries.len(), rewarms, kept.gave_up, kept.clock.own_load), (1, 1, false, true));
        assert_eq!(kept.below_reference(), None, "its own load's clock is no trouble");
        // A second try at another low clock is no such proof: tried again, then given up.
        let tries = [1600.0, 1700.0, 1800.0].map(|mhz| try_at(&[mhz, mhz], &STEADY_SAMPLES));
        let (kept, _) = run(tries.to_vec(), Some(1980.0), false);
        assert!(kept.gave_up && !kept.clock.own_load);
        // A noisy baseline at its own load's clock is still in trouble for its noise.
        let noisy = || try_at(&[1700.0, 1700.0], &[20.0, 25.0, 15.0]);
        let (kept, _) = run(vec![noisy(), noisy()], Some(1980.0), true);
        assert!(kept.clock.own_load && kept.gave_up);
    }

    #[test]
    fn a_first_try_at_the_clock_the_case_before_was_held_at_is_its_own_load_too() {
        // The family's case before was held at 1700 MHz; this one runs steadily at 1710: kept.
        let dip = |mhz: f64| try_at(&[mhz, mhz], &STEADY_SAMPLES);
        let (kept, rewarms) = run_held(vec![dip(1710.0)], Some(1980.0), false, Some(1700.0));
        assert_eq!((kept.retries.len(), rewarms, kept.gave_up), (0, 0, false));
        assert!(kept.clock.own_load && kept.clock.held_as_before);
        // At another low clock it is measured again as before, and a second try at the same
        // clock is its own proof, not the case before's.
        let (kept, rewarms) = run_held(vec![dip(1600.0), dip(1600.0)], Some(1980.0), false, Some(1700.0));
        assert_eq!((kept.retries.len(), rewarms), (1, 1));
        assert!(kept.clock.own_load && !kept.clock.held_as_before);
        // A first try whose clock moved during its samples is measured again, never given up.
        let moved = try_at(&[1700.0, 1600.0], &STEADY_SAMPLES);
        let (kept, rewarms) = run_held(vec![moved, dip(1980.0)], Some(1980.0), false, Some(1700.0));
        assert_eq!((kept.retries.len(), rewarms, kept.gave_up, kept.clock.own_load), (1, 1, false, false));
        // At the warm-up's level there is nothing to hold: measured once, not its own load.
        let (kept, _) = run_held(vec![dip(1980.0)], Some(1980.0), false, Some(1700.0));
        assert!(kept.retries.is_empty() && !kept.clock.own_load && !kept.clock.held_as_before);
    }

    #[test]
    fn a_try_after_a_rewarm_is_held_to_the_level_the_rewarm_settled_at() {
        // The device now sustains 1700 MHz: the re-warm says so, and the next try is fine there.
        let tries =
            vec![try_at(&[1700.0, 1700.0], &STEADY_SAMPLES), try_at(&[1702.0, 1701.0], &STEADY_SAMPLES)];
        let mut tries = tries.into_iter();
        let kept =
            measure_steady(|| Ok(tries.next().unwrap()), || Ok(Some(1700.0)), Some(1980.0), false, None)
                .unwrap();
        assert_eq!((kept.retries.len(), kept.gave_up, kept.reference_mhz), (1, false, Some(1700.0)));
    }

    #[test]
    fn a_good_first_try_and_a_device_without_a_clock_are_measured_once() {
        let (kept, rewarms) = run(vec![try_at(&[1975.0, 1981.0], &STEADY_SAMPLES)], Some(1980.0), true);
        assert!(kept.retries.is_empty() && rewarms == 0);
        // Lavapipe: no clock, no reference; a case that is not a baseline is not retried for noise.
        let noisy = [20.0, 25.0, 15.0];
        let (kept, rewarms) = run(vec![try_at(&[], &noisy)], None, false);
        assert!(kept.retries.is_empty() && rewarms == 0);
    }

    #[test]
    fn a_noisy_baseline_is_measured_again_even_without_a_clock() {
        let tries = vec![try_at(&[], &[20.0, 25.0, 15.0]), try_at(&[], &STEADY_SAMPLES)];
        let (kept, rewarms) = run(tries, None, true);
        assert_eq!(rewarms, 0, "noise is not the clock's: no re-warm first");
        assert_eq!(kept.retries, ["its samples were noisy (cv 25.0%)"]);
    }

    #[test]
    fn a_clock_above_the_warm_up_level_is_the_case_s_own_and_kept() {
        // The H100 under tensor work: 2099 MHz against the warm-up's 1980.
        let (kept, rewarms) = run(vec![try_at(&[2098.0, 2099.0], &STEADY_SAMPLES)], Some(1980.0), true);
        assert!(kept.retries.is_empty() && rewarms == 0);
    }

    #[test]
    fn a_clock_just_under_the_tolerance_is_kept() {
        let near = 1980.0 * (1.0 - OFF_CLOCK) + 1.0;
        let (kept, rewarms) = run(vec![try_at(&[near, near], &STEADY_SAMPLES)], Some(1980.0), true);
        assert!(kept.retries.is_empty() && rewarms == 0);
    }
}
