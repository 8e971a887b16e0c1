//! Is run B's case really slower than run A's, or is it noise? A verdict from both runs' samples.
//!
//! As nvbench's compare does, a difference counts only when it is larger than the noise:
//!
//! - each case's noise is the coefficient of variation of its samples (or the stored `cv`);
//! - if either run's noise is above [`NOISY`] (3%), the verdict is `noisy`: no conclusion;
//! - otherwise the change of the headline rate (B over A, minus 1) is `same` within
//!   max([`FLOOR`], [`NOISE_FACTOR`] x the larger noise), else `faster` or `slower`.
//!
//! The 1% floor is above what one H100 lease repeats within (0.36%) and below the spread between
//! leases (up to about 2%, results/2026-11-21-first-runs/README.md): compare runs taken on one machine, back to back.

use serde::Serialize;

use crate::results::model::CaseResult;

/// Above this noise (coefficient of variation) in either run, no verdict but `noisy`.
pub const NOISY: f64 = 0.03;
/// The smallest change that counts, as a fraction.
pub const FLOOR: f64 = 0.01;
/// A change must exceed this many times the larger noise to count.
pub const NOISE_FACTOR: f64 = 3.0;

/// What a case did between two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Within the noise and the floor.
    Same,
    /// Faster beyond them.
    Faster,
    /// Slower beyond them.
    Slower,
    /// Too noisy in either run to say.
    Noisy,
}

impl Verdict {
    /// The word shown in tables.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Noisy => "noisy",
        }
    }
}

/// The case's noise: the coefficient of variation of its samples, else its stored `cv`.
pub fn noise(case: &CaseResult) -> f64 {
    let s = &case.samples_ms;
    if s.len() >= 2 {
        let mean = s.iter().sum::<f64>() / s.len() as f64;
        let variance = s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (s.len() - 1) as f64;
        if mean > 0.0 {
            return variance.sqrt() / mean;
        }
    }
    case.cv.unwrap_or(0.0)
}

/// The verdict on `other` against `reference`, and the change of the rate (B / A - 1); `None`
/// when either has no rate or the units differ.
pub fn verdict(reference: &CaseResult, other: &CaseResult) -> Option<(Verdict, f64)> {
    let (a, b) = (reference.rate.as_ref()?, other.rate.as_ref()?);
    if a.unit != b.unit {
        return None;
    }
    let change = b.value / a.value - 1.0;
    let noise = noise(reference).max(noise(other));
    let verdict = if noise > NOISY {
        Verdict::Noisy
    } else if change.abs() <= FLOOR.max(NOISE_FACTOR * noise) {
        Verdict::Same
    } else if change > 0.0 {
        Verdict::Faster
    } else {
        Verdict::Slower
    };
    Some((verdict, change))
}

/// The cases of later runs slower than in the first beyond its noise and by more than
/// `percent` (`compare --fail-on-slower`), worst first: (name, change).
pub fn slower_than(runs: &[crate::results::model::Run], percent: f64) -> Vec<(String, f64)> {
    let mut slower = Vec::new();
    for matched in super::matching::match_runs(runs) {
        let Some(first) = matched.found[0] else { continue };
        for later in matched.found.iter().skip(1).flatten() {
            if let Some((Verdict::Slower, change)) = verdict(first, later) {
                if -change * 100.0 > percent {
                    slower.push((matched.name.to_owned(), change));
                }
            }
        }
    }
    slower.sort_by(|a, b| a.1.total_cmp(&b.1));
    slower
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::tests::{run_of, sample_run};
    use crate::results::model::Amount;

    #[test]
    fn a_case_made_five_percent_slower_gates_ci() {
        let base = run_of(100);
        let mut slower = base.clone();
        slower.cases[42].rate.as_mut().unwrap().value *= 0.95;
        assert!(slower_than(&[base.clone(), base.clone()], 2.0).is_empty());
        let gate = slower_than(&[base.clone(), slower], 2.0);
        assert_eq!(gate.len(), 1);
        assert_eq!(gate[0].0, "case 42");
        assert!((gate[0].1 + 0.05).abs() < 1e-9);
        let mut within = base.clone();
        within.cases[42].rate.as_mut().unwrap().value *= 0.95;
        assert!(slower_than(&[base, within], 6.0).is_empty(), "5% is within a 6% gate");
    }

    fn case(rate: f64, samples: &[f64]) -> CaseResult {
        let mut case = sample_run().cases[0].clone();
        case.rate = Some(Amount { value: rate, unit: "loads/s".into() });
        case.samples_ms = samples.to_vec();
        case
    }

    #[test]
    fn small_changes_are_the_same_and_larger_ones_count() {
        let quiet = [20.0, 20.01, 19.99, 20.0];
        let a = case(100.0, &quiet);
        assert_eq!(verdict(&a, &case(100.5, &quiet)).unwrap().0, Verdict::Same, "0.5% is under the 1% floor");
        assert_eq!(verdict(&a, &case(95.0, &quiet)).unwrap().0, Verdict::Slower, "5% slower");
        assert_eq!(verdict(&a, &case(105.0, &quiet)).unwrap().0, Verdict::Faster);
        let (_, change) = verdict(&a, &case(95.0, &quiet)).unwrap();
        assert!((change + 0.05).abs() < 1e-12);
    }

    #[test]
    fn noise_widens_the_band_and_too_much_noise_gives_no_verdict() {
        // cv about 1.2%: the band is 3 x 1.2% = 3.7%, so 3% slower is still the same.
        let wobbly = [20.0, 20.3, 19.8, 20.1, 19.6];
        assert_eq!(verdict(&case(100.0, &wobbly), &case(97.0, &wobbly)).unwrap().0, Verdict::Same);
        let noisy = [20.0, 25.0, 15.0];
        assert_eq!(verdict(&case(100.0, &noisy), &case(50.0, &[20.0; 3])).unwrap().0, Verdict::Noisy);
    }

    #[test]
    fn no_verdict_without_rates_or_across_units() {
        let a = case(100.0, &[20.0; 3]);
        let mut flops = case(100.0, &[20.0; 3]);
        flops.rate.as_mut().unwrap().unit = "FLOPS".into();
        assert_eq!(verdict(&a, &flops), None);
        let mut skipped = a.clone();
        skipped.rate = None;
        assert_eq!(verdict(&a, &skipped), None);
    }
}
