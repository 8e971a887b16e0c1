//! `perftest compare A.json B.json ...`: one table, a column per run, ratios against the first run.

use crate::results::measure::Measure;
use serde::Serialize;

use super::text::rate_text;

/// What follows a flagged case's rate in its cell; its note names the flags.
pub const FLAGGED: &str = "*";

/// A case's rate as a cell shows it: as its line says it, less a dispatch's time each
/// (`409 kdispatches/s`), or its status.
fn short_rate(case: &CaseResult) -> String {
    let text = rate_text(case);
    match text.split_once(", ") {
        Some((rate, _)) if case.rate.is_some() => rate.to_owned(),
        _ => text,
    }
}
use crate::analysis::matching::match_runs;
use crate::analysis::verdict::{verdict, Verdict};
use crate::format::printable;
use crate::results::model::{CaseResult, Run, Status};

/// One operation of the instruction table across the runs (`None` where a run lacks it or did not
/// time it).
#[derive(Debug, Serialize, PartialEq)]
pub struct Instruction {
    /// As the cases name it (`fp32 sin`).
    pub operation: String,
    /// Operations per clock per compute unit.
    pub per_clock: Vec<Option<f64>>,
    /// The cost in fp32 FMAs.
    pub fma_cost: Vec<Option<f64>>,
    /// Clocks per dependent operation.
    pub latency_clk: Vec<Option<f64>>,
    /// Nanoseconds per dependent operation.
    pub latency_ns: Vec<Option<f64>>,
}

/// The instruction rows of every operation any of `runs` timed; empty where none did.
pub fn instructions(runs: &[Run]) -> Vec<Instruction> {
    crate::analysis::instructions::side_by_side(runs)
        .into_iter()
        .map(|across| {
            let each = |f: fn(&crate::analysis::instructions::Row) -> Option<f64>| {
                across.rows.iter().map(|r| r.as_ref().and_then(f)).collect()
            };
            Instruction {
                operation: printable(across.operation).into_owned(),
                per_clock: each(|r| r.per_clock().map(|(v, _)| v)),
                fma_cost: each(|r| r.fma_cost()),
                latency_clk: each(|r| r.latency_clk()),
                latency_ns: each(|r| r.latency_ns()),
            }
        })
        .collect()
}

/// One case across the runs.
#[derive(Debug, Serialize, PartialEq)]
pub struct Row {
    /// Case name.
    pub name: String,
    /// Its family.
    pub family: String,
    /// The headline rate in each run (`None`: missing from the run, skipped or failed).
    pub rates: Vec<Option<f64>>,
    /// Each run's rate over the first run's (`None` where either is absent); the first is 1.
    pub ratios: Vec<Option<f64>>,
    /// What each run's cell shows: the rate with its unit ([`FLAGGED`] after it where the case has
    /// flags), or the case's status where it has none.
    pub cells: Vec<String>,
    /// What each run's cell leaves out: why the case has no rate, or its flags' names.
    pub notes: Vec<Option<String>>,
    /// Each run's verdict against the first run (`None` for the first, or without two rates of
    /// one unit), and the change of the rate.
    pub verdicts: Vec<Option<(Verdict, f64)>>,
}

/// The comparison of several runs.
#[derive(Debug, Serialize, PartialEq)]
pub struct Comparison {
    /// Per run after the first: how its cases compare with the first run's, counted.
    pub summaries: Vec<String>,
    /// A label per run: file name, device and date.
    pub runs: Vec<String>,
    /// Cases in the first run's order, then cases the first run lacks.
    pub rows: Vec<Row>,
    /// The runs' instruction tables side by side (empty where no run timed the `instr` family).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<Instruction>,
    /// The runs' energy by level side by side (empty where no run measured energy).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub energy: Vec<EnergyLevel>,
}

/// One level's energy across runs: the board's picojoules per unit, per run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EnergyLevel {
    /// The level (`fp32 FMA`, `DRAM`).
    pub level: String,
    /// What its energy is per (`pJ/B`).
    pub unit: String,
    /// The board's picojoules per unit, per run (`None` where the run lacks the level).
    pub board: Vec<Option<f64>>,
    /// The same above the idle board.
    pub above_idle: Vec<Option<f64>>,
}

/// The energy tables of `runs` side by side.
pub fn energy(runs: &[Run]) -> Vec<EnergyLevel> {
    crate::analysis::energy::side_by_side(runs)
        .into_iter()
        .map(|(level, each)| EnergyLevel {
            unit: each
                .iter()
                .flatten()
                .next()
                .map_or(String::new(), |r| format!("pJ/{}", r.unit.amount_name())),
            board: each.iter().map(|r| r.as_ref().map(|r| r.board)).collect(),
            above_idle: each.iter().map(|r| r.as_ref().and_then(|r| r.above)).collect(),
            level,
        })
        .collect()
}

/// Matches the cases of `runs` (labelled by `labels`) by name.
pub fn compare(labels: &[String], runs: &[Run]) -> Comparison {
    let instructions = instructions(runs);
    let energy = energy(runs);
    let rows: Vec<Row> = match_runs(runs)
        .into_iter()
        .map(|m| {
            let rates: Vec<Option<f64>> =
                m.found.iter().map(|c| c.and_then(|c| c.rate.as_ref()).map(|r| r.value)).collect();
            let units: Vec<Option<&Measure>> =
                m.found.iter().map(|c| c.and_then(|c| c.rate.as_ref()).map(|r| &r.unit)).collect();
            // A ratio only between rates of the same unit (FLOPS against loads/s means nothing).
            let ratios = rates
                .iter()
                .zip(&units)
                .map(|(r, u)| if *u == units[0] { Some(r.as_ref()? / rates[0]?) } else { None })
                .collect();
            let cells = m
                .found
                .iter()
                .zip(&units)
                .map(|(c, u)| match c {
                    None => "missing".to_owned(),
                    Some(c) if u.is_some() && units[0].is_some() && *u != units[0] => {
                        format!("{} (not the unit of run 1)", printable(&short_rate(c)))
                    }
                    // Why a case has no rate, and its flags, are its note.
                    Some(c) if c.rate.is_none() => c.status.word().to_owned(),
                    Some(c) if c.flags.is_empty() => printable(&short_rate(c)).into_owned(),
                    Some(c) => format!("{}{FLAGGED}", printable(&short_rate(c))),
                })
                .collect();
            let notes = m.found.iter().map(|c| c.and_then(note)).collect();
            let verdicts = m
                .found
                .iter()
                .enumerate()
                .map(|(i, c)| if i == 0 { None } else { verdict(m.found[0]?, (*c)?) })
                .collect();
            let family = m.any().family.clone();
            Row { name: printable(m.name).into_owned(), family, rates, ratios, cells, notes, verdicts }
        })
        .collect();
    let runs: Vec<String> = labels
        .iter()
        .zip(runs)
        .map(|(label, run)| {
            // The clock says whether a difference could be throttling rather than the code.
            let clock =
                run.clock_median_mhz.map(|mhz| format!(", median clock {mhz:.0} MHz")).unwrap_or_default();
            // Where: host and PCI address (or UUID), where the run recorded them.
            let place: Vec<&str> = run.host.as_deref().into_iter().chain(run.device.slot()).collect();
            let place = match place.is_empty() {
                true => String::new(),
                false => format!(", {}", place.join(" ")),
            };
            printable(&format!(
                "{label}: {} ({}{clock}{place}){}",
                run.device.name,
                run.date,
                run.ending.mark()
            ))
            .into_owned()
        })
        .collect();
    let summaries = (1..runs.len()).map(|i| summary(&rows, i)).collect();
    Comparison { runs, summaries, rows, instructions, energy }
}

/// What a case's cell leaves out: why it has no rate (`skipped (the device lacks ...)`), or the
/// names of its flags, which may explain a difference; none for a plain rate.
fn note(case: &CaseResult) -> Option<String> {
    if case.rate.is_none() && !matches!(case.status, Status::Verified | Status::Compiled) {
        return Some(printable(&crate::report::text::status_text(case)).into_owned());
    }
    let names: Vec<String> = case.flags.iter().map(crate::results::flag::Flag::name).collect();
    (!names.is_empty()).then(|| printable(&format!("flagged: {}", names.join(", "))).into_owned())
}

/// `run 2 against run 1: 3 slower, 1 faster, 530 same, 2 noisy, 4 without a verdict`.
fn summary(rows: &[Row], run: usize) -> String {
    let count = |v: Verdict| rows.iter().filter(|r| r.verdicts[run].is_some_and(|(x, _)| x == v)).count();
    let none = rows.iter().filter(|r| r.verdicts[run].is_none()).count();
    format!(
        "run {} against run 1: {} slower, {} faster, {} same, {} noisy, {none} without a verdict",
        run + 1,
        count(Verdict::Slower),
        count(Verdict::Faster),
        count(Verdict::Same),
        count(Verdict::Noisy)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sections::compare::{to_markdown, to_text};
    use crate::results::model::{Amount, Status};

    fn two_runs() -> Vec<Run> {
        let first = crate::results::model::tests::sample_run();
        let mut second = first.clone();
        second.device.name = "llvmpipe".into();
        second.clock_median_mhz = None;
        second.cases[0].rate = Some(Amount { value: 1.126e12, unit: "loads/s".into() });
        second.cases.remove(1);
        let mut extra = second.cases[0].clone();
        extra.name = "Only in run 2".into();
        second.cases.push(extra);
        vec![first, second]
    }

    #[test]
    fn matches_by_name_with_ratios_against_the_first_run() {
        let c = compare(&["a.json".into(), "b.json".into()], &two_runs());
        assert_eq!(c.runs[0], "a.json: NVIDIA H100 80GB HBM3 (2026-11-21T02:00:00Z, median clock 1980 MHz)");
        assert_eq!(c.runs[1], "b.json: llvmpipe (2026-11-21T02:00:00Z)", "no clock: nothing said");
        let names: Vec<&str> = c.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["ByteAddressBuffer.Load uniform", "ALU fp64 FMA", "Only in run 2"]);
        assert!((c.rows[0].ratios[1].unwrap() - 0.2).abs() < 1e-9);
        assert_eq!(c.rows[1].cells[1], "missing");
        assert_eq!(c.rows[2].cells[0], "missing");
        assert_eq!(c.rows[2].ratios[1], None);
    }

    #[test]
    fn a_case_made_five_percent_slower_is_counted_slower() {
        let base = crate::results::model::tests::run_of(100);
        let mut slower = base.clone();
        let rate = slower.cases[42].rate.as_mut().unwrap();
        rate.value *= 0.95;
        let same = compare(&["a".into(), "b".into()], &[base.clone(), base.clone()]);
        assert_eq!(
            same.summaries,
            ["run 2 against run 1: 0 slower, 0 faster, 100 same, 0 noisy, 0 without a verdict"]
        );
        let c = compare(&["a".into(), "b".into()], &[base, slower]);
        assert_eq!(
            c.summaries,
            ["run 2 against run 1: 1 slower, 0 faster, 99 same, 0 noisy, 0 without a verdict"]
        );
    }

    #[test]
    fn flagged_cases_are_marked_and_their_flags_named_in_a_note() {
        let mut runs = two_runs();
        runs[1].cases[0].flags = vec![
            crate::results::flag::Flag::Throttled { mhz: 1395.0, median_mhz: 1980.0 },
            crate::results::flag::Flag::Baseline(vec!["noisy".into()]),
        ];
        let c = compare(&["a".into(), "b".into()], &runs);
        assert_eq!(c.rows[0].cells[1], "1.13 Tloads/s*");
        assert_eq!(
            c.rows[0].notes[1].as_deref(),
            Some("flagged: throttled, ratio against a flagged baseline")
        );
        assert_eq!((c.rows[0].cells[0].as_str(), &c.rows[0].notes[0]), ("5.63 Tloads/s", &None));
        let text = to_text(&c);
        assert!(
            text.contains("notes: why a case has no rate, and flags (2):\n  ByteAddressBuffer.Load uniform, run 2: flagged: throttled"),
            "{text}"
        );
    }

    #[test]
    fn rates_of_different_units_get_no_ratio() {
        let mut runs = two_runs();
        runs[1].cases[0].rate = Some(Amount { value: 2e12, unit: "FLOPS".into() });
        let c = compare(&["a".into(), "b".into()], &runs);
        assert_eq!(c.rows[0].ratios[1], None);
        assert_eq!(c.rows[0].cells[1], "2.00 TFLOPS (not the unit of run 1)");
    }

    #[test]
    fn interrupted_and_failed_runs_are_marked() {
        let mut runs = two_runs();
        runs[1].ending =
            crate::results::model::Ending::of(&Err(crate::Error::Validation { messages: vec![] }));
        let c = compare(&["a.json".into(), "b.json".into()], &runs);
        assert_eq!(c.runs[1], "b.json: llvmpipe (2026-11-21T02:00:00Z) [failed: exit 9]");
        assert!(!c.runs[0].contains('['), "{}", c.runs[0]);
    }

    #[test]
    fn long_names_and_escape_sequences_from_a_results_file_are_harmless() {
        let mut runs = two_runs();
        runs[1].cases[0].name = "x".repeat(70_000);
        runs[1].cases[1].name = "evil \u{1b}[2J \0".into();
        let text = to_text(&compare(&["a".into(), "b".into()], &runs));
        assert!(text.contains(&"x".repeat(70_000)));
        assert!(!text.contains('\u{1b}') && !text.contains('\0') && text.contains("\\u{1b}[2J"), "escaped");
        let rows = 100_000;
        let mut big = runs[0].clone();
        big.cases =
            (0..rows).map(|i| CaseResult { name: format!("case {i}"), ..runs[0].cases[0].clone() }).collect();
        let started = std::time::Instant::now();
        let table = to_text(&compare(&["a".into(), "b".into()], &[big.clone(), big]));
        assert_eq!(table.lines().count(), rows + 5, "labels, a summary, a blank line, a header, the rows");
        eprintln!("compare of 2 x {rows} cases: {:?}", started.elapsed());
    }

    #[test]
    fn text_and_markdown_show_each_run_as_a_column() {
        let c = compare(&["a.json".into(), "b.json".into()], &two_runs());
        let text = to_text(&c);
        assert!(text.contains("ByteAddressBuffer.Load uniform  5.63 Tloads/s"), "{text}");
        assert!(text.contains("1.13 Tloads/s (0.200x, slower)"), "{text}");
        assert!(
            text.contains("run 2 against run 1: 1 slower, 0 faster, 0 same, 0 noisy, 2 without a verdict"),
            "{text}"
        );
        let md = to_markdown(&c);
        assert!(md.contains("| case | run 1 | run 2 |"), "{md}");
        assert!(md.contains("| ALU fp64 FMA | skipped | missing |"), "{md}");
        assert!(md.contains("- ALU fp64 FMA, run 1: skipped (the device lacks shaderFloat64)"), "{md}");
    }

    #[test]
    fn a_crashed_case_shows_its_status_and_why() {
        let mut runs = two_runs();
        let case = &mut runs[1].cases[0];
        (case.status, case.reason, case.rate) = (Status::Crashed, Some("SIGSEGV".into()), None);
        let md = to_markdown(&compare(&["a.json".into(), "b.json".into()], &runs));
        assert!(md.contains("| 5.63 Tloads/s | crashed |"), "{md}");
        assert!(md.contains("- ByteAddressBuffer.Load uniform, run 2: crashed (SIGSEGV)"), "{md}");
    }
}
