//! Judging a finished case: its [`Outcome`] and the device's [`Trust`] facts in, its record out
//! (the status and reason, the numbers with their units, rates per clock per compute unit, the
//! share of a peak and the flags known when it finished).

use crate::results::measure::Measure;
use std::collections::BTreeMap;

use super::trust::Trust;
use crate::record::outcome::Outcome;
use crate::registry::CaseSpec;
use crate::results::model::{Amount, CaseResult, Dispatch, Status};

impl CaseResult {
    /// The record of a finished case, judged with `trust`, whose ratio (if any) is against
    /// `baseline` (throttle flags come later, from the whole run's median clock:
    /// [`Run::flag_throttled`](crate::results::model::Run::flag_throttled); so does the final word on the baseline: [`Run::flag_baselines`](crate::results::model::Run::flag_baselines)).
    pub fn new(case: &CaseSpec, outcome: &Outcome, trust: &Trust, baseline: Option<&Outcome>) -> Self {
        let record = CaseResult::of(&case.name, outcome, trust, baseline);
        CaseResult {
            family: case.family.to_owned(),
            group: case.group.clone(),
            variant: case.variant.clone(),
            axes: case.axes.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
            labels: case.labels.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect(),
            baseline: record.ratio.and(case.baseline.clone()),
            ..record
        }
    }

    /// The record of case `name` (no family, group, variant, axes or baseline name) that ended
    /// as `outcome`; see [`CaseResult::new`].
    pub fn of(name: &str, outcome: &Outcome, trust: &Trust, baseline: Option<&Outcome>) -> Self {
        let mut record = CaseResult {
            name: name.to_owned(),
            family: String::new(),
            group: String::new(),
            variant: String::new(),
            axes: BTreeMap::new(),
            labels: BTreeMap::new(),
            status: Status::Ok,
            checked: None,
            executables: None,
            reason: None,
            median_ms: None,
            min_ms: None,
            cv: None,
            samples_ms: Vec::new(),
            warmup_runs: None,
            dispatch: None,
            original_time: false,
            shader_stats: Vec::new(),
            compiled: None,
            work: None,
            rate: None,
            rates: Vec::new(),
            ratio: None,
            baseline: None,
            remeasured: Vec::new(),
            clock_mhz: None,
            clock: None,
            per_clock: Vec::new(),
            shader_clocked: false,
            units: Vec::new(),
            faults: None,
            peak_percent: None,
            peak: None,
            flags: Vec::new(),
            notes: Vec::new(),
            phases: None,
            energy: None,
        };
        match outcome {
            Outcome::Skipped(reason) => {
                record.status = Status::Skipped;
                record.reason = Some(reason.clone());
            }
            Outcome::Verified { checked } => {
                (record.status, record.checked) = (Status::Verified, Some(*checked as u64));
            }
            Outcome::Compiled { executables } => {
                (record.status, record.executables) = (Status::Compiled, executables.map(|n| n as u64));
            }
            Outcome::Failed { failure, detail } => {
                record.status = Status::of(*failure);
                record.reason = Some(detail.clone());
            }
            Outcome::Timed { measurement, work, ratio, with_time, counted } => {
                let s = &measurement.summary;
                record.dispatch = Some(Dispatch { count: measurement.groups, counted: *counted });
                record.original_time = *with_time;
                (record.median_ms, record.min_ms, record.cv) = (Some(s.median), Some(s.min), Some(s.cv));
                record.samples_ms = measurement.samples.clone();
                record.warmup_runs = Some(measurement.warmup_runs);
                if let Some((amount, w)) = work.first() {
                    record.work = Some(Amount { value: *amount, unit: Measure::Total(w.unit) });
                }
                record.rates = outcome
                    .rates()
                    .into_iter()
                    .map(|(rate, w)| Amount { value: rate, unit: Measure::PerSecond(w.unit) })
                    .collect();
                record.rate = record.rates.first().cloned();
                record.ratio = *ratio;
                record.remeasured = measurement.retries.clone();
                let judged = trust.judge(outcome);
                record.clock_mhz = judged.clock_mhz;
                record.clock = measurement.clock_read();
                record.per_clock = judged
                    .per_clock
                    .iter()
                    .map(|(value, unit)| Amount { value: *value, unit: unit.clone() })
                    .collect();
                record.shader_clocked = judged.shader_clocked;
                record.units = judged
                    .units
                    .iter()
                    .map(|&(unit, groups, per_clock)| crate::results::model::UnitRate {
                        unit,
                        groups,
                        per_clock,
                    })
                    .collect();
                record.faults = measurement.shader.faults.clone();
                record.peak_percent = judged.peak.as_ref().map(|p| p.percent);
                record.peak = judged.peak.as_ref().map(|p| p.peak.clone());
                record.flags = trust.flags(outcome, &judged, baseline);
            }
        }
        record
    }
}
