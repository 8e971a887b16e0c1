//! Confirming a fleet's suspect before a verdict: its slow cases measured again on it alone and on
//! a healthy peer alone, and, where it is not slow alone, on it with its host's other GPUs at
//! once. Slow alone is a slow GPU; slow only beside the others is interference (the host's power,
//! PCIe or CPU, or a clock the screen does not see); slow in neither, a result not reproduced.

use serde::Serialize;

use super::verdict::{noise, NOISE_FACTOR};
use crate::record::stats::median;
use crate::results::model::Run;

/// The share of the cases measured again that must be quiet enough to judge (their noise, three
/// times over, within the tolerance) for a verdict: fewer, and the confirmation cannot judge.
pub const JUDGEABLE: f64 = 0.5;

/// How a suspect's cases did when measured again against a reference.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Rejudged {
    /// Cases measured again on both and judged (neither too noisy).
    pub judged: usize,
    /// Of those, slower than the reference beyond the tolerance.
    pub slow: usize,
    /// Cases measured again too noisy to judge (three times their noise beyond the tolerance).
    #[serde(default)]
    pub noisy: usize,
    /// The median change of the cases judged: the effect measured again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<f64>,
    /// The tolerance it was held to.
    #[serde(default)]
    pub tolerance: f64,
    /// The largest slowdown, where any.
    pub worst: Option<f64>,
    /// What the reference was (`0000:00:06.0 alone`, `the fleet's medians`, `the median of 3 peers at once`).
    pub against: String,
}

impl Rejudged {
    /// Whether it can say anything: [`JUDGEABLE`] of the cases measured again quiet enough.
    pub fn judgeable(&self) -> bool {
        self.judged > 0 && self.judged as f64 >= JUDGEABLE * (self.judged + self.noisy) as f64
    }

    /// Whether the slowness reproduced: judgeable, and the cases' median change slower than the
    /// tolerance again.
    pub fn reproduced(&self) -> bool {
        self.judgeable() && self.change.is_some_and(|c| c < -self.tolerance)
    }
}

/// A confirmation's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Slow alone: the GPU itself.
    Slow,
    /// Slow only while the host's other GPUs ran.
    Interference,
    /// Slow in neither: the screen's outliers did not reproduce.
    NotReproduced,
    /// Too noisy when measured again to say: never a pass.
    Unjudgeable,
}

impl Verdict {
    /// The word the verdict prints.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Slow => "slow",
            Verdict::Interference => "interference",
            Verdict::NotReproduced => "not reproduced",
            Verdict::Unjudgeable => "cannot be judged",
        }
    }
}

/// One suspect confirmed (or not) on its host.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Confirmation {
    /// The suspect, as the fleet labels it.
    pub label: String,
    /// The families its slow cases are in.
    pub families: Vec<String>,
    /// Its slow cases measured again on it alone, against a healthy peer alone (or the fleet).
    pub alone: Rejudged,
    /// Where it was not slow alone: the same cases on every GPU of the host at once, against the
    /// others' median.
    pub together: Option<Rejudged>,
    /// The devices it ran with at once.
    pub with: Vec<String>,
    /// Measured again beside `with` at once, against the reference (`perftest health`, which
    /// confirms every suspect of a node in one run), not alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub at_once: bool,
    /// The verdict.
    pub verdict: Verdict,
}

/// The verdict of `alone` and, where it did not reproduce, `together`.
pub fn verdict(alone: &Rejudged, together: Option<&Rejudged>) -> Verdict {
    match together {
        _ if alone.reproduced() => Verdict::Slow,
        _ if !alone.judgeable() => Verdict::Unjudgeable,
        Some(t) if t.reproduced() => Verdict::Interference,
        Some(t) if !t.judgeable() => Verdict::Unjudgeable,
        _ => Verdict::NotReproduced,
    }
}

/// A case's rate and noise in `run`, where it was timed.
pub fn rate_in(run: &Run, name: &str) -> Option<(f64, f64)> {
    let case = run.cases.iter().find(|c| c.name == name)?;
    Some((case.timed_rate()?.value, noise(case)))
}

/// The median rate of case `name` over `runs` and the largest noise among them.
pub fn median_of(runs: &[&Run], name: &str) -> Option<(f64, f64)> {
    let found: Vec<(f64, f64)> = runs.iter().filter_map(|r| rate_in(r, name)).collect();
    let rate = median(found.iter().map(|(r, _)| *r))?;
    Some((rate, found.iter().map(|(_, n)| *n).fold(0.0, f64::max)))
}

/// `suspect`'s `cases` against `reference` (each case's rate and noise there), at `tolerance`: a
/// case is judged where three times the larger noise is within the tolerance or within its change
/// (else it is noisy), slow where it is slower than the tolerance; the effect is the judged
/// cases' median change.
pub fn rejudge(
    suspect: &Run,
    cases: &[String],
    reference: impl Fn(&str) -> Option<(f64, f64)>,
    against: &str,
    tolerance: f64,
) -> Rejudged {
    let mut out = Rejudged { against: against.to_owned(), tolerance, ..Rejudged::default() };
    let mut changes = Vec::new();
    for name in cases {
        let (Some((rate, own)), Some((base, theirs))) = (rate_in(suspect, name), reference(name)) else {
            continue;
        };
        if base <= 0.0 {
            continue;
        }
        // Judged where its noise, three times over, is within the tolerance or within the change
        // itself (a slowdown far beyond the noise is evidence, noisy or not).
        let change = rate / base - 1.0;
        let bound = NOISE_FACTOR * own.max(theirs);
        if bound > tolerance && bound >= change.abs() {
            out.noisy += 1;
            continue;
        }
        out.judged += 1;
        changes.push(change);
        if change < -tolerance {
            out.slow += 1;
            out.worst = Some(out.worst.map_or(change, |w: f64| w.min(change)));
        }
    }
    out.change = median(changes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fleet::tests::device_run;

    fn names(run: &Run) -> Vec<String> {
        run.cases.iter().map(|c| c.name.clone()).collect()
    }

    const T: f64 = 0.02;

    #[test]
    fn slow_alone_is_slow_slow_only_at_once_is_interference_else_not_reproduced() {
        let healthy = device_run("NVIDIA H200", 1, 1.0);
        let slow = device_run("NVIDIA H200", 2, 0.95);
        let same = device_run("NVIDIA H200", 3, 1.0);
        let cases = names(&healthy);
        let alone = rejudge(&slow, &cases, |n| rate_in(&healthy, n), "0000:06:00.0 alone", T);
        assert_eq!((alone.judged, alone.slow), (40, 40));
        assert!(alone.reproduced() && (alone.worst.unwrap() + 0.05).abs() < 0.006);
        assert_eq!(verdict(&alone, None), Verdict::Slow);
        let fine = rejudge(&same, &cases, |n| rate_in(&healthy, n), "0000:06:00.0 alone", T);
        assert_eq!((fine.slow, fine.reproduced()), (0, false));
        let peers = [&healthy, &same];
        let together = rejudge(&slow, &cases, |n| median_of(&peers, n), "the median of 2 peers at once", T);
        assert_eq!(verdict(&fine, Some(&together)), Verdict::Interference);
        assert_eq!(verdict(&fine, Some(&fine)), Verdict::NotReproduced);
        assert_eq!(verdict(&fine, None), Verdict::NotReproduced);
    }

    #[test]
    fn a_few_slow_cases_of_many_do_not_reproduce_and_a_noisy_confirmation_is_no_pass() {
        let healthy = device_run("NVIDIA H200", 1, 1.0);
        let mut some = device_run("NVIDIA H200", 3, 1.0);
        for case in some.cases.iter_mut().take(10) {
            case.rate.as_mut().unwrap().value *= 0.9;
        }
        let again = rejudge(&some, &names(&healthy), |n| rate_in(&healthy, n), "a peer", T);
        assert_eq!((again.judged, again.slow), (40, 10));
        assert!(!again.reproduced(), "10 of 40 slow: the median is not");
        // A GPU 11% slow whose cases came back noisy (cv 16%) in two of three: cannot be judged.
        let mut noisy = device_run("NVIDIA H200", 4, 0.89);
        for case in noisy.cases.iter_mut().take(2) {
            case.samples_ms = vec![20.0, 24.0, 16.0];
        }
        let three: Vec<String> = names(&healthy).into_iter().take(3).collect();
        let again = rejudge(&noisy, &three, |n| rate_in(&healthy, n), "the reference", T);
        assert_eq!((again.judged, again.noisy), (1, 2));
        assert_eq!(verdict(&again, None), Verdict::Unjudgeable);
    }
}
