//! One group's verdicts: its devices (runs of one GPU are one), each case's median and spread
//! across them, the outliers, the slow compute units, the devices it cannot judge, the ranking.

use super::device::{devices, measured, unit_of, Device, Measured};
use super::effect::{self, Effect, Point};
use super::reference::Model;
use super::{
    Against, Group, GroupKey, Hungry, Member, Outlier, SlowUnit, Standing, State, Unjudged, ENERGY_MARGIN,
    MAD_SCALE, MIN_DEVICES, SPREAD_K,
};
use crate::analysis::trust::median_clock;
use crate::analysis::verdict::{noise, FLOOR, NOISE_FACTOR, NOISY};
use crate::record::stats::{median, median_mad};
use crate::results::model::CaseResult;

/// Why `device` has nothing to judge, if it has nothing: no case timed in any run, or every
/// timed case too noisy.
fn unjudgeable(device: &Device<'_>) -> Option<(String, bool)> {
    let cases = device.runs.iter().flat_map(|r| r.cases.iter());
    let timed: Vec<&CaseResult> = cases.filter(|c| c.timed_rate().is_some()).collect();
    if timed.is_empty() {
        let selected: usize = device.runs.iter().map(|r| r.cases.len() + r.not_run.len()).max().unwrap_or(0);
        let ending = device.runs.iter().find_map(|r| r.ending.message.clone());
        let why = ending.map_or(String::new(), |m| format!("; the run ended: {m}"));
        return Some((
            format!(
                "no case was timed ({selected} selected: each failed, hung, was skipped or did not run{why})"
            ),
            true,
        ));
    }
    timed.iter().all(|c| noise(c) > NOISY).then(|| {
        let why = format!(
            "every one of its {} timed cases was too noisy to judge (cv above {:.0}%): measure it again on \
             a quiet machine",
            timed.len(),
            NOISY * 100.0
        );
        (why, false)
    })
}

/// The verdicts of one group's devices, each case held against its siblings' median and spread,
/// or against `model`'s where a reference is given (a case the reference lacks is not judged).
pub(super) fn judge_group(
    key: GroupKey,
    members: &[&Member<'_>],
    model: Option<&Model>,
    tolerance: f64,
) -> Group {
    let devices = devices(members);
    // Case names in first-seen order.
    let names = super::case_names(members);
    let hungry = hungry(&devices, &names);
    let mut outliers = Vec::new();
    let (mut judged, mut too_few) = (0, 0);
    let mut spreads: Vec<f64> = Vec::new();
    let mut judged_per_device = vec![0usize; devices.len()];
    // Per device, its timed cases that the reference holds (with a reference).
    let mut in_reference = vec![0usize; devices.len()];
    let mut run_spreads: Vec<Vec<f64>> = vec![Vec::new(); devices.len()];
    // Per device, its judged cases as effects read them.
    let mut points: Vec<Vec<Point<'_>>> = vec![Vec::new(); devices.len()];
    let mut medians = std::collections::BTreeMap::new();
    let mut heavy_cases = Vec::new();
    for name in names {
        // Each device's timed case and its rate (in the first one's unit: others are not comparable).
        let Some(unit) = unit_of(&devices, name) else { continue };
        let found: Vec<(usize, Measured)> = devices
            .iter()
            .enumerate()
            .filter_map(|(i, d)| Some((i, measured(d, name, Some(&unit))?)))
            .collect();
        for (i, m) in &found {
            run_spreads[*i].extend(m.spread);
        }
        let expected = model.map(|m| m.case(name).filter(|e| e.unit == unit.to_string()));
        if let Some(Some(_)) = expected {
            for (i, _) in &found {
                in_reference[*i] += 1;
            }
        }
        // A heavy-tailed case: healthy runs of it stray past the tolerance (the reference saw
        // one, or more than one device of this screen sits there). It weighs in an effect only
        // by as far as a device sits beyond that tail (farther than any healthy run strayed).
        let (heavy, tail);
        let (med, sigma, fleet_clock) = match expected {
            Some(Some(e)) if !found.is_empty() => {
                tail = e.tail.unwrap_or(0.0);
                heavy = tail > tolerance;
                (e.median, e.spread, None)
            }
            None if found.len() >= MIN_DEVICES => {
                let rates: Vec<f64> = found.iter().map(|(_, m)| m.rate).collect();
                let Some((med, mad)) = median_mad(&rates) else { continue };
                let clock = median_clock(found.iter().filter_map(|(_, m)| m.case.clock_mhz));
                let mut strays: Vec<f64> = rates.iter().map(|r| (r / med - 1.0).abs()).collect();
                strays.sort_by(|a, b| b.total_cmp(a));
                let astray = strays.iter().filter(|d| **d > tolerance).count();
                heavy = astray > 1 && astray as f64 > effect::HEAVY * rates.len() as f64;
                // The tail without the farthest device, which may be the slow one.
                tail = strays.get(1).copied().unwrap_or(0.0);
                (med, MAD_SCALE * mad, clock)
            }
            _ => {
                too_few += 1;
                continue;
            }
        };
        judged += 1;
        medians.insert(name.to_owned(), med);
        if heavy {
            heavy_cases.push(name.to_owned());
        }
        if med > 0.0 {
            spreads.push(sigma / med);
        }
        for (i, m) in &found {
            let change = m.rate / med - 1.0;
            let beyond_noise = change.abs() > FLOOR.max(NOISE_FACTOR * m.noise);
            let distance = (m.rate - med).abs();
            let beyond_spread = distance > SPREAD_K * sigma;
            let noisy = m.noise > NOISY;
            // Every case is a point of its device's effects; a heavy-tailed one only by as far as
            // it sits beyond its tail, so that a healthy device's reads as no change and a family
            // 10% slow still reads so. A case too noisy (its samples' cv) counts its rate, the
            // median of those samples: one wild case moves no median. Its spread is that noise
            // among siblings, who cannot know how far a healthy run of it strays; a reference
            // knows (its tail, from healthy runs noisy or not), so there the spread is its own.
            if med > 0.0 {
                let allowance = if heavy { tail } else { 0.0 };
                let own_noise = if noisy && model.is_some() { 0.0 } else { m.noise };
                let spread = (sigma / med).max(own_noise);
                points[*i].push(Point {
                    family: &m.case.family,
                    change: effect::beyond(change, allowance),
                    spread,
                });
            }
            // A case too noisy to vouch for its GPU still counts against it where it is slow
            // beyond three times that noise: a slowdown the noise cannot explain is evidence
            // (as a confirmation judges it, `analysis::confirm::rejudge`); health is not.
            if noisy && !(change < 0.0 && beyond_noise && beyond_spread) {
                continue;
            }
            judged_per_device[*i] += 1;
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
    let mut effects: Vec<Vec<Effect>> = points.iter().map(|p| effect::effects(p)).collect();
    if model.is_none() {
        widen_by_siblings(&mut effects);
    }
    let unjudged: Vec<Unjudged> = devices
        .iter()
        .enumerate()
        .filter_map(|(i, d)| {
            // Against a reference, a device must be judged in half its cases the reference holds:
            // one case judged of many (the others too noisy) is no health.
            let (judged, held) = (judged_per_device[i], in_reference[i]);
            let unmatched = match held {
                0 => "the reference holds none of its timed cases (renamed, or in another unit): make it again \
                      from a healthy screen (perftest fleet --write-reference)"
                    .to_owned(),
                _ => format!(
                    "only {judged} of its {held} cases in the reference could be judged (the others too noisy, cv \
                     above {:.0}%): measure it again on a quiet machine",
                    NOISY * 100.0
                ),
            };
            let short = model.is_some() && judged * 2 < held.max(1);
            // Per-unit rates (the units family) are judged within their own GPU: a GPU alone whose
            // runs time nothing else is judged; one with other cases is not, whatever its units.
            let within = d.runs.iter().all(|r| {
                r.cases.iter().filter(|c| c.timed_rate().is_some()).all(|c| !c.units.is_empty())
            });
            let alone = (model.is_none() && devices.len() < MIN_DEVICES && !within).then(|| {
                let why = format!(
                    "only {} of this model, driver and settings: fewer than {MIN_DEVICES} cannot tell which \
                     is odd; judge it against a reference (--reference) or with more of its siblings",
                    crate::format::count(devices.len(), "device")
                );
                (why, false)
            });
            let nothing = unjudgeable(d);
            let lacks_siblings = nothing.is_none() && alone.is_some();
            // A reference without its cases is the cause, whatever their noise; nothing timed
            // comes first (a broken GPU).
            let lacks = (model.is_some() && held == 0).then(|| (unmatched.clone(), false));
            let (why, broken) = match nothing {
                Some((why, true)) => Some((why, true)),
                noise => lacks.or(noise),
            }
            .or(alone)
            .or(short.then_some((unmatched, false)))
            .or_else(|| undecided(&effects[i], model.is_some(), tolerance))?;
            Some(Unjudged { device: i, why, broken, alone: lacks_siblings })
        })
        .collect();
    let mut ranking: Vec<Standing> = devices
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let mine = outliers.iter().filter(|o| o.device == i);
            let slow: Vec<f64> = mine.clone().filter(|o| o.change < 0.0).map(|o| o.change).collect();
            let judged = judged_per_device[i];
            let units = slow_units.iter().filter(|u| u.device == i).count();
            let effects = std::mem::take(&mut effects[i]);
            let faster = mine.filter(|o| o.change > 0.0).count();
            let size = effect::size(&effects, tolerance).cloned();
            let unresolved = effects.iter().filter(|e| e.unresolved(tolerance)).cloned().collect();
            let state = if units > 0 || size.as_ref().is_some_and(|e| e.slow(tolerance)) {
                State::Slow
            } else if size.is_some() {
                // Scattered cases outside the fleet alone are listed, not a verdict: every
                // healthy GPU of a full screen has a few (host links, long pointer chases).
                State::Differs
            } else {
                State::Healthy
            };
            Standing {
                slow: state == State::Slow,
                state,
                size,
                effects,
                unresolved,
                slow_units: units,
                device: i,
                label: d.label.clone(),
                runs: d.runs.len(),
                run_spread: median(run_spreads[i].iter().copied()),
                slower: slow.len(),
                faster,
                judged,
                worst: slow.iter().copied().reduce(f64::min),
                shortfall: slow.iter().map(|c| -c).sum(),
            }
        })
        .collect();
    ranking.sort_by(|a, b| {
        (b.state as u8)
            .cmp(&(a.state as u8))
            .then(b.slower.cmp(&a.slower))
            .then(b.shortfall.total_cmp(&a.shortfall))
    });
    let typical_spread = median(spreads);
    Group {
        tolerance,
        reference: model.map(|m| Against {
            made: m.dates.1.clone(),
            driver: m.key.driver.clone(),
            devices: m.devices.len(),
            runs: m.runs,
        }),
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
        same_bits: Vec::new(),
        medians,
        heavy: heavy_cases,
    }
}

/// `device`'s board energy per unit of case `name` (the median over its runs), with its unit.
fn energy(device: &Device<'_>, name: &str) -> Option<(f64, String)> {
    let each: Vec<(f64, String)> = device
        .cases_named(name)
        .iter()
        .filter(|c| c.timed_rate().is_some())
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

/// Among siblings, each effect's uncertainty at least the spread of that family's effects across
/// the group's devices (a scaled MAD, with [`MIN_SIBLINGS`] devices or more): noise that moves a
/// whole family in one run (a host link, a clock step) is the group's, and no GPU's.
fn widen_by_siblings(effects: &mut [Vec<Effect>]) {
    if effects.len() < MIN_SIBLINGS {
        return;
    }
    let mut changes: std::collections::BTreeMap<Option<&str>, Vec<f64>> = Default::default();
    for e in effects.iter().flatten() {
        changes.entry(e.family.as_deref()).or_default().push(e.change);
    }
    let widest: Vec<(Option<String>, f64)> = changes
        .into_iter()
        .filter(|(_, changes)| changes.len() >= MIN_SIBLINGS)
        .filter_map(|(family, changes)| {
            Some((family.map(str::to_owned), MAD_SCALE * median_mad(&changes)?.1))
        })
        .collect();
    for e in effects.iter_mut().flatten() {
        if let Some((_, spread)) = widest.iter().find(|(family, _)| *family == e.family) {
            e.uncertainty = e.uncertainty.max(*spread);
        }
    }
}

/// Why a device whose effect over every case can neither show nor rule out a slowdown past
/// `tolerance` cannot be judged ([`Effect::undecided`]): its few cases, or their spread (its own
/// noise, the reference's or its siblings'), too wide for the tolerance. Never a pass.
fn undecided(effects: &[Effect], reference: bool, tolerance: f64) -> Option<(String, bool)> {
    let whole = effects.iter().find(|e| e.family.is_none() && e.undecided(tolerance))?;
    let (against, remedy) = match reference {
        true => ("the reference", "or make the reference from more runs"),
        false => ("its siblings", "or screen more of its siblings"),
    };
    let why = format!(
        "a slowdown past the {:.1}% tolerance can be neither found nor ruled out: its {} read {:+.1}% ± \
         {:.2}% against {against} (their spread, or its own noise, too wide): measure it again on a quiet \
         machine, {remedy}",
        tolerance * 100.0,
        crate::format::count(whole.cases, "case"),
        whole.change * 100.0,
        whole.uncertainty * 100.0,
    );
    Some((why, false))
}

/// The fewest devices whose effects' spread widens an effect's uncertainty.
const MIN_SIBLINGS: usize = 5;
