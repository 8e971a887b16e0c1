//! A device's effect sizes: for each family, the median of its cases' changes against the group's
//! medians (or the reference's), and the same over all its cases; each with its uncertainty from
//! the cases' run-to-run spread. A device is slow only where an effect is past the tolerance, an
//! amount an operator would act on, and far past its own uncertainty; scattered cases that sit
//! outside a tight fleet spread make a device that "differs", never a slow one.
//!
//! Why the median of a family: a GPU held back by its clock, power, memory or a unit is slow in
//! most cases of a family at once, where run-to-run noise and the heavy tails of host copies or
//! pointer chases move single cases (results/verdicts-at-scale/). The median ignores a minority
//! of wild cases; its uncertainty falls as one over the root of the family's size.

use serde::Serialize;

use crate::analysis::verdict::FLOOR;
use crate::record::stats::median;

/// The default tolerance: an effect (a family's typical case, or the whole GPU) slower than this
/// fraction is slow. Below the 3% slowdown a screen must find, above the 1% by which healthy
/// siblings' families differ (issue 60).
pub const TOLERANCE: f64 = 0.02;
/// How many of its uncertainties an effect must also sit from zero: 5 standard errors, a
/// two-sided chance of 6e-7 for one effect of a healthy GPU, so that 1,024 GPUs of 20 families
/// each still give a false slow verdict in under 1.3% of screens from the uncertainty alone.
pub const Z: f64 = 5.0;
/// The fewest cases an effect needs: a family of fewer is judged only within the whole GPU (a
/// median of five needs three cases astray at once).
pub const MIN_CASES: usize = 5;
/// The fewest cases the effect over every case of a device needs: one, for a run of a case or two
/// (`--case`, a confirmation); in a run of many, single cases do not move the median.
pub const MIN_ALL: usize = 1;
/// A case is heavy-tailed in a screen where more than this share of its devices (and more than
/// one) sit past the tolerance: a slow GPU is one device; a host link that stalls now and then is
/// many. Such a case weighs in an effect only by as far as a device sits beyond its tail
/// ([`beyond`]), and is still listed where it is an outlier.
pub const HEAVY: f64 = 0.01;
/// The smallest run-to-run spread a case is held to (0.1%): a spread estimated from a few
/// devices can be zero by chance.
pub const MIN_SPREAD: f64 = 0.001;
/// How many of its uncertainties an effect must sit above a slowdown past the tolerance to rule
/// it out: three, as `compare` holds a change to three times its noise (and a confirmation rules
/// one out, `analysis::confirm::CONFIRM_Z`).
pub const RULE_OUT_Z: f64 = crate::analysis::verdict::NOISE_FACTOR;
/// The asymptotic efficiency of a median: its standard error is this times the mean's.
const MEDIAN_SE: f64 = 1.2533;

/// One case of a device as an effect reads it: its family, its change against the group (or the
/// reference), and its run-to-run spread, both as fractions.
#[derive(Clone, Debug, PartialEq)]
pub struct Point<'a> {
    /// Its family.
    pub family: &'a str,
    /// Its rate over the group's median, less one.
    pub change: f64,
    /// Its run-to-run spread (a standard deviation, as a fraction of the median).
    pub spread: f64,
}

/// A family's (or the whole GPU's) typical change on one device.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Effect {
    /// The family, or `None` for every case of the device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// Cases it is the median of.
    pub cases: usize,
    /// The median change (negative: slower).
    pub change: f64,
    /// Its standard error, from the cases' spreads.
    pub uncertainty: f64,
}

impl Effect {
    /// The effect of `points`: their median change and its standard error, from the typical
    /// (median) case's spread: the median is set by its middle cases, and a minority of wild
    /// ones (a host round trip that strays 30%) moves it no more than their number.
    pub fn of(family: Option<&str>, points: &[&Point<'_>]) -> Option<Effect> {
        let change = median(points.iter().map(|p| p.change))?;
        let spread = median(points.iter().map(|p| p.spread.max(MIN_SPREAD)))?;
        Some(Effect {
            family: family.map(str::to_owned),
            cases: points.len(),
            change,
            uncertainty: MEDIAN_SE * spread / (points.len() as f64).sqrt(),
        })
    }

    /// Whether it is beyond its uncertainty ([`Z`] of them), with enough cases ([`MIN_CASES`] for
    /// a family, [`MIN_ALL`] for every case of a device: a health check of a few cases still
    /// judges its GPU).
    pub fn significant(&self) -> bool {
        let fewest = if self.family.is_some() { MIN_CASES } else { MIN_ALL };
        self.cases >= fewest && self.change.abs() > Z * self.uncertainty
    }

    /// Whether it is a difference worth a verdict: significant, and at least compare's floor
    /// (1%) or the tolerance, the smaller. A family 0.05% off its siblings, however sure, is
    /// none: healthy siblings differ by that.
    pub fn differs(&self, tolerance: f64) -> bool {
        self.significant() && self.change.abs() >= FLOOR.min(tolerance)
    }

    /// Whether it is slow: slower than `tolerance` and significant.
    pub fn slow(&self, tolerance: f64) -> bool {
        self.significant() && self.change < -tolerance
    }

    /// Whether it is a family's effect that can neither be called slow nor rule out a slowdown
    /// past `tolerance` ([`RULE_OUT_Z`] uncertainties): its cases stray from run to run further
    /// than the devices beside it can tell. Not judged, and said so; never a pass.
    pub fn unresolved(&self, tolerance: f64) -> bool {
        self.family.is_some() && self.cases >= MIN_CASES && self.undecided(tolerance)
    }

    /// Whether it neither shows a slowdown past `tolerance` nor rules one out ([`RULE_OUT_Z`]
    /// uncertainties), whatever its cases: over every case of a device, a device that cannot be
    /// judged at all (a few cases of a noisy driver, a reference of wide spreads).
    pub fn undecided(&self, tolerance: f64) -> bool {
        !self.slow(tolerance) && self.change - RULE_OUT_Z * self.uncertainty < -tolerance
    }

    /// Its name in a sentence: `alu` or `every case`.
    pub fn what(&self) -> &str {
        self.family.as_deref().unwrap_or("every case")
    }
}

/// `change` less `allowance` towards zero, and zero within it: what is left of a case's change
/// beyond what a healthy run of it may stray (its tail, or its noise).
pub fn beyond(change: f64, allowance: f64) -> f64 {
    change.signum() * (change.abs() - allowance).max(0.0)
}

/// A device's effects: one per family (in first-seen order) and one over every case (last).
pub fn effects(points: &[Point<'_>]) -> Vec<Effect> {
    let mut families: Vec<&str> = Vec::new();
    for p in points {
        if !families.contains(&p.family) {
            families.push(p.family);
        }
    }
    let mut out: Vec<Effect> = families
        .iter()
        .filter_map(|f| {
            let mine: Vec<&Point<'_>> = points.iter().filter(|p| p.family == *f).collect();
            Effect::of(Some(f), &mine)
        })
        .collect();
    let all: Vec<&Point<'_>> = points.iter().collect();
    out.extend(Effect::of(None, &all));
    out
}

/// Of `effects`, the slowest that is slow at `tolerance`.
pub fn slowest(effects: &[Effect], tolerance: f64) -> Option<&Effect> {
    effects.iter().filter(|e| e.slow(tolerance)).min_by(|a, b| a.change.total_cmp(&b.change))
}

/// The effect that sizes a device's verdict: the slowest slow one, else the slowest that
/// [differs](Effect::differs) (a device that differs), else none (a healthy device).
pub fn size(effects: &[Effect], tolerance: f64) -> Option<&Effect> {
    slowest(effects, tolerance).or_else(|| {
        effects.iter().filter(|e| e.differs(tolerance)).min_by(|a, b| a.change.total_cmp(&b.change))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(family: &'static str, n: usize, change: f64, spread: f64) -> Vec<Point<'static>> {
        assert!(n < 100);
        (0..n)
            .map(|i| Point { family, change: change + (i as f64 - n as f64 / 2.0) * 1e-4, spread })
            .collect()
    }

    #[test]
    fn a_family_slow_past_the_tolerance_and_its_noise_is_slow_a_tight_one_within_it_is_not() {
        let mut all = points("alu", 10, -0.03, 0.003);
        all.extend(points("load", 10, -0.009, 0.003));
        let found = effects(&all);
        assert_eq!(found.iter().map(Effect::what).collect::<Vec<_>>(), ["alu", "load", "every case"]);
        assert!(found[0].slow(TOLERANCE), "{:?}", found[0]);
        assert!(found[1].significant() && !found[1].slow(TOLERANCE), "0.9% is significant, within 2%");
        assert_eq!(slowest(&found, TOLERANCE).unwrap().what(), "alu");
        // A strict site's tolerance of 0.5% makes the load family slow too.
        assert!(found[1].slow(0.005));
    }

    #[test]
    fn a_minority_of_wild_cases_moves_no_median_and_noise_or_few_cases_are_no_verdict() {
        let mut copy = points("copy", 7, 0.0, 0.003);
        for p in copy.iter_mut().take(3) {
            p.change = -0.5;
        }
        assert!(!effects(&copy)[0].slow(TOLERANCE), "3 of 7 at -50% leave the median");
        // A family 10% slow whose cases spread 10% from run to run is not beyond 5 errors.
        let noisy = points("host", 4, -0.10, 0.10);
        assert!(!effects(&noisy)[0].significant());
        let four = points("gemm", 4, -0.2, 0.001);
        let found = effects(&four);
        assert!(!found[0].slow(TOLERANCE), "four cases are no family's verdict");
        assert!(found[1].slow(TOLERANCE), "but the whole GPU's, of every case");
        let one = effects(&points("gemm", 1, -0.2, 0.001));
        assert!(one[1].slow(TOLERANCE), "a run of one case is judged by it");
    }

    #[test]
    fn a_change_within_its_allowance_is_none_and_beyond_it_is_what_is_left() {
        assert!((beyond(-0.10, 0.03) + 0.07).abs() < 1e-12);
        assert_eq!(beyond(0.05, 0.06), 0.0);
        assert_eq!(beyond(-0.02, 0.0), -0.02);
    }

    #[test]
    fn a_family_that_can_neither_show_nor_rule_out_a_slowdown_is_unresolved() {
        // 5 cases that stray 5% from run to run: uncertainty 2.8%; -6% is not past 5 of them,
        // and a slowdown past 2% is not ruled out either.
        let wild = &effects(&points("dispatch", 5, -0.06, 0.05))[0];
        assert!(!wild.slow(TOLERANCE) && wild.unresolved(TOLERANCE), "{wild:?}");
        // So is one at no change: 3 uncertainties reach past the tolerance.
        assert!(effects(&points("dispatch", 5, 0.0, 0.05))[0].unresolved(TOLERANCE));
        // A quiet family rules it out; a slow one is slow, not unresolved.
        assert!(!effects(&points("alu", 5, 0.0, 0.003))[0].unresolved(TOLERANCE));
        let slow = &effects(&points("alu", 5, -0.1, 0.003))[0];
        assert!(slow.slow(TOLERANCE) && !slow.unresolved(TOLERANCE));
        // Four cases are judged only within the whole GPU, which is never a family unresolved
        // but a device undecided (group.rs: not judged).
        let four = effects(&points("gemm", 4, 0.0, 0.05));
        assert!(!four[0].unresolved(TOLERANCE) && !four[1].unresolved(TOLERANCE));
        assert!(four[1].undecided(TOLERANCE), "{:?}", four[1]);
        assert!(!effects(&points("gemm", 4, 0.0, 0.003))[1].undecided(TOLERANCE));
    }

    #[test]
    fn a_minority_of_wild_spreads_leaves_the_uncertainty_of_the_typical_case() {
        let mut family = points("dispatch", 5, -0.08, 0.005);
        family[0].spread = 0.3;
        family[1].spread = 0.2;
        let found = effects(&family);
        assert!(found[0].slow(TOLERANCE), "{:?}", found[0]);
        // A majority of wild spreads makes it uncertain.
        family[2].spread = 0.25;
        assert!(!effects(&family)[0].significant());
    }
}
