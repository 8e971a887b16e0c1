//! `perftest history`: runs of the same GPUs across time. Per device (its UUID; a file before
//! UUIDs were kept counts as its model's) and settings, each case's rates in date order are a
//! series, and its change points are found by e-divisive means as Apache Otava runs it
//! ([`changes`]). A change is confirmed by the runs after it ([`CONFIRM_RUNS`]); driver changes
//! between runs are marked beside them. Wrong bits (the `sdc` family's mismatches) are kept per
//! run and never cleared by a clean run after them: the history says both.

use serde::Serialize;

use crate::analysis::fleet::{grouped, GroupKey};
use crate::record::stats::median;
use crate::results::model::Run;

pub mod changes;
pub mod trend;

/// The fewest runs of a case to look for a change in (the t-test needs two on each side).
pub const MIN_RUNS: usize = 5;
/// The runs after a change that confirm it (fewer: a change to measure again).
pub const CONFIRM_RUNS: usize = 3;
/// Changes smaller than this are not reported, however significant: `compare`'s floor
/// ([`FLOOR`](super::verdict::FLOOR)).
pub const MIN_CHANGE: f64 = super::verdict::FLOOR;

/// The options the series are tested with: Otava's window and p-value, the floor above.
pub fn options() -> changes::Options {
    changes::Options { min_magnitude: MIN_CHANGE, ..changes::Options::default() }
}

/// The driver changed between two runs of a device.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DriverChange {
    /// The first run on the new driver (an index into [`Device::dates`]).
    pub run: usize,
    /// The driver before.
    pub from: String,
    /// The driver from then on.
    pub to: String,
}

/// A change in one case's rate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// The case.
    pub case: String,
    /// The unit of its rate.
    pub unit: String,
    /// The first run at the new level (an index into [`Device::dates`]).
    pub run: usize,
    /// The mean rate before (since the previous change) and after (to the next).
    pub before: f64,
    /// See `before`.
    pub after: f64,
    /// `after / before - 1`.
    pub change: f64,
    /// The t-test's two-sided p.
    pub p: f64,
    /// The runs of the case at the new level: from the change to the next one, or the last run.
    pub runs_after: usize,
    /// Whether [`CONFIRM_RUNS`] runs or more are at the new level.
    pub confirmed: bool,
    /// The driver the change came with, where the driver changed at that run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
}

/// A run in which a self-checking case found wrong bits (silent data corruption).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WrongBits {
    /// The run (an index into [`Device::dates`]).
    pub run: usize,
    /// The case.
    pub case: String,
    /// Results that differed, of those checked.
    pub mismatches: u64,
    /// See `mismatches`.
    pub checked: u64,
    /// The compute units its records name (empty where the device names none).
    pub units: Vec<u32>,
}

/// One case's series, for a chart: (run index, rate).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    /// The case.
    pub case: String,
    /// The unit.
    pub unit: String,
    /// Its rates, each at its run's index into [`Device::dates`].
    pub points: Vec<(usize, f64)>,
}

/// How far a case slid over a device's runs where no change point was found in it, and the
/// slide is a trend beyond chance (Mann-Kendall, [`trend`]): a drift, which a step test does
/// not name.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Drift {
    /// The case.
    pub case: String,
    /// Its Theil-Sen slope from the first run to the last, as a fraction of its median rate.
    pub change: f64,
}

/// The most drifts a device keeps (the largest), and draws where it has no change.
pub const DRIFTS: usize = 7;

/// One device's history under one set of settings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Device {
    /// The device model.
    pub model: String,
    /// Its UUID; none in files before perftest kept it, whose runs are of any GPU of the model.
    pub uuid: Option<String>,
    /// The settings its runs share.
    pub settings: String,
    /// Each run's date, in order.
    pub dates: Vec<String>,
    /// The hosts its runs were made on.
    pub hosts: Vec<String>,
    /// Driver changes between its runs.
    pub drivers: Vec<DriverChange>,
    /// Cases with [`MIN_RUNS`] runs or more, tested.
    pub tested: usize,
    /// Cases with fewer.
    pub short: usize,
    /// Every change found, the largest first.
    pub changes: Vec<Change>,
    /// The cases that drifted most without a change point, the largest first (at most
    /// [`DRIFTS`]).
    pub drifts: Vec<Drift>,
    /// The series of the cases that changed, and of the drifts, for the chart.
    pub series: Vec<Series>,
    /// Every run's wrong bits, in run order: a later clean run does not clear them.
    pub wrong_bits: Vec<WrongBits>,
    /// The runs after the last wrong bits whose self-checking cases found none (0 with none).
    pub clean_since: usize,
}

impl Device {
    /// How many of its runs computed wrong bits (a run with several such cases counts once).
    pub fn wrong_bit_runs(&self) -> usize {
        self.wrong_bits.iter().map(|w| w.run).collect::<std::collections::BTreeSet<_>>().len()
    }

    /// The units named by wrong bits in two runs or more: a fault seen again, confirmed.
    pub fn units_seen_again(&self) -> Vec<u32> {
        let mut runs_of: std::collections::BTreeMap<u32, std::collections::BTreeSet<usize>> =
            Default::default();
        for w in &self.wrong_bits {
            for &unit in &w.units {
                runs_of.entry(unit).or_default().insert(w.run);
            }
        }
        runs_of.into_iter().filter(|(_, runs)| runs.len() > 1).map(|(unit, _)| unit).collect()
    }
}

impl Device {
    /// How the device is named: its UUID, else its model's name with why.
    pub fn name(&self) -> String {
        match &self.uuid {
            Some(uuid) => format!("{} {uuid}", self.model),
            None => format!("{} (no UUID: any GPU of the model)", self.model),
        }
    }
}

/// One run as a history keeps it: its device, settings, date, driver and host, and each timed
/// case's rate (its case and unit as indices into [`Runs`]' tables): a full run of 1,500 cases
/// is some 25 KB here against megabytes as a file.
#[derive(Clone, Debug)]
struct Kept {
    uuid: Option<String>,
    /// Its device and settings (the driver left out: it changes along a history).
    key: GroupKey,
    date: String,
    driver: String,
    host: Option<String>,
    /// (case, unit, rate) of each timed case.
    rates: Vec<(u32, u32, f64)>,
    /// Of its self-checking cases (none: it ran none): each that found wrong bits, with the
    /// mismatches, the results checked and the units named.
    checks: Option<Vec<Wrong>>,
}

/// A case of a run that found wrong bits: (case, mismatches, results checked, units named).
type Wrong = (u32, u64, u64, Vec<u32>);

/// The runs of a history, each kept as its rates as it is read (one file in memory at a time):
/// memory grows with the series, not the files.
#[derive(Clone, Debug, Default)]
pub struct Runs {
    kept: Vec<Kept>,
    cases: Names,
    units: Names,
}

/// Names held once each, by index.
#[derive(Clone, Debug, Default)]
struct Names {
    all: Vec<String>,
    index: std::collections::HashMap<String, u32>,
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(id) = self.index.get(name) {
            return *id;
        }
        let id = u32::try_from(self.all.len()).expect("fewer than 2^32 names");
        self.all.push(name.to_owned());
        self.index.insert(name.to_owned(), id);
        id
    }
}

impl Runs {
    /// Keeps what a history reads of `run` (nothing of a `--verify` or `--compile-only` run,
    /// which times nothing).
    pub fn add(&mut self, run: &Run) {
        if run.settings.verify || run.settings.compile_only {
            return;
        }
        let mut key = GroupKey::of(run);
        key.driver = String::new();
        let rates = run
            .cases
            .iter()
            .filter_map(|c| {
                let rate = c.timed_rate()?;
                Some((self.cases.id(&c.name), self.units.id(&rate.unit.to_string()), rate.value))
            })
            .collect();
        let checked: Vec<_> = run.cases.iter().filter_map(|c| c.faults.as_ref().map(|f| (c, f))).collect();
        let checks = (!checked.is_empty()).then(|| {
            checked
                .iter()
                .filter(|(_, f)| f.mismatches > 0)
                .map(|(c, f)| {
                    let mut units: Vec<u32> = f.faults.iter().filter_map(|x| x.unit).collect();
                    units.sort_unstable();
                    units.dedup();
                    (self.cases.id(&c.name), f.mismatches, f.checked, units)
                })
                .collect()
        });
        self.kept.push(Kept {
            // As metrics and nvidia-smi name it (`GPU-` on NVIDIA), so a reader can match them.
            uuid: run.device.exporter_uuid(),
            key,
            date: run.date.clone(),
            driver: run.device.driver.clone(),
            host: run.host.clone(),
            rates,
            checks,
        });
    }
}

/// One case's points: (run index, unit, rate).
type Points = Vec<(usize, u32, f64)>;

/// The histories of `runs`, one per device and settings, in first-seen order.
pub fn history(runs: &Runs) -> Vec<Device> {
    // A device's UUID and its runs' settings.
    let groups = grouped(&runs.kept, |k: &Kept| (k.uuid.clone(), k.key.clone()));
    groups.into_iter().map(|((uuid, key), group)| device(runs, uuid, key, group)).collect()
}

/// One device's history from its `group` of runs.
fn device(all: &Runs, uuid: Option<String>, key: GroupKey, mut runs: Vec<&Kept>) -> Device {
    // In time order: a date is a time, not text (`history` refuses one it cannot read; any left
    // unread here go first, where they cannot hide a step between two real dates).
    runs.sort_by_key(|k| humantime::parse_rfc3339_weak(&k.date).ok());
    let mut drivers = Vec::new();
    for (i, pair) in runs.windows(2).enumerate() {
        let (from, to) = (&pair[0].driver, &pair[1].driver);
        if from != to {
            drivers.push(DriverChange { run: i + 1, from: from.clone(), to: to.clone() });
        }
    }
    let mut hosts: Vec<String> = Vec::new();
    for host in runs.iter().filter_map(|k| k.host.clone()) {
        if !hosts.contains(&host) {
            hosts.push(host);
        }
    }
    let (mut tested, mut short) = (0, 0);
    let mut found = Vec::new();
    let mut series = Vec::new();
    let mut drifts: Vec<(Drift, Series)> = Vec::new();
    for (case, points) in points(&runs) {
        let name = &all.cases.all[case as usize];
        let Some(&(_, unit, _)) = points.first() else { continue };
        let points: Vec<(usize, f64)> =
            points.into_iter().filter(|(_, u, _)| *u == unit).map(|(i, _, r)| (i, r)).collect();
        let unit = all.units.all[unit as usize].clone();
        if points.len() < MIN_RUNS {
            short += 1;
            continue;
        }
        tested += 1;
        let rates: Vec<f64> = points.iter().map(|(_, r)| *r).collect();
        let mut changed = false;
        let found_here = changes::change_points(&rates, &options());
        for (k, point) in found_here.iter().enumerate() {
            let run = points[point.index].0;
            // The runs at the new level: up to the next change, or the last run.
            let end = found_here.get(k + 1).map_or(points.len(), |next| next.index);
            let runs_after = end - point.index;
            changed = true;
            found.push(Change {
                case: name.clone(),
                unit: unit.clone(),
                run,
                before: point.before,
                after: point.after,
                change: point.change(),
                p: point.p,
                runs_after,
                confirmed: runs_after >= CONFIRM_RUNS,
                driver: drivers.iter().find(|d| d.run == run).map(|d| d.to.clone()),
            });
        }
        if changed {
            series.push(Series { case: name.clone(), unit, points });
        } else if let Some(change) = drift(&points) {
            drifts.push((Drift { case: name.clone(), change }, Series { case: name.clone(), unit, points }));
        }
    }
    found.sort_by(|a, b| b.change.abs().total_cmp(&a.change.abs()));
    drifts.sort_by(|a, b| b.0.change.abs().total_cmp(&a.0.change.abs()));
    drifts.truncate(DRIFTS);
    let (drifts, drift_series): (Vec<Drift>, Vec<Series>) = drifts.into_iter().unzip();
    series.extend(drift_series);
    let wrong_bits: Vec<WrongBits> = runs
        .iter()
        .enumerate()
        .flat_map(|(run, k)| {
            k.checks.iter().flatten().map(move |(case, mismatches, checked, units)| WrongBits {
                run,
                case: all.cases.all[*case as usize].clone(),
                mismatches: *mismatches,
                checked: *checked,
                units: units.clone(),
            })
        })
        .collect();
    let clean_since = wrong_bits.last().map_or(0, |last| {
        runs[last.run + 1..].iter().filter(|k| k.checks.as_ref().is_some_and(Vec::is_empty)).count()
    });
    Device {
        model: key.device.clone(),
        uuid,
        settings: key.settings,
        dates: runs.iter().map(|k| k.date.clone()).collect(),
        hosts,
        drivers,
        tested,
        short,
        changes: found,
        drifts,
        series,
        wrong_bits,
        clean_since,
    }
}

/// The drift of `points` (run, rate) over the runs, from first to last, as a fraction of the
/// median rate, where Mann-Kendall's test finds the trend at the step test's p ([`options`]) and
/// it is [`MIN_CHANGE`] or more; `None` otherwise.
fn drift(points: &[(usize, f64)]) -> Option<f64> {
    let points: Vec<(f64, f64)> = points.iter().map(|&(i, r)| (i as f64, r)).collect();
    let trend = trend::trend(&points)?;
    (trend.p <= options().max_p && trend.change.abs() >= MIN_CHANGE).then_some(trend.change)
}

/// How a history ends: wrong bits in any device's runs (exit 21), else a change to slower
/// confirmed by [`CONFIRM_RUNS`] runs (exit 22), each device named with its largest; else
/// success (a faster change, one to confirm, or a drift is said, and asks for no action).
pub fn ending(devices: &[Device]) -> crate::error::Result<()> {
    use crate::error::Error;
    let corrupt: Vec<String> = devices
        .iter()
        .filter(|d| !d.wrong_bits.is_empty())
        .map(|d| format!("{} (wrong bits in {})", d.name(), crate::format::count(d.wrong_bit_runs(), "run")))
        .collect();
    if !corrupt.is_empty() {
        return Err(Error::Corrupt { count: corrupt.len(), devices: corrupt });
    }
    let slower: Vec<String> = devices
        .iter()
        .filter_map(|d| {
            let worst = d.changes.iter().find(|c| c.confirmed && c.change < 0.0)?;
            Some(format!(
                "{} ({} {:+.1}% from {})",
                d.name(),
                worst.case,
                worst.change * 100.0,
                day(&d.dates[worst.run])
            ))
        })
        .collect();
    match slower.is_empty() {
        true => Ok(()),
        false => Err(Error::SlowerOverTime { count: slower.len(), devices: slower }),
    }
}

/// The day of an RFC 3339 date (`2026-11-27`).
pub fn day(date: &str) -> &str {
    date.get(..10).unwrap_or(date)
}

/// Each case's timed rates over `runs` in order, the cases in first-seen order: (run index,
/// unit, rate); a run that measured a case more than once (never, in one file) gives the median
/// of its rates in the first one's unit.
fn points(runs: &[&Kept]) -> Vec<(u32, Points)> {
    let mut order: Vec<u32> = Vec::new();
    let mut per_case: std::collections::HashMap<u32, Points> = Default::default();
    for (i, run) in runs.iter().enumerate() {
        for &(case, unit, rate) in &run.rates {
            let points = per_case.entry(case).or_insert_with(|| {
                order.push(case);
                Vec::new()
            });
            // A second rate of the case in this run counts only in the first one's unit (the
            // two become one point below).
            if points.last().is_some_and(|last| last.0 == i && last.1 != unit) {
                continue;
            }
            points.push((i, unit, rate));
        }
    }
    order
        .into_iter()
        .map(|case| {
            let all = per_case.remove(&case).unwrap_or_default();
            let mut merged: Points = Vec::new();
            for chunk in all.chunk_by(|a, b| a.0 == b.0) {
                let (i, unit, _) = chunk[0];
                let rate = median(chunk.iter().map(|p| p.2)).unwrap_or(chunk[0].2);
                merged.push((i, unit, rate));
            }
            (case, merged)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fleet::tests::device_run;
    use crate::results::model::Run;

    /// `runs` as a history keeps them.
    fn kept(runs: &[Run]) -> Runs {
        let mut kept = Runs::default();
        for run in runs {
            kept.add(run);
        }
        kept
    }

    /// 12 runs of one GPU, a day apart, case 3 2% slower from run 6 on, where the driver changed.
    fn twelve() -> Vec<Run> {
        (0..12u32)
            .map(|i| {
                let mut run = device_run("NVIDIA H100", i, 1.0);
                run.device.uuid = Some("53e863a9".into());
                run.date = format!("2026-11-{:02}T00:00:00Z", i + 1);
                if i >= 6 {
                    run.device.driver = "NVIDIA 590.1".into();
                    let rate = run.cases[3].rate.as_mut().unwrap();
                    rate.value *= 0.98;
                }
                run
            })
            .collect()
    }

    #[test]
    fn a_two_percent_step_at_a_driver_update_is_found_confirmed_and_marked() {
        let runs = twelve();
        let members = kept(&runs);
        let devices = history(&members);
        assert_eq!(devices.len(), 1, "one GPU across a driver update is one history");
        let d = &devices[0];
        assert_eq!((d.dates.len(), d.tested, d.short), (12, 40, 0));
        assert_eq!(d.drivers.len(), 1);
        assert_eq!(d.drivers[0].run, 6);
        assert_eq!(d.changes.len(), 1, "{:#?}", d.changes);
        let c = &d.changes[0];
        assert_eq!((c.case.as_str(), c.run, c.runs_after, c.confirmed), ("case 3", 6, 6, true));
        assert!((c.change + 0.02).abs() < 0.004, "{c:?}");
        assert_eq!(c.driver.as_deref(), Some("NVIDIA 590.1"));
        assert_eq!(d.series.len(), 1);
        // Only the last two runs after it: found, but not yet confirmed.
        let mut late = twelve();
        for run in &mut late[6..10] {
            run.cases[3].rate.as_mut().unwrap().value /= 0.98;
        }
        let members = kept(&late);
        let found: Vec<Change> = history(&members).into_iter().flat_map(|d| d.changes).collect();
        assert!(!found.is_empty() && found.iter().all(|c| !c.confirmed && c.runs_after == 2), "{found:#?}");
    }

    #[test]
    fn a_level_counts_its_own_runs_up_to_the_next_change() {
        let mut runs = twelve();
        // Case 3 a further 3% slower from run 9: 2% down at 6 for three runs, then 3% more.
        for run in &mut runs[9..] {
            run.cases[3].rate.as_mut().unwrap().value *= 0.97;
        }
        let members = kept(&runs);
        let mut found: Vec<Change> = history(&members).into_iter().flat_map(|d| d.changes).collect();
        found.sort_by_key(|c| c.run);
        assert_eq!(
            found.iter().map(|c| (c.run, c.runs_after)).collect::<Vec<_>>(),
            [(6, 3), (9, 3)],
            "{found:#?}"
        );
        assert!(found.iter().all(|c| c.confirmed), "three runs at each level");
    }

    #[test]
    fn wrong_bits_stay_in_the_history_after_clean_runs_and_a_unit_seen_twice_is_confirmed() {
        use crate::record::faults::{Fault, FaultCount};
        let fault = |unit| Fault {
            unit: Some(unit),
            workgroup: 0,
            invocation: 0,
            result: 0,
            expected: 1,
            observed: 3,
        };
        let check = |faults: Vec<Fault>| FaultCount {
            checked: 1000,
            mismatches: faults.len() as u64,
            faults,
            ..Default::default()
        };
        let mut runs = twelve();
        for run in &mut runs {
            run.cases[0].faults = Some(check(vec![]));
        }
        runs[2].cases[0].faults = Some(check(vec![fault(17), fault(17)]));
        runs[5].cases[0].faults = Some(check(vec![fault(17), fault(40)]));
        // Run 8 ran no self-checking case: it neither clears nor counts.
        runs[8].cases[0].faults = None;
        let d = &history(&kept(&runs))[0];
        assert_eq!(d.wrong_bits.iter().map(|w| (w.run, w.mismatches)).collect::<Vec<_>>(), [(2, 2), (5, 2)]);
        assert_eq!(d.wrong_bits[1].units, [17, 40]);
        assert_eq!(d.clean_since, 5, "runs 6, 7, 9, 10 and 11 checked clean; 8 checked nothing");
        assert_eq!(d.units_seen_again(), [17]);
        let clean = history(&kept(&twelve()));
        assert!(clean[0].wrong_bits.is_empty() && clean[0].clean_since == 0);
        // Wrong bits end the history as corruption (exit 21), before any slowdown.
        let error = ending(&history(&kept(&runs))).unwrap_err();
        assert_eq!(error.exit_code(), crate::error::ExitCode::Corrupt);
        assert!(error.to_string().contains("GPU-53e863a9 (wrong bits in 2 runs)"), "{error}");
    }

    #[test]
    fn a_confirmed_slowdown_ends_the_history_and_a_speedup_does_not() {
        let error = ending(&history(&kept(&twelve()))).unwrap_err();
        assert_eq!(error.exit_code(), crate::error::ExitCode::SlowerOverTime);
        assert!(
            error.to_string().contains("NVIDIA H100 GPU-53e863a9 (case 3 -1.9% from 2026-11-07)"),
            "{error}"
        );
        // The same step the other way: faster, said, no action.
        let mut faster = twelve();
        for run in faster.iter_mut().skip(6) {
            run.cases[3].rate.as_mut().unwrap().value /= 0.98 * 0.98;
        }
        let devices = history(&kept(&faster));
        assert!(
            devices[0].changes.iter().any(|c| c.confirmed && c.change > 0.0),
            "{:#?}",
            devices[0].changes
        );
        assert!(ending(&devices).is_ok());
    }

    #[test]
    fn runs_of_two_gpus_are_two_histories_and_few_runs_are_not_tested() {
        let mut runs = twelve();
        runs.truncate(4);
        runs[1].device.uuid = Some("other".into());
        let members = kept(&runs);
        let devices = history(&members);
        assert_eq!(devices.len(), 2);
        assert_eq!((devices[0].tested, devices[0].short), (0, 40));
        assert!(devices.iter().all(|d| d.changes.is_empty()));
    }
}
