//! The devices of a group of runs: runs of one GPU (its UUID) are one device, each case's rate
//! the median over its runs, its noise the largest of theirs and their spread; how a fleet names
//! a device, and what it keeps of a run.

use super::Member;
use crate::analysis::verdict::noise;
use crate::record::stats::median;
use crate::results::model::{CaseResult, Run};

/// One device of a group: its label and its runs (one GPU measured more than once is one device).
pub(super) struct Device<'a> {
    pub(super) label: String,
    pub(super) runs: Vec<&'a Run>,
    /// Its runs' cases by name, in run order (a fleet of 1,000 full runs looks up 1.5 million).
    cases: std::collections::HashMap<&'a str, Vec<&'a CaseResult>>,
}

impl<'a> Device<'a> {
    /// Its runs' cases named `name`, one per run that holds it, in run order.
    pub(super) fn cases_named(&self, name: &str) -> &[&'a CaseResult] {
        self.cases.get(name).map_or(&[], Vec::as_slice)
    }
}

/// What tells devices apart: the device UUID, else (older files) the label.
fn identity(member: &Member<'_>) -> String {
    member.run.device.uuid.clone().unwrap_or_else(|| member.label.clone())
}

/// The devices of `members`, in first-seen order, each with its runs.
pub(super) fn devices<'a>(members: &[&Member<'a>]) -> Vec<Device<'a>> {
    super::grouped(members.iter().copied(), identity)
        .into_iter()
        .map(|(_, runs)| {
            let mut cases: std::collections::HashMap<&'a str, Vec<&'a CaseResult>> = Default::default();
            for m in &runs {
                // A run that holds a name twice counts its first, as a search would.
                let mut seen = std::collections::HashSet::new();
                for c in m.run.cases.iter().filter(|c| seen.insert(c.name.as_str())) {
                    cases.entry(c.name.as_str()).or_default().push(c);
                }
            }
            Device { label: runs[0].label.clone(), runs: runs.iter().map(|m| m.run).collect(), cases }
        })
        .collect()
}

/// One device's case: its rate (the median over its runs), its noise (the largest of its runs'
/// and, with two runs or more, their spread), the spread, and its clock.
pub(super) struct Measured<'a> {
    pub(super) case: &'a CaseResult,
    pub(super) rate: f64,
    pub(super) noise: f64,
    pub(super) spread: Option<f64>,
}

/// `device`'s case `name` in the `unit` of rate, where a run of it timed the case.
pub(super) fn measured<'a>(
    device: &Device<'a>,
    name: &str,
    unit: Option<&crate::results::measure::Measure>,
) -> Option<Measured<'a>> {
    let timed: Vec<(&CaseResult, f64)> = device
        .cases
        .get(name)?
        .iter()
        .copied()
        .filter_map(|c| Some((c, c.timed_rate().filter(|r| unit.is_none_or(|u| r.unit == *u))?.value)))
        .collect();
    let (case, _) = *timed.first()?;
    let rates: Vec<f64> = timed.iter().map(|(_, r)| *r).collect();
    let rate = median(rates.iter().copied())?;
    let (low, high) = rates.iter().fold((f64::MAX, f64::MIN), |(l, h), &r| (l.min(r), h.max(r)));
    let spread = (rates.len() > 1 && rate > 0.0).then(|| (high - low) / 2.0 / rate);
    let own = timed.iter().map(|(c, _)| noise(c)).fold(0.0, f64::max);
    Some(Measured { case, rate, noise: own.max(spread.unwrap_or(0.0)), spread })
}

/// The unit of case `name`'s rate: the first device's that timed it (others are not comparable).
pub(super) fn unit_of(devices: &[Device<'_>], name: &str) -> Option<crate::results::measure::Measure> {
    devices
        .iter()
        .find_map(|d| measured(d, name, None))
        .and_then(|m| m.case.timed_rate().map(|r| r.unit.clone()))
}

/// How a fleet names the device of `run` read from `file`: `host/PCI address` where the run
/// recorded both, else the file.
pub fn label(file: &str, run: &Run) -> String {
    match (&run.host, run.device.slot()) {
        (Some(host), Some(slot)) => format!("{host}/{slot}"),
        _ => file.to_owned(),
    }
}

/// Keeps of `run` what a fleet judges (rates, their noise, clocks, per-unit rates, flags, phases,
/// who ran where), not its samples, notes, statistics or header: a folder of large runs is
/// judged in about the memory of one.
pub fn slim(run: &mut Run) {
    for case in &mut run.cases {
        if case.samples_ms.len() >= 2 {
            case.cv = Some(noise(case));
        }
        case.samples_ms = Vec::new();
        case.notes = Vec::new();
        case.shader_stats = Vec::new();
        case.rates = Vec::new();
        case.per_clock = Vec::new();
        case.remeasured = Vec::new();
        case.compiled = None;
    }
    (run.facts, run.warm_up) = (None, None);
    (run.header, run.levels) = (String::new(), Vec::new());
}
