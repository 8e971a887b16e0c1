//! The fleet's verdict and each GPU's headline rates in Prometheus's text format (valid
//! OpenMetrics too: gauges only, `# EOF` at the end), for node_exporter's textfile collector. A
//! GPU is labelled as dcgm-exporter labels it (`UUID`, `pci_bus_id`, `Hostname`), so the two
//! join; the model is `model_name` (promtool's lint refuses dcgm-exporter's camelCase
//! `modelName`). Only gauges, and only the `--quick` cases: a few dozen series per GPU, however
//! large the runs.

use crate::analysis::fleet::{Conclusion, Fleet, Member, State};

/// A GPU's states in metrics, the least alarming first.
const STATES: [&str; 8] =
    ["healthy", "differs", "suspect", "unjudged", "shared", "slow", "faulty", "corrupt"];
use crate::results::model::{Device, Run};

/// PCI vendor id of NVIDIA, whose `deviceUUID` is the UUID NVML and dcgm-exporter report.
const NVIDIA: u32 = 0x10de;

/// `text` as a label value: backslash, quote and newline escaped.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// The PCI address as NVML writes it on NVIDIA (`00000000:1A:00.0`: an 8-digit domain, upper
/// case), as recorded elsewhere.
fn pci_bus_id(device: &Device) -> Option<String> {
    let pci = device.pci.as_deref()?;
    if device.vendor_id != NVIDIA {
        return Some(pci.to_owned());
    }
    let (domain, rest) = pci.split_once(':')?;
    Some(format!("{:0>8}:{}", domain.to_uppercase(), rest.to_uppercase()))
}

/// The labels of the GPU `run` measured.
fn labels(run: &Run) -> String {
    let mut labels = Vec::new();
    if let Some(uuid) = run.device.exporter_uuid() {
        labels.push(format!("UUID=\"{}\"", escape(&uuid)));
    }
    if let Some(pci) = pci_bus_id(&run.device) {
        labels.push(format!("pci_bus_id=\"{}\"", escape(&pci)));
    }
    labels.push(format!("model_name=\"{}\"", escape(&run.device.name)));
    if let Some(host) = &run.host {
        labels.push(format!("Hostname=\"{}\"", escape(host)));
    }
    labels.join(",")
}

/// How a metric takes a second sample of one label set (one GPU in two groups: two settings):
/// one series per label set, as Prometheus requires.
#[derive(Clone, Copy)]
enum Merge {
    /// The lower: a verdict, where a failure wins.
    Lowest,
    /// The sum: counts of cases.
    Sum,
    /// The higher: the latest time.
    Highest,
}

/// One metric: its help, its type (always a gauge), how it merges, and its samples.
struct Metric {
    name: &'static str,
    help: &'static str,
    merge: Merge,
    samples: Vec<(String, f64)>,
}

impl Metric {
    fn new(name: &'static str, merge: Merge, help: &'static str) -> Self {
        Metric { name, help, merge, samples: Vec::new() }
    }

    /// Adds a sample, merged with one of the same labels as the metric merges.
    fn set(&mut self, labels: String, value: f64) {
        match self.samples.iter_mut().find(|(l, _)| *l == labels) {
            Some((_, known)) => {
                *known = match self.merge {
                    Merge::Lowest => known.min(value),
                    Merge::Sum => *known + value,
                    Merge::Highest => known.max(value),
                }
            }
            None => self.samples.push((labels, value)),
        }
    }

    fn text(&self) -> String {
        let mut out = format!("# HELP {} {}\n# TYPE {} gauge\n", self.name, self.help, self.name);
        for (labels, value) in &self.samples {
            out.push_str(&format!("{}{{{labels}}} {value}\n", self.name));
        }
        out
    }
}

/// Whether `case` of `run` is one of its family's `--quick` cases, as the run recorded them.
fn headline(run: &Run, family: &str, case: &str) -> bool {
    run.families.iter().any(|f| f.name == family && f.is_headline(case))
}

/// The metrics of `fleet`, judged from `members`: per GPU whether it passed, its slow and judged
/// cases, its run's time, and its `--quick` cases' rates (its latest run's); the screen's
/// conclusion as one series per state.
pub fn render(fleet: &Fleet, members: &[Member<'_>]) -> String {
    let latest = |label: &str| {
        members.iter().filter(|m| m.label == label).max_by(|a, b| a.run.date.cmp(&b.run.date)).map(|m| m.run)
    };
    let mut healthy = Metric::new(
        "perftest_gpu_healthy",
        Merge::Lowest,
        "1 where perftest's verdict passed the GPU, 0 where it failed it (a fault, slow, or nothing to judge).",
    );
    let mut slow = Metric::new(
        "perftest_gpu_slow_cases",
        Merge::Sum,
        "Cases slower than the fleet or the reference, beyond its spread and the case's noise.",
    );
    let mut judged = Metric::new("perftest_gpu_judged_cases", Merge::Sum, "Cases judged.");
    let mut gpu_state = Metric::new(
        "perftest_gpu_state",
        Merge::Highest,
        "1 on the GPU's state, 0 on the others: healthy, differs (look: beyond the noise, within the \
         tolerance), suspect (slow in this screen, not measured again), slow (act), unjudged, shared, faulty.",
    );
    let mut size = Metric::new(
        "perftest_gpu_effect_ratio",
        Merge::Lowest,
        "The GPU's slowest family (or whole-run) median change against its fleet or reference, as a \
         fraction (-0.03: 3% slow); 0 where no effect is beyond its uncertainty.",
    );
    let mut families = Metric::new(
        "perftest_gpu_family_change_ratio",
        Merge::Lowest,
        "Each family's median change against the GPU's fleet or reference, as a fraction (-0.03: 3% slow), \
         whatever its unit of rate: one panel can hold every family.",
    );
    let mut unresolved = Metric::new(
        "perftest_gpu_unjudged_families",
        Merge::Highest,
        "Families whose slowdown past the tolerance the GPU's runs could neither show nor rule out (their \
         cases stray from run to run too far): not judged, whatever the state says of the others.",
    );
    let mut tolerance = Metric::new(
        "perftest_tolerance_ratio",
        Merge::Lowest,
        "The tolerance a family's median change must pass to make a GPU slow, as a fraction.",
    );
    let mut when = Metric::new(
        "perftest_gpu_run_timestamp_seconds",
        Merge::Highest,
        "When the GPU's latest run started.",
    );
    let mut states: Vec<(String, &str)> = Vec::new();
    let mut rates = Metric::new(
        "perftest_case_rate",
        Merge::Lowest,
        "A --quick case's headline rate on the GPU, in the unit its label names (per second).",
    );
    // Each device on its own: slow (confirmed, or a slow compute unit), or nothing to judge.
    let confirmed_slow = |label: &str| {
        fleet
            .confirmations
            .iter()
            .any(|c| c.label == label && c.verdict == crate::analysis::confirm::Verdict::Slow)
    };
    for group in &fleet.groups {
        for standing in &group.ranking {
            let Some(run) = latest(&standing.label) else { continue };
            let gpu = labels(run);
            let unjudged = group.unjudged.iter().any(|u| u.device == standing.device);
            let failed = unjudged || standing.slow_units > 0 || confirmed_slow(&standing.label);
            healthy.set(gpu.clone(), if failed { 0.0 } else { 1.0 });
            let word = match standing.state {
                _ if unjudged => "unjudged",
                _ if standing.slow_units > 0 || confirmed_slow(&standing.label) => "slow",
                State::Slow => "suspect",
                State::Differs => "differs",
                State::Healthy => "healthy",
            };
            states.push((gpu.clone(), word));
            size.set(gpu.clone(), standing.size.as_ref().map_or(0.0, |e| e.change));
            unresolved.set(gpu.clone(), standing.unresolved.len() as f64);
            for effect in standing.effects.iter().filter(|e| e.family.is_some()) {
                families.set(format!("{gpu},family=\"{}\"", escape(effect.what())), effect.change);
            }
            tolerance.set(format!("model_name=\"{}\"", escape(&group.key.device)), group.tolerance);
            slow.set(gpu.clone(), standing.slower as f64);
            judged.set(gpu.clone(), standing.judged as f64);
            if let Ok(time) = humantime::parse_rfc3339(&run.date) {
                let seconds = time.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
                when.set(gpu.clone(), seconds as f64);
            }
            for case in run.cases.iter().filter(|c| headline(run, &c.family, &c.name)) {
                if let Some(rate) = case.timed_rate() {
                    let labels = format!(
                        "{gpu},case=\"{}\",unit=\"{}\"",
                        escape(&case.name),
                        escape(&rate.unit.to_string())
                    );
                    if !rates.samples.iter().any(|(l, _)| *l == labels) {
                        rates.samples.push((labels, rate.value));
                    }
                }
            }
        }
    }
    // Devices no group judged (shared GPUs, a model the reference lacks), and faulty ones, fail.
    let left = [
        ("shared", &fleet.shared),
        ("unjudged", &fleet.unreferenced),
        ("faulty", &fleet.faulty),
        ("corrupt", &fleet.corrupt),
    ];
    for (word, list) in left {
        for l in list {
            if let Some(run) = latest(&l.label) {
                healthy.set(labels(run), 0.0);
                states.push((labels(run), word));
            }
        }
    }
    // One state per GPU, the most alarming of its groups' and lists'.
    let rank = |w: &str| STATES.iter().position(|s| *s == w).unwrap_or(0);
    let mut worst: Vec<(String, &str)> = Vec::new();
    for (gpu, word) in states {
        match worst.iter_mut().find(|(g, _)| *g == gpu) {
            Some((_, known)) if rank(known) < rank(word) => *known = word,
            Some(_) => {}
            None => worst.push((gpu, word)),
        }
    }
    for (gpu, word) in worst {
        for each in STATES {
            gpu_state.samples.push((format!("{gpu},state=\"{each}\""), if each == word { 1.0 } else { 0.0 }));
        }
    }
    let mut verdict = Metric::new(
        "perftest_verdict",
        Merge::Lowest,
        "The screen's conclusion: 1 on its state, 0 on the others (fleet's exit codes, docs/exit-codes.md).",
    );
    let state = match fleet.conclusion() {
        Conclusion::Healthy => "healthy",
        Conclusion::Corrupt(_) => "corrupt",
        Conclusion::Faulty(_) => "faulty",
        Conclusion::Slow(_) => "slow",
        Conclusion::Unjudged(_) => "unjudged",
        Conclusion::Interference(_) => "interference",
        Conclusion::Unconfirmed(_) => "unconfirmed",
    };
    for each in ["healthy", "corrupt", "faulty", "slow", "unjudged", "interference", "unconfirmed"] {
        verdict.samples.push((format!("state=\"{each}\""), if each == state { 1.0 } else { 0.0 }));
    }
    // `# EOF` ends an OpenMetrics exposition; the classic text format (node_exporter's textfile
    // collector, promtool) reads it as a comment: the file is valid as both.
    [verdict, healthy, gpu_state, size, families, unresolved, tolerance, slow, judged, when, rates]
        .iter()
        .map(Metric::text)
        .collect::<String>()
        + "# EOF\n"
}

/// The labels of a device of a history: its UUID (as NVML writes it) where known, and its model.
fn history_labels(device: &crate::analysis::history::Device) -> String {
    let uuid = device.uuid.as_ref().map(|u| format!("UUID=\"{}\",", escape(u)));
    format!("{}model_name=\"{}\"", uuid.unwrap_or_default(), escape(&device.model))
}

/// The metrics of a history (`perftest history --metrics`): per GPU its runs, its changes by
/// direction and state, its largest confirmed slowdown and its slowest drift, its runs with wrong
/// bits and its latest run's time; the history's ending as one series per state (its exit code).
pub fn history(devices: &[crate::analysis::history::Device]) -> String {
    let mut runs = Metric::new("perftest_history_runs", Merge::Sum, "Runs of the GPU the history read.");
    let mut changes = Metric::new(
        "perftest_history_changes",
        Merge::Sum,
        "Change points in the GPU's case rates (1% or more, p <= 0.001), by direction (slower, faster) and \
         state (confirmed: 3 runs or more at the new level; to_confirm).",
    );
    let mut slower = Metric::new(
        "perftest_history_slower_ratio",
        Merge::Lowest,
        "The GPU's largest confirmed change for the slower, as a fraction (-0.03: 3% slower); 0 where none.",
    );
    let mut drift = Metric::new(
        "perftest_history_drift_ratio",
        Merge::Lowest,
        "Of the GPU's cases without a change point, the most negative drift (a Mann-Kendall trend, its \
         Theil-Sen slope from the first run to the last, as a fraction); 0 where none drifted slower.",
    );
    let mut wrong = Metric::new(
        "perftest_history_wrong_bits_runs",
        Merge::Sum,
        "Runs of the GPU whose self-checking cases (sdc family) computed wrong bits: silent data corruption.",
    );
    let mut when = Metric::new(
        "perftest_history_last_run_timestamp_seconds",
        Merge::Highest,
        "When the GPU's latest run in the history started.",
    );
    for device in devices {
        let gpu = history_labels(device);
        runs.set(gpu.clone(), device.dates.len() as f64);
        for direction in ["slower", "faster"] {
            for (state, confirmed) in [("confirmed", true), ("to_confirm", false)] {
                let n = device
                    .changes
                    .iter()
                    .filter(|c| c.confirmed == confirmed && (c.change < 0.0) == (direction == "slower"))
                    .count();
                changes.set(format!("{gpu},direction=\"{direction}\",state=\"{state}\""), n as f64);
            }
        }
        let confirmed = device.changes.iter().filter(|c| c.confirmed).map(|c| c.change);
        slower.set(gpu.clone(), confirmed.fold(0.0, f64::min));
        drift.set(gpu.clone(), device.drifts.iter().map(|d| d.change).fold(0.0, f64::min));
        wrong.set(gpu.clone(), device.wrong_bit_runs() as f64);
        if let Some(time) = device.dates.last().and_then(|d| humantime::parse_rfc3339_weak(d).ok()) {
            let seconds = time.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
            when.set(gpu, seconds as f64);
        }
    }
    let mut verdict = Metric::new(
        "perftest_history_verdict",
        Merge::Lowest,
        "The history's ending: 1 on its state, 0 on the others (history's exit codes: 0, 22 slower, 21 corrupt).",
    );
    let state = match crate::analysis::history::ending(devices) {
        Ok(()) => "healthy",
        Err(crate::error::Error::Corrupt { .. }) => "corrupt",
        Err(_) => "slower",
    };
    for each in ["healthy", "slower", "corrupt"] {
        verdict.samples.push((format!("state=\"{each}\""), if each == state { 1.0 } else { 0.0 }));
    }
    [verdict, runs, changes, slower, drift, wrong, when].iter().map(Metric::text).collect::<String>()
        + "# EOF\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_nvidia_gpu_is_labelled_as_nvml_labels_it() {
        let mut device = crate::analysis::fleet::tests::device_run("NVIDIA H100", 0, 1.0).device;
        device.vendor_id = NVIDIA;
        device.pci = Some("0000:1a:00.0".into());
        device.uuid = Some("58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77".into());
        assert_eq!(pci_bus_id(&device).as_deref(), Some("00000000:1A:00.0"));
        assert_eq!(device.exporter_uuid().as_deref(), Some("GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77"));
        device.vendor_id = 0x1002;
        assert_eq!(pci_bus_id(&device).as_deref(), Some("0000:1a:00.0"));
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }

    #[test]
    fn a_gpu_in_two_groups_sums_its_cases_and_keeps_its_latest_time() {
        use crate::analysis::fleet::{judge, tests::device_run};
        // Four GPUs run twice, at two settings (two groups); GPU 3 slow in the second only.
        let mut runs = Vec::new();
        for samples in [10, 20] {
            for i in 0..4u32 {
                let mut run = device_run("NVIDIA H200", i, if i == 3 && samples == 20 { 0.5 } else { 1.0 });
                run.device.uuid = Some(format!("{i:08x}"));
                run.settings.samples = samples;
                run.date = format!("2026-11-28T0{}:00:00Z", samples / 10);
                runs.push(run);
            }
        }
        let members: Vec<Member> =
            runs.iter().enumerate().map(|(i, run)| Member { label: format!("gpu{}", i % 4), run }).collect();
        let text = render(&judge(&members), &members);
        let line = |metric: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!("{metric}{{UUID=\"GPU-00000003\"")))
                .map(|l| l.rsplit_once(' ').unwrap().1.to_owned())
        };
        assert_eq!(
            line("perftest_gpu_judged_cases").as_deref(),
            Some("80"),
            "40 cases in each group: {text}"
        );
        assert_eq!(
            line("perftest_gpu_slow_cases").as_deref(),
            Some("40"),
            "slow in the second group: {text}"
        );
        // GPU 3 is a suspect (slow in this screen, not measured again), 50% slow in every case.
        assert!(
            text.contains(
                "perftest_gpu_state{UUID=\"GPU-00000003\",model_name=\"NVIDIA H200\",state=\"suspect\"} 1\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "perftest_gpu_state{UUID=\"GPU-00000001\",model_name=\"NVIDIA H200\",state=\"healthy\"} 1\n"
            ),
            "{text}"
        );
        assert!(
            (line("perftest_gpu_effect_ratio").unwrap().parse::<f64>().unwrap() + 0.5).abs() < 0.01,
            "{text}"
        );
        // Its family's change, the slower group's, on one series per family whatever its unit.
        let family = |uuid: &str| {
            let prefix = format!("perftest_gpu_family_change_ratio{{UUID=\"{uuid}\"");
            let found: Vec<&str> = text.lines().filter(|l| l.starts_with(&prefix)).collect();
            assert_eq!(found.len(), 1, "one family: {text}");
            assert!(found[0].contains(",family=\""), "{}", found[0]);
            found[0].rsplit_once(' ').unwrap().1.parse::<f64>().unwrap()
        };
        assert!((family("GPU-00000003") + 0.5).abs() < 0.01 && family("GPU-00000001").abs() < 0.01);
        let second = humantime::parse_rfc3339("2026-11-28T02:00:00Z").unwrap();
        let seconds = second.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        assert_eq!(line("perftest_gpu_run_timestamp_seconds"), Some(seconds.to_string()), "the latest");
    }

    #[test]
    fn the_headline_rates_are_those_the_run_recorded_not_todays_registry() {
        use crate::analysis::fleet::{judge, tests::device_run};
        let runs: Vec<Run> = (0..3u32)
            .map(|i| {
                let mut run = device_run("NVIDIA H200", i, 1.0);
                run.device.uuid = Some(format!("{i:08x}"));
                let family = run.cases[0].family.clone();
                run.families = vec![crate::results::family::FamilyFacts {
                    name: family,
                    measures: String::new(),
                    ratio_note: None,
                    levels: false,
                    has_peak: false,
                    axes: Vec::new(),
                    quick: vec!["case 7".into()],
                }];
                run
            })
            .collect();
        let members: Vec<Member> =
            runs.iter().enumerate().map(|(i, run)| Member { label: format!("gpu{i}"), run }).collect();
        let text = render(&judge(&members), &members);
        let rates: Vec<&str> = text.lines().filter(|l| l.starts_with("perftest_case_rate{")).collect();
        assert_eq!(rates.len(), 3, "{rates:#?}");
        assert!(rates.iter().all(|l| l.contains("case=\"case 7\"")), "{rates:#?}");
    }

    #[test]
    fn each_gpu_is_one_series_and_fails_on_its_own_verdict() {
        use crate::analysis::fleet::{judge, tests::device_run};
        let mut runs: Vec<Run> = (0..4u32)
            .map(|i| {
                let mut run = device_run("NVIDIA H200", i, 1.0);
                run.device.uuid = Some(format!("{i:08x}"));
                run
            })
            .collect();
        // GPU 2's every case failed: nothing to judge. GPU 0 was measured twice.
        runs[2].cases.iter_mut().for_each(|c| c.status = crate::results::model::Status::Failed);
        runs.push(runs[0].clone());
        let members: Vec<Member> =
            runs.iter().enumerate().map(|(i, run)| Member { label: format!("gpu{}", i % 4), run }).collect();
        let text = render(&judge(&members), &members);
        let healthy: Vec<&str> = text.lines().filter(|l| l.starts_with("perftest_gpu_healthy{")).collect();
        assert_eq!(healthy.len(), 4, "one series per GPU: {healthy:#?}");
        assert!(
            healthy.iter().any(|l| l.contains("UUID=\"GPU-00000002\"") && l.ends_with(" 0")),
            "{healthy:#?}"
        );
        assert_eq!(healthy.iter().filter(|l| l.ends_with(" 1")).count(), 3);
        let mut series: Vec<&str> =
            text.lines().filter(|l| !l.starts_with('#')).map(|l| l.rsplit_once(' ').unwrap().0).collect();
        let all = series.len();
        series.sort();
        series.dedup();
        assert_eq!(series.len(), all, "no series twice");
    }
}
