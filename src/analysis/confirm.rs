//! Confirming a fleet's suspect before a verdict: its slow cases measured again on it alone and on
//! a healthy peer alone, and, where it is not slow alone, on it with its host's other GPUs at
//! once. Slow alone is a slow GPU; slow only beside the others is interference (the host's power,
//! PCIe or CPU, or a clock the screen does not see); slow in neither, a result not reproduced.

use serde::Serialize;

use super::fleet::effect::{beyond, Effect, Point};
use super::verdict::{noise, NOISE_FACTOR};
use crate::record::stats::median;
use crate::results::model::Run;

/// How many of its uncertainties the effect measured again must sit past the tolerance to be
/// slow again, or inside it to pass: three, as `compare` holds a change to three times its noise.
/// The screen asked five, for judging every family of every GPU at once; a confirmation asks one
/// question of one GPU.
pub const CONFIRM_Z: f64 = NOISE_FACTOR;

/// What a case measured again is held to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Baseline {
    /// The rate a healthy GPU has.
    pub rate: f64,
    /// How far a healthy rate strays, as a fraction of it: a reference's run-to-run spread, or a
    /// peer's noise within its run.
    pub spread: f64,
    /// How far a healthy run of a heavy-tailed case has strayed (a reference's tail), 0 for none:
    /// such a case is slow again only beyond it.
    pub tail: f64,
    /// Whether `spread` is run to run (a reference's), and so already holds what one run's
    /// samples stray: then the case's own noise is not added to it.
    pub run_to_run: bool,
}

/// How a suspect's cases did when measured again against a baseline.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Rejudged {
    /// Cases measured again whose noise, three times over, is within the tolerance or their change.
    pub judged: usize,
    /// Of those, slower than the baseline beyond the tolerance.
    pub slow: usize,
    /// Cases measured again noisier than that: they still weigh in the effect, by their spread.
    #[serde(default)]
    pub noisy: usize,
    /// The effect measured again: the median change of every case measured again, a heavy-tailed
    /// case's only beyond its tail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<f64>,
    /// Its standard error, from the cases' spreads (as the screen's effects have theirs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncertainty: Option<f64>,
    /// The same cases' median change with no allowance for tails: what a pass must keep within
    /// the tolerance (a slowdown inside a heavy case's tail is hidden, not absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<Effect>,
    /// The tolerance it was held to.
    #[serde(default)]
    pub tolerance: f64,
    /// The largest slowdown, where any.
    pub worst: Option<f64>,
    /// What the baseline was (`0000:00:06.0 alone`, `the fleet's medians`, `the median of 3 peers at once`).
    pub against: String,
}

impl Rejudged {
    /// Whether the slowness reproduced: the effect measured again slower than the tolerance and
    /// [`CONFIRM_Z`] uncertainties from zero.
    pub fn reproduced(&self) -> bool {
        match (self.change, self.uncertainty) {
            (Some(c), Some(u)) => c < -self.tolerance && -c > CONFIRM_Z * u,
            _ => false,
        }
    }

    /// Whether it rules a slowdown past the tolerance out: the cases' change, with no allowance
    /// for tails, within the tolerance by [`CONFIRM_Z`] of its uncertainties.
    pub fn cleared(&self) -> bool {
        self.raw.as_ref().is_some_and(|e| e.change - CONFIRM_Z * e.uncertainty > -self.tolerance)
    }

    /// Whether it can say anything: slow again, or a slowdown ruled out.
    pub fn judgeable(&self) -> bool {
        self.reproduced() || self.cleared()
    }

    /// Its effect in words: `-9.8% ± 0.4%`, or `nothing measured`.
    pub fn effect_text(&self) -> String {
        match (self.change, self.uncertainty) {
            // Two decimals for the uncertainty: a tight one reads 0.04%, never 0.0%.
            (Some(c), Some(u)) => format!("{:+.1}% ± {:.2}%", c * 100.0, u * 100.0),
            _ => "nothing measured".into(),
        }
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

/// A case's rate and noise in `run` as a baseline, where it was timed.
pub fn rate_in(run: &Run, name: &str) -> Option<Baseline> {
    let case = run.cases.iter().find(|c| c.name == name)?;
    Some(Baseline { rate: case.timed_rate()?.value, spread: noise(case), tail: 0.0, run_to_run: false })
}

/// The median rate of case `name` over `runs` and the largest noise among them.
pub fn median_of(runs: &[&Run], name: &str) -> Option<Baseline> {
    let found: Vec<Baseline> = runs.iter().filter_map(|r| rate_in(r, name)).collect();
    let rate = median(found.iter().map(|b| b.rate))?;
    Some(Baseline { rate, spread: found.iter().map(|b| b.spread).fold(0.0, f64::max), ..found[0] })
}

/// `suspect`'s `cases` against `baseline` (each case's), at `tolerance`: the effect measured
/// again is their median change, a heavy-tailed case's only beyond its tail, with its standard
/// error from their spreads (a baseline's run-to-run spread, else the larger of its noise and
/// the case's own), as the screen's effects are. The counts of cases quiet and slow, noisy, and
/// the worst are for the reader.
pub fn rejudge(
    suspect: &Run,
    cases: &[String],
    baseline: impl Fn(&str) -> Option<Baseline>,
    against: &str,
    tolerance: f64,
) -> Rejudged {
    let mut out = Rejudged { against: against.to_owned(), tolerance, ..Rejudged::default() };
    let (mut points, mut raw) = (Vec::new(), Vec::new());
    for name in cases {
        let (Some(case), Some(base)) = (suspect.cases.iter().find(|c| c.name == *name), baseline(name))
        else {
            continue;
        };
        let Some(rate) = case.timed_rate().map(|r| r.value).filter(|_| base.rate > 0.0) else { continue };
        let change = rate / base.rate - 1.0;
        let spread = if base.run_to_run { base.spread } else { base.spread.max(noise(case)) };
        points.push(Point { family: "", change: beyond(change, base.tail), spread });
        raw.push(Point { family: "", change, spread });
        if NOISE_FACTOR * spread > tolerance && NOISE_FACTOR * spread >= change.abs() {
            out.noisy += 1;
            continue;
        }
        out.judged += 1;
        if change < -tolerance {
            out.slow += 1;
            out.worst = Some(out.worst.map_or(change, |w: f64| w.min(change)));
        }
    }
    let effect = Effect::of(None, &points.iter().collect::<Vec<_>>());
    out.change = effect.as_ref().map(|e| e.change);
    out.uncertainty = effect.map(|e| e.uncertainty);
    out.raw = Effect::of(None, &raw.iter().collect::<Vec<_>>());
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

    /// A reference's baseline for case `i` of a `device_run` of scale 1: its rate, a run-to-run
    /// spread and a tail.
    fn expected(i: usize, spread: f64, tail: f64) -> Baseline {
        Baseline { rate: 1e12 * (i + 1) as f64, spread, tail, run_to_run: true }
    }

    fn index(name: &str) -> usize {
        name.trim_start_matches("case ").parse().unwrap()
    }

    #[test]
    fn a_wild_family_ten_percent_slow_is_slow_again_and_a_slowdown_inside_its_tails_never_passes() {
        // Five cases of a family whose healthy runs stray 25% (a tail) with a spread of 1%; two
        // came back noisy (cv 20%): measured 10% slow, three sit past their tail.
        let mut slow = device_run("NVIDIA H200", 4, 0.90);
        for case in slow.cases.iter_mut().take(2) {
            case.samples_ms = vec![20.0, 24.0, 16.0];
        }
        let five: Vec<String> = names(&slow).into_iter().take(5).collect();
        let tails = |n: &str| Some(expected(index(n), 0.01, if index(n) < 2 { 0.25 } else { 0.0 }));
        let again = rejudge(&slow, &five, tails, "the reference's medians", T);
        assert_eq!(
            (again.judged, again.noisy),
            (5, 0),
            "a reference's spread is run to run: the samples' cv is in it"
        );
        assert!(again.reproduced(), "{again:?}");
        // Every case heavy-tailed past the slowdown: nothing beyond the tails, and no pass either.
        let hidden = |n: &str| Some(expected(index(n), 0.01, 0.25));
        let again = rejudge(&slow, &five, hidden, "the reference's medians", T);
        assert_eq!(again.change, Some(0.0));
        assert!(!again.reproduced() && !again.cleared(), "{again:?}");
        assert_eq!(verdict(&again, None), Verdict::Unjudgeable);
        // The same family healthy, with the same tails: cleared, not reproduced.
        let fine = device_run("NVIDIA H200", 4, 1.0);
        let again = rejudge(&fine, &five, hidden, "the reference's medians", T);
        assert_eq!(verdict(&again, None), Verdict::NotReproduced, "{again:?}");
    }
}
