//! Confirming a fleet's suspect before a verdict: its slow cases measured again on it alone and on
//! a healthy peer alone, and, where it is not slow alone, on it with its host's other GPUs at
//! once. Slow alone is a slow GPU; slow only beside the others is interference (the host's power,
//! PCIe or CPU, or a clock the screen does not see); slow in neither, a result not reproduced.

use serde::Serialize;

use super::verdict::{noise, FLOOR, NOISE_FACTOR};
use crate::record::stats::median;
use crate::results::model::Run;

/// The share of the cases measured again that must be slow again for the slowness to reproduce.
pub const REPRODUCED: f64 = 0.5;

/// How a suspect's cases did when measured again against a reference.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Rejudged {
    /// Cases measured again on both and judged (neither too noisy).
    pub judged: usize,
    /// Of those, slower than the reference beyond the noise and the floor.
    pub slow: usize,
    /// The largest slowdown, where any.
    pub worst: Option<f64>,
    /// What the reference was (`0000:00:06.0 alone`, `the fleet's medians`, `the median of 3 peers at once`).
    pub against: String,
}

impl Rejudged {
    /// Whether the slowness reproduced: slow again in [`REPRODUCED`] of the cases judged, and in one at least.
    pub fn reproduced(&self) -> bool {
        self.slow > 0 && self.slow as f64 >= REPRODUCED * self.judged as f64
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
}

impl Verdict {
    /// The word the verdict prints.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Slow => "slow",
            Verdict::Interference => "interference",
            Verdict::NotReproduced => "not reproduced",
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
    match (alone.reproduced(), together.is_some_and(Rejudged::reproduced)) {
        (true, _) => Verdict::Slow,
        (false, true) => Verdict::Interference,
        (false, false) => Verdict::NotReproduced,
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

/// `suspect`'s `cases` against `reference` (each case's rate and noise there): slow where even
/// its rate raised by 3 times the larger noise is 1% or more below the reference (for a small
/// noise, `compare`'s rule: slower beyond 1% and 3 times the noise). Unlike `compare`, a noisy case
/// is still judged, by that bound: a confirmation asks whether a slowdown far beyond the noise
/// came back, not whether a small one did.
pub fn rejudge(
    suspect: &Run,
    cases: &[String],
    reference: impl Fn(&str) -> Option<(f64, f64)>,
    against: &str,
) -> Rejudged {
    let mut out = Rejudged { against: against.to_owned(), ..Rejudged::default() };
    for name in cases {
        let (Some((rate, own)), Some((base, theirs))) = (rate_in(suspect, name), reference(name)) else {
            continue;
        };
        let noise = own.max(theirs);
        if base <= 0.0 {
            continue;
        }
        out.judged += 1;
        let change = rate / base - 1.0;
        if rate * (1.0 + NOISE_FACTOR * noise) < base * (1.0 - FLOOR) {
            out.slow += 1;
            out.worst = Some(out.worst.map_or(change, |w: f64| w.min(change)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fleet::tests::device_run;

    fn names(run: &Run) -> Vec<String> {
        run.cases.iter().map(|c| c.name.clone()).collect()
    }

    #[test]
    fn slow_alone_is_slow_slow_only_at_once_is_interference_else_not_reproduced() {
        let healthy = device_run("NVIDIA H200", 1, 1.0);
        let slow = device_run("NVIDIA H200", 2, 0.95);
        let same = device_run("NVIDIA H200", 3, 1.0);
        let cases = names(&healthy);
        let alone = rejudge(&slow, &cases, |n| rate_in(&healthy, n), "0000:06:00.0 alone");
        assert_eq!((alone.judged, alone.slow), (40, 40));
        assert!(alone.reproduced() && (alone.worst.unwrap() + 0.05).abs() < 0.006);
        assert_eq!(verdict(&alone, None), Verdict::Slow);
        let fine = rejudge(&same, &cases, |n| rate_in(&healthy, n), "0000:06:00.0 alone");
        assert_eq!((fine.slow, fine.reproduced()), (0, false));
        let peers = [&healthy, &same];
        let together = rejudge(&slow, &cases, |n| median_of(&peers, n), "the median of 2 peers at once");
        assert_eq!(verdict(&fine, Some(&together)), Verdict::Interference);
        assert_eq!(verdict(&fine, Some(&fine)), Verdict::NotReproduced);
        assert_eq!(verdict(&fine, None), Verdict::NotReproduced);
    }

    #[test]
    fn a_few_slow_cases_of_many_do_not_reproduce_and_noise_widens_the_bound() {
        let healthy = device_run("NVIDIA H200", 1, 1.0);
        let mut some = device_run("NVIDIA H200", 3, 1.0);
        for case in some.cases.iter_mut().take(10) {
            case.rate.as_mut().unwrap().value *= 0.9;
        }
        let again = rejudge(&some, &names(&healthy), |n| rate_in(&healthy, n), "a peer");
        assert_eq!((again.judged, again.slow), (40, 10));
        assert!(!again.reproduced(), "10 of 40 is under half");
        // A noisy case is judged by its noise: 10% slow with a 16% cv is not slow.
        some.cases[0].samples_ms = vec![20.0, 24.0, 16.0];
        assert_eq!(rejudge(&some, &names(&healthy), |n| rate_in(&healthy, n), "a peer").slow, 9);
    }
}
