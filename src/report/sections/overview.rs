//! A run on the report page: its facts (device, driver, where, clock, settings, how it ended),
//! its header folded, where its time went, and its findings with their evidence linked.

use super::Block;
use crate::analysis::findings::{self, Finding};
use crate::report::doc::{anchor, Cell, Column, Table};
use crate::results::model::Run;

/// A run's facts and its findings, whose evidence links to `link(case)`.
pub fn page(label: &str, run: &Run, several: bool, link: &dyn Fn(&str) -> String) -> Vec<Block> {
    let d = &run.device;
    let id = format!("run-{}", anchor(label).trim_start_matches("case-"));
    let mut blocks = vec![Block::Heading { level: 2, text: format!("{} ({label})", d.name), id }];
    let s = &run.settings;
    let mut settings = format!("{} ms per measurement, {} samples", s.target_ms, s.samples);
    if s.quick {
        settings.push_str(", --quick");
    }
    if !s.families.is_empty() {
        settings.push_str(&format!(", families {}", s.families.join(", ")));
    }
    let clock = match run.clock_median_mhz {
        Some(mhz) => format!("median {mhz:.0} MHz"),
        None => d.clock.clone().unwrap_or_else(|| "unknown".into()),
    };
    let units = match (d.compute_units, &d.compute_unit) {
        (Some(n), Some(unit)) => format!("{n} {unit}"),
        _ => "unknown".into(),
    };
    let facts = [
        (
            "device",
            format!("{} ({}, vendor 0x{:04x}, device 0x{:04x})", d.name, d.kind, d.vendor_id, d.device_id),
        ),
        ("driver", format!("{} (Vulkan {})", d.driver, d.vulkan_version)),
        ("queue", format!("family {}, subgroup size {}", d.queue_family, d.subgroup_size)),
        ("where", where_text(run)),
        ("compute units", units),
        ("clock", clock),
        ("peaks", d.architecture.clone().unwrap_or_else(|| "unknown: no % of peak".into())),
        ("settings", settings),
        ("date", run.date.clone()),
        (
            "cases",
            format!(
                "{} ({} timed)",
                run.cases.len(),
                run.cases.iter().filter(|c| c.median_ms.is_some()).count()
            ),
        ),
        ("ended", run.ending.line().trim_start_matches("run: ").to_owned()),
    ];
    // Unnamed columns: a fact and its value, no head row.
    let mut table = Table::new(vec![Column::left(""), Column::left("")]);
    for (fact, value) in facts {
        table.push(None, vec![Cell::text(fact), Cell::Text(value)]);
    }
    blocks.push(Block::Table(table));
    if run.facts.is_some() || !run.header.is_empty() {
        blocks.push(Block::Fold {
            summary: "The run's header".into(),
            blocks: vec![Block::Pre(crate::report::text::header(run, true))],
        });
    }
    blocks.extend(super::time::page(run));
    let found = findings::of(run);
    let heading = if several { format!("Findings on {}", d.name) } else { "Findings".into() };
    blocks.push(Block::Heading { level: 3, text: heading, id: format!("findings-{}", anchor(label)) });
    if found.is_empty() {
        blocks.push(Block::Para("The run has none of the cases the findings rest on.".into()));
    }
    for question in QUESTIONS {
        let items: Vec<_> =
            found.iter().filter(|f| question_of(f.id) == question).map(|f| finding_item(f, link)).collect();
        if !items.is_empty() {
            let id = format!("{}-{}", anchor(question), anchor(label));
            blocks.push(Block::Heading { level: 4, text: question.into(), id });
            blocks.push(Block::List(items));
        }
    }
    blocks
}

/// The questions findings answer, in the order the page asks them.
const QUESTIONS: [&str; 5] = [
    "Which buffer type, and which access pattern?",
    "Textures and staging: load, sample, or shared memory?",
    "Where does memory get slow?",
    "What does an operation cost?",
    "How far to trust these numbers?",
];

/// The question finding `id` answers (one of [`QUESTIONS`]).
fn question_of(id: &str) -> &'static str {
    match id {
        "typed-raw-structured" | "writable-buffers" | "subgroup-broadcast" => QUESTIONS[0],
        "load-or-sample" | "shared-staging" => QUESTIONS[1],
        "cache-levels" | "copies" => QUESTIONS[2],
        "flagged" => QUESTIONS[4],
        // The peaks, atomics and the instruction table's findings.
        _ => QUESTIONS[3],
    }
}

/// Where the run ran, as its record says, and the devices that ran with it.
fn where_text(run: &Run) -> String {
    let mut parts = crate::report::text::header::where_parts(run);
    parts.extend(crate::report::text::header::together(run));
    match parts.is_empty() {
        true => "not recorded (a file from before perftest kept it)".into(),
        false => parts.join("; "),
    }
}

/// A finding with its evidence, each case linked to its row; the instruction table's findings
/// link to the table first.
fn finding_item(f: &Finding, link: &dyn Fn(&str) -> String) -> (String, Vec<(String, String)>) {
    let table = (f.family == crate::analysis::instructions::FAMILY)
        .then(|| ("the instruction table".to_owned(), "instructions".to_owned()));
    let cases = f.evidence.iter().map(|(case, shown)| (format!("{case}: {shown}"), link(case)));
    (f.text.clone(), table.into_iter().chain(cases).collect())
}
