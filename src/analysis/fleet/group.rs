//! One group's verdicts: its devices (runs of one GPU are one), each case's median and spread
//! across them, the outliers, the slow compute units, the devices it cannot judge, the ranking.

use super::{
    Group, GroupKey, Hungry, Member, Outlier, SlowUnit, Standing, Unjudged, ENERGY_MARGIN, MAD_SCALE,
    MIN_DEVICES, MIN_SLOW_CASES, SLOW_SHARE, SPREAD_K,
};
use crate::analysis::trust::median_clock;
use crate::analysis::verdict::{noise, FLOOR, NOISE_FACTOR, NOISY};
use crate::record::stats::{median, median_mad};
use crate::results::model::{CaseResult, Run};

/// One device of a group: its label and its runs (one GPU measured more than once is one device).
struct Device<'a> {
    label: String,
    runs: Vec<&'a Run>,
}

/// What tells devices apart: the device UUID, else (older files) the label.
fn identity(member: &Member<'_>) -> String {
    member.run.device.uuid.clone().unwrap_or_else(|| member.label.clone())
}

/// The devices of `members`, in first-seen order, each with its runs.
fn devices<'a>(members: &[&Member<'a>]) -> Vec<Device<'a>> {
    let mut seen: Vec<(String, Device<'a>)> = Vec::new();
    for m in members {
        let id = identity(m);
        match seen.iter_mut().find(|(known, _)| *known == id) {
            Some((_, device)) => device.runs.push(m.run),
            None => seen.push((id, Device { label: m.label.clone(), runs: vec![m.run] })),
        }
    }
    seen.into_iter().map(|(_, device)| device).collect()
}

/// One device's case: its rate (the median over its runs), its noise (the largest of its runs'
/// and, with two runs or more, their spread), the spread, and its clock.
struct Measured<'a> {
    case: &'a CaseResult,
    rate: f64,
    noise: f64,
    spread: Option<f64>,
}

/// `device`'s case `name` in the `unit` of rate, where a run of it timed the case.
fn measured<'a>(
    device: &Device<'a>,
    name: &str,
    unit: Option<&crate::results::measure::Measure>,
) -> Option<Measured<'a>> {
    let timed: Vec<(&CaseResult, f64)> = device
        .runs
        .iter()
        .filter_map(|run| run.cases.iter().find(|c| c.name == name))
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

/// Why `device` has nothing to judge, if it has nothing: no case timed in any run, or every
/// timed case too noisy.
fn unjudgeable(device: &Device<'_>) -> Option<String> {
    let cases = device.runs.iter().flat_map(|r| r.cases.iter());
    let timed: Vec<&CaseResult> = cases.filter(|c| c.timed_rate().is_some()).collect();
    if timed.is_empty() {
        let selected: usize = device.runs.iter().map(|r| r.cases.len() + r.not_run.len()).max().unwrap_or(0);
        let ending = device.runs.iter().find_map(|r| r.ending.message.clone());
        let why = ending.map_or(String::new(), |m| format!("; the run ended: {m}"));
        return Some(format!(
            "no case was timed ({selected} selected: each failed, hung, was skipped or did not run{why})"
        ));
    }
    timed.iter().all(|c| noise(c) > NOISY).then(|| {
        format!(
            "every one of its {} timed cases was too noisy to judge (cv above {:.0}%)",
            timed.len(),
            NOISY * 100.0
        )
    })
}

/// The verdicts of one group's devices.
pub(super) fn judge_group(key: GroupKey, members: &[&Member<'_>]) -> Group {
    let devices = devices(members);
    // Case names in first-seen order.
    let mut names: Vec<&str> = Vec::new();
    for m in members {
        for c in &m.run.cases {
            if !names.contains(&c.name.as_str()) {
                names.push(&c.name);
            }
        }
    }
    let hungry = hungry(&devices, &names);
    let mut outliers = Vec::new();
    let (mut judged, mut too_few) = (0, 0);
    let mut spreads: Vec<f64> = Vec::new();
    let mut judged_per_device = vec![0usize; devices.len()];
    let mut run_spreads: Vec<Vec<f64>> = vec![Vec::new(); devices.len()];
    for name in names {
        // Each device's timed case and its rate (in the first one's unit: others are not comparable).
        let Some(unit) = devices
            .iter()
            .find_map(|d| measured(d, name, None))
            .and_then(|m| m.case.timed_rate().map(|r| r.unit.clone()))
        else {
            continue;
        };
        let found: Vec<(usize, Measured)> = devices
            .iter()
            .enumerate()
            .filter_map(|(i, d)| Some((i, measured(d, name, Some(&unit))?)))
            .collect();
        for (i, m) in &found {
            run_spreads[*i].extend(m.spread);
        }
        if found.len() < MIN_DEVICES {
            too_few += 1;
            continue;
        }
        let rates: Vec<f64> = found.iter().map(|(_, m)| m.rate).collect();
        let Some((med, mad)) = median_mad(&rates) else { continue };
        judged += 1;
        let fleet_clock = median_clock(found.iter().filter_map(|(_, m)| m.case.clock_mhz));
        let sigma = MAD_SCALE * mad;
        if med > 0.0 {
            spreads.push(sigma / med);
        }
        for (i, m) in &found {
            if m.noise > NOISY {
                continue;
            }
            judged_per_device[*i] += 1;
            let change = m.rate / med - 1.0;
            let beyond_noise = change.abs() > FLOOR.max(NOISE_FACTOR * m.noise);
            let distance = (m.rate - med).abs();
            let beyond_spread = distance > SPREAD_K * sigma;
            if beyond_noise && beyond_spread {
                outliers.push(Outlier {
                    device: *i,
                    case: name.to_owned(),
                    rate: m.rate,
                    median: med,
                    unit: unit.to_string(),
                    change,
                    spreads: (sigma > 0.0).then(|| distance / sigma),
                    noise: m.noise,
                    clock_mhz: m.case.clock_mhz.zip(fleet_clock),
                });
            }
        }
    }
    outliers.sort_by(|a, b| a.change.total_cmp(&b.change));
    let mut slow_units: Vec<SlowUnit> = Vec::new();
    for (i, d) in devices.iter().enumerate() {
        // A unit slow in any of its runs counts (the units family compares it within its own GPU).
        for run in &d.runs {
            for case in run.cases.iter().filter(|c| !c.units.is_empty()) {
                let Some(spread) = crate::analysis::units::spread(case, run.device.compute_units) else {
                    continue;
                };
                for u in &spread.slow {
                    if !slow_units.iter().any(|s| s.device == i && s.case == case.name && s.unit == u.unit) {
                        slow_units.push(SlowUnit {
                            device: i,
                            case: case.name.clone(),
                            unit: u.unit,
                            change: u.change,
                        });
                    }
                }
            }
        }
    }
    slow_units.sort_by(|a, b| a.change.total_cmp(&b.change));
    let unjudged: Vec<Unjudged> = devices
        .iter()
        .enumerate()
        .filter_map(|(i, d)| Some(Unjudged { device: i, why: unjudgeable(d)? }))
        .collect();
    let mut ranking: Vec<Standing> = devices
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let mine = outliers.iter().filter(|o| o.device == i);
            let slow: Vec<f64> = mine.clone().filter(|o| o.change < 0.0).map(|o| o.change).collect();
            let judged = judged_per_device[i];
            let units = slow_units.iter().filter(|u| u.device == i).count();
            Standing {
                slow: (slow.len() >= MIN_SLOW_CASES && slow.len() as f64 >= SLOW_SHARE * judged as f64)
                    || units > 0,
                slow_units: units,
                device: i,
                label: d.label.clone(),
                runs: d.runs.len(),
                run_spread: median(run_spreads[i].iter().copied()),
                slower: slow.len(),
                faster: mine.filter(|o| o.change > 0.0).count(),
                judged,
                worst: slow.iter().copied().reduce(f64::min),
                shortfall: slow.iter().map(|c| -c).sum(),
            }
        })
        .collect();
    ranking.sort_by(|a, b| b.slower.cmp(&a.slower).then(b.shortfall.total_cmp(&a.shortfall)));
    let typical_spread = median(spreads);
    Group {
        key,
        devices: devices.iter().map(|d| d.label.clone()).collect(),
        unjudged,
        judged,
        too_few,
        typical_spread,
        outliers,
        ranking,
        slow_units,
        hungry,
    }
}

/// `device`'s board energy per unit of case `name` (the median over its runs), with its unit.
fn energy(device: &Device<'_>, name: &str) -> Option<(f64, String)> {
    let each: Vec<(f64, String)> = device
        .runs
        .iter()
        .filter_map(|run| run.cases.iter().find(|c| c.name == name && c.timed_rate().is_some()))
        .filter_map(|c| c.energy.as_ref()?.first().map(|a| (a.value, a.unit.to_string())))
        .collect();
    let unit = each.first()?.1.clone();
    Some((median(each.iter().filter(|(_, u)| *u == unit).map(|(v, _)| *v))?, unit))
}

/// The cases whose work cost a device [`ENERGY_MARGIN`] more energy than the group's median and
/// beyond [`SPREAD_K`] of its spread, on cases at least [`MIN_DEVICES`] devices measured.
fn hungry(devices: &[Device<'_>], names: &[&str]) -> Vec<Hungry> {
    let mut found = Vec::new();
    for name in names {
        let each: Vec<(usize, f64, String)> = devices
            .iter()
            .enumerate()
            .filter_map(|(i, d)| energy(d, name).map(|(pj, unit)| (i, pj, unit)))
            .collect();
        let Some((_, _, unit)) = each.first() else { continue };
        let same: Vec<&(usize, f64, String)> = each.iter().filter(|(_, _, u)| u == unit).collect();
        if same.len() < MIN_DEVICES {
            continue;
        }
        let values: Vec<f64> = same.iter().map(|(_, pj, _)| *pj).collect();
        let Some((med, mad)) = median_mad(&values) else { continue };
        for (i, pj, unit) in same {
            let change = pj / med - 1.0;
            if change >= ENERGY_MARGIN && pj - med > SPREAD_K * MAD_SCALE * mad {
                found.push(Hungry {
                    device: *i,
                    case: (*name).to_owned(),
                    picojoules: *pj,
                    median: med,
                    unit: unit.clone(),
                    change,
                });
            }
        }
    }
    found.sort_by(|a, b| b.change.total_cmp(&a.change));
    found
}
