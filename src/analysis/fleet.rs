//! `perftest fleet`: many runs of one kind of GPU, each judged against the others.
//!
//! Runs are grouped by device model, driver and settings (an H100 is never held against an H200).
//! Within a group, each case's rates across the devices give a median and a robust spread: the
//! median absolute deviation (MAD), scaled by 1.4826 to estimate a standard deviation. A device's
//! rate is an outlier when it sits beyond both the fleet's spread ([`SPREAD_K`] of those) and the
//! case's own noise (as `compare` judges a change: [`FLOOR`] or [`NOISE_FACTOR`] times its cv);
//! a case too noisy in that run ([`NOISY`]) is not judged. A case needs [`MIN_DEVICES`] devices:
//! of two, neither can be told to be the odd one. Devices are ranked by how many of their cases
//! are slow outliers, then by how far.

use serde::Serialize;

use super::trust::median_clock;
use super::verdict::{noise, FLOOR, NOISE_FACTOR, NOISY};
use crate::record::stats::{median, median_mad};
use crate::results::model::{CaseResult, Run};

/// How many scaled MADs from the median a rate must sit to be outside the fleet's spread (the
/// modified z-score's usual cut, Iglewicz and Hoaglin).
pub const SPREAD_K: f64 = 3.5;
/// The MAD of a normal distribution is this fraction of its standard deviation's inverse.
pub const MAD_SCALE: f64 = 1.4826;
/// The fewest devices with a case for it to be judged.
pub const MIN_DEVICES: usize = 3;
/// The share of its judged cases a device must be slow in to be slower than its fleet (and at
/// least [`MIN_SLOW_CASES`]): on two healthy H200s measured four times, 2 to 4 of each run's 650
/// cases sat outside the others (store cases at the L2's edge, bimodal from run to run), where a
/// GPU held back by its clock, power or memory is slow in a family or more at once
/// (results/fleet/).
pub const SLOW_SHARE: f64 = 0.05;
/// The fewest slow cases that make a device slower than its fleet.
pub const MIN_SLOW_CASES: usize = 2;

/// One device's run in a fleet, and how it is named.
#[derive(Clone, Debug)]
pub struct Member<'a> {
    /// The file or label it came from.
    pub label: String,
    /// The run.
    pub run: &'a Run,
}

/// What makes runs comparable: the same device model, driver and settings.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct GroupKey {
    /// Device name.
    pub device: String,
    /// Driver name and version.
    pub driver: String,
    /// The settings that change what is measured (the header's settings, families, filters,
    /// axes, sampling).
    pub settings: String,
}

impl GroupKey {
    /// The key of `run`.
    pub fn of(run: &Run) -> Self {
        let s = &run.settings;
        let mut settings = format!("{} ms per measurement, {} samples", s.target_ms, s.samples);
        let lists =
            [("--quick", s.quick.then(String::new)), ("--filter", s.filter.clone())].into_iter().chain(
                [("--family", &s.families), ("--skip", &s.skip), ("--axis", &s.axes)]
                    .map(|(name, list)| (name, (!list.is_empty()).then(|| list.join(",")))),
            );
        for (name, value) in lists {
            match value {
                Some(v) if v.is_empty() => settings.push_str(&format!(", {name}")),
                Some(v) => settings.push_str(&format!(", {name} {v}")),
                None => {}
            }
        }
        GroupKey { device: run.device.name.clone(), driver: run.device.driver.clone(), settings }
    }
}

/// One case of one device outside its fleet.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outlier {
    /// The device's index in its group.
    pub device: usize,
    /// The case.
    pub case: String,
    /// Its rate, and the fleet's median rate, in the case's unit.
    pub rate: f64,
    /// The fleet's median.
    pub median: f64,
    /// The unit of both.
    pub unit: String,
    /// Its rate over the median, less one (negative: slower).
    pub change: f64,
    /// How many scaled MADs from the median (infinite spread: `None`, all other devices equal).
    pub spreads: Option<f64>,
    /// The case's own noise on this device (cv).
    pub noise: f64,
    /// The clock the case ran at on this device, and the median over the fleet's devices, MHz,
    /// where known: a slow case at a low clock is a clock (power, heat) that held it back.
    pub clock_mhz: Option<(f64, f64)>,
}

/// A compute unit slower than the other units of its own device (the `units` family).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlowUnit {
    /// The device's index in its group.
    pub device: usize,
    /// The case.
    pub case: String,
    /// The unit's id.
    pub unit: u32,
    /// Its rate over its device's median unit's, less one.
    pub change: f64,
}

/// A device's standing in its group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// Its index in the group.
    pub device: usize,
    /// Its label.
    pub label: String,
    /// Cases slower than the fleet beyond both its spread and their noise.
    pub slower: usize,
    /// Cases faster likewise.
    pub faster: usize,
    /// Cases judged.
    pub judged: usize,
    /// The largest slowdown among its slow outliers (negative change), if any.
    pub worst: Option<f64>,
    /// The sum of its slow outliers' slowdowns (how far, in all).
    pub shortfall: f64,
    /// Its compute units slower than its others ([`crate::analysis::units`]), over its cases.
    pub slow_units: usize,
    /// The verdict: slow in at least [`SLOW_SHARE`] of its judged cases and [`MIN_SLOW_CASES`],
    /// or with a slow compute unit.
    pub slow: bool,
}

/// One group's verdicts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    /// What its runs share.
    pub key: GroupKey,
    /// Its devices' labels, in the order given.
    pub devices: Vec<String>,
    /// Cases with a rate on at least [`MIN_DEVICES`] devices, judged.
    pub judged: usize,
    /// Cases seen on fewer (too few to tell which device is odd).
    pub too_few: usize,
    /// The median over judged cases of the fleet's relative spread (scaled MAD over median).
    pub typical_spread: Option<f64>,
    /// Every outlier, slowest first.
    pub outliers: Vec<Outlier>,
    /// The devices, those with the most slow outliers first, then the farthest.
    pub ranking: Vec<Standing>,
    /// Compute units slower than their own device's others, slowest first.
    pub slow_units: Vec<SlowUnit>,
}

/// The fleet's verdicts: one per group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fleet {
    /// The groups, by device, driver and settings.
    pub groups: Vec<Group>,
    /// Runs that time nothing (`--verify`, `--compile-only`), which no group takes.
    pub untimed: Vec<String>,
}

impl Fleet {
    /// The devices slower than their fleet ([`Standing::slow`]), group by group.
    pub fn slow_devices(&self) -> Vec<&Standing> {
        self.groups.iter().flat_map(|g| g.ranking.iter().filter(|s| s.slow)).collect()
    }
}

/// Groups `members` (in the order their keys first appear) and judges each group.
pub fn judge(members: &[Member<'_>]) -> Fleet {
    let mut groups: Vec<(GroupKey, Vec<&Member>)> = Vec::new();
    let mut untimed = Vec::new();
    for m in members {
        if m.run.settings.verify || m.run.settings.compile_only {
            untimed.push(m.label.clone());
            continue;
        }
        let key = GroupKey::of(m.run);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, group)) => group.push(m),
            None => groups.push((key, vec![m])),
        }
    }
    let groups = groups.into_iter().map(|(key, group)| judge_group(key, &group)).collect();
    Fleet { groups, untimed }
}

/// The verdicts of one group's devices.
fn judge_group(key: GroupKey, members: &[&Member<'_>]) -> Group {
    // Case names in first-seen order.
    let mut names: Vec<&str> = Vec::new();
    for m in members {
        for c in &m.run.cases {
            if !names.contains(&c.name.as_str()) {
                names.push(&c.name);
            }
        }
    }
    let mut outliers = Vec::new();
    let (mut judged, mut too_few) = (0, 0);
    let mut spreads: Vec<f64> = Vec::new();
    let mut judged_per_device = vec![0usize; members.len()];
    for name in names {
        // Each device's timed case and its rate (in the first one's unit: others are not comparable).
        let found: Vec<(usize, &CaseResult, f64)> = members
            .iter()
            .enumerate()
            .filter_map(|(i, m)| {
                let case = m.run.cases.iter().find(|c| c.name == name)?;
                Some((i, case, case.timed_rate()?.value))
            })
            .collect();
        let Some(unit) = found.first().and_then(|(_, c, _)| c.timed_rate()).map(|r| r.unit.clone()) else {
            continue;
        };
        let found: Vec<_> =
            found.into_iter().filter(|(_, c, _)| c.timed_rate().is_some_and(|r| r.unit == unit)).collect();
        if found.len() < MIN_DEVICES {
            too_few += 1;
            continue;
        }
        let rates: Vec<f64> = found.iter().map(|(_, _, rate)| *rate).collect();
        let Some((med, mad)) = median_mad(&rates) else { continue };
        judged += 1;
        let fleet_clock = median_clock(found.iter().filter_map(|(_, c, _)| c.clock_mhz));
        let sigma = MAD_SCALE * mad;
        if med > 0.0 {
            spreads.push(sigma / med);
        }
        for &(i, case, rate) in &found {
            let own = noise(case);
            if own > NOISY {
                continue;
            }
            judged_per_device[i] += 1;
            let change = rate / med - 1.0;
            let beyond_noise = change.abs() > FLOOR.max(NOISE_FACTOR * own);
            let distance = (rate - med).abs();
            let beyond_spread = distance > SPREAD_K * sigma;
            if beyond_noise && beyond_spread {
                outliers.push(Outlier {
                    device: i,
                    case: name.to_owned(),
                    rate,
                    median: med,
                    unit: unit.to_string(),
                    change,
                    spreads: (sigma > 0.0).then(|| distance / sigma),
                    noise: own,
                    clock_mhz: case.clock_mhz.zip(fleet_clock),
                });
            }
        }
    }
    outliers.sort_by(|a, b| a.change.total_cmp(&b.change));
    let mut slow_units: Vec<SlowUnit> = Vec::new();
    for (i, m) in members.iter().enumerate() {
        for case in m.run.cases.iter().filter(|c| !c.units.is_empty()) {
            let Some(spread) = super::units::spread(case, m.run.device.compute_units) else { continue };
            slow_units.extend(spread.slow.iter().map(|u| SlowUnit {
                device: i,
                case: case.name.clone(),
                unit: u.unit,
                change: u.change,
            }));
        }
    }
    slow_units.sort_by(|a, b| a.change.total_cmp(&b.change));
    let mut ranking: Vec<Standing> = members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mine = outliers.iter().filter(|o| o.device == i);
            let slow: Vec<f64> = mine.clone().filter(|o| o.change < 0.0).map(|o| o.change).collect();
            let judged = judged_per_device[i];
            let units = slow_units.iter().filter(|u| u.device == i).count();
            Standing {
                slow: (slow.len() >= MIN_SLOW_CASES && slow.len() as f64 >= SLOW_SHARE * judged as f64)
                    || units > 0,
                slow_units: units,
                device: i,
                label: m.label.clone(),
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
        devices: members.iter().map(|m| m.label.clone()).collect(),
        judged,
        too_few,
        typical_spread,
        outliers,
        ranking,
        slow_units,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::results::model::{tests::sample_run, Amount, CaseResult};

    /// A run of `device` with 40 cases, each at its rate times `scale` and a jitter of up to
    /// 0.3% that differs per device `seed` and case (samples with a cv of about 0.05%).
    pub(crate) fn device_run(device: &str, seed: u32, scale: f64) -> Run {
        let mut run = sample_run();
        run.device.name = device.into();
        let template = run.cases[0].clone();
        run.cases = (0..40u32)
            .map(|i| {
                let jitter = 1.0 + f64::from((seed * 7919 + i * 104_729) % 61) / 60.0 * 0.006 - 0.003;
                let rate = 1e12 * f64::from(i + 1) * scale * jitter;
                CaseResult {
                    name: format!("case {i}"),
                    rate: Some(Amount { value: rate, unit: "loads/s".into() }),
                    samples_ms: vec![20.0, 20.01, 19.99, 20.0],
                    flags: Vec::new(),
                    ..template.clone()
                }
            })
            .collect();
        run
    }

    fn members(runs: &[Run]) -> Vec<Member<'_>> {
        runs.iter().enumerate().map(|(i, run)| Member { label: format!("gpu{i}"), run }).collect()
    }

    #[test]
    fn a_gpu_five_percent_slow_is_found_and_ranked_first() {
        let mut runs: Vec<Run> = (0..8).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
        runs[5] = device_run("NVIDIA H200", 5, 0.95);
        let fleet = judge(&members(&runs));
        assert_eq!(fleet.groups.len(), 1);
        let group = &fleet.groups[0];
        assert_eq!((group.judged, group.too_few), (40, 0));
        assert!(group.typical_spread.unwrap() < 0.005, "{:?}", group.typical_spread);
        assert_eq!(group.ranking[0].label, "gpu5");
        assert_eq!(group.ranking[0].slower, 40, "every case of the slow GPU");
        assert!((group.ranking[0].worst.unwrap() + 0.05).abs() < 0.005);
        assert!(group.ranking[1..].iter().all(|s| s.slower == 0 && s.faster == 0), "{:#?}", group.ranking);
        assert_eq!(fleet.slow_devices().iter().map(|s| s.label.as_str()).collect::<Vec<_>>(), ["gpu5"]);
        assert!(group.outliers.iter().all(|o| o.device == 5 && o.change < -0.04));
    }

    #[test]
    fn a_healthy_fleet_has_no_outliers_and_a_pair_cannot_be_judged() {
        let runs: Vec<Run> = (0..8).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
        let fleet = judge(&members(&runs));
        assert!(fleet.slow_devices().is_empty() && fleet.groups[0].outliers.is_empty());
        // Two devices: 5% apart, but neither can be told to be the odd one.
        let pair = [device_run("NVIDIA H200", 0, 1.0), device_run("NVIDIA H200", 1, 0.95)];
        let fleet = judge(&members(&pair));
        assert_eq!((fleet.groups[0].judged, fleet.groups[0].too_few), (0, 40));
        assert!(fleet.slow_devices().is_empty());
    }

    #[test]
    fn models_drivers_and_settings_never_mix() {
        let mut runs: Vec<Run> = (0..3).map(|i| device_run("NVIDIA H100 80GB HBM3", i, 1.0)).collect();
        runs.extend((0..3).map(|i| device_run("NVIDIA H200", i, 1.4)));
        let mut quick = device_run("NVIDIA H200", 9, 1.4);
        quick.settings.quick = true;
        runs.push(quick);
        let mut verify = device_run("NVIDIA H200", 8, 1.4);
        verify.settings.verify = true;
        runs.push(verify);
        let fleet = judge(&members(&runs));
        let devices: Vec<(&str, usize)> =
            fleet.groups.iter().map(|g| (g.key.device.as_str(), g.devices.len())).collect();
        assert_eq!(devices, [("NVIDIA H100 80GB HBM3", 3), ("NVIDIA H200", 3), ("NVIDIA H200", 1)]);
        assert_eq!(fleet.untimed, ["gpu7"]);
        assert!(fleet.slow_devices().is_empty(), "the H200's higher rates are not an H100's outliers");
    }

    #[test]
    fn a_noisy_case_is_not_judged_and_a_small_difference_is_within_the_floor() {
        let mut runs: Vec<Run> = (0..6).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
        // Case 0 of device 2: 20% slow but its samples swing by 10%; case 1: 0.8% slow and steady.
        runs[2].cases[0].rate.as_mut().unwrap().value *= 0.8;
        runs[2].cases[0].samples_ms = vec![20.0, 22.0, 18.0, 20.0];
        runs[2].cases[1].rate.as_mut().unwrap().value *= 0.992;
        let group = &judge(&members(&runs)).groups[0];
        assert!(group.outliers.is_empty(), "{:#?}", group.outliers);
        assert_eq!(group.ranking.iter().find(|s| s.device == 2).unwrap().judged, 39);
    }

    #[test]
    fn one_slow_case_is_an_outlier_not_a_slow_device() {
        // Case 3 of device 1, 10% slow: listed, but 1 of 40 cases is no verdict on the device;
        // slow in 2 of 40 (5%) it is.
        let mut runs: Vec<Run> = (0..6).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
        runs[1].cases[3].rate.as_mut().unwrap().value *= 0.9;
        let fleet = judge(&members(&runs));
        assert_eq!(fleet.groups[0].outliers.len(), 1);
        assert!(fleet.slow_devices().is_empty());
        runs[1].cases[4].rate.as_mut().unwrap().value *= 0.9;
        let fleet = judge(&members(&runs));
        assert_eq!(fleet.slow_devices().len(), 1);
    }

    #[test]
    fn one_slow_sm_makes_its_gpu_slower_than_its_fleet() {
        let mut runs: Vec<Run> = (0..4).map(|i| device_run("NVIDIA H100 80GB HBM3", i, 1.0)).collect();
        for (i, run) in runs.iter_mut().enumerate() {
            let by = if i == 2 { 0.05 } else { 0.0 };
            run.cases[0].units = crate::analysis::units::tests::units(41, by);
            run.device.compute_units = Some(132);
        }
        let fleet = judge(&members(&runs));
        let group = &fleet.groups[0];
        assert!(group.outliers.is_empty(), "the GPU's own rates are the fleet's");
        assert_eq!(group.slow_units.len(), 1);
        assert_eq!((group.slow_units[0].device, group.slow_units[0].unit), (2, 41));
        assert_eq!(fleet.slow_devices().iter().map(|s| s.label.as_str()).collect::<Vec<_>>(), ["gpu2"]);
    }
}
