//! `perftest report RUN.json [MORE.json ...] --output DIR`: the page a programmer acts on, as
//! `DIR/index.html` (self-contained: inline SVG and CSS, no script, no network) and `DIR/report.md`
//! (the same blocks, its charts beside it in `DIR/charts/`).
//!
//! The page is built once as [`Block`]s and rendered twice. Runs of one device row whose cases do
//! not overlap (a full run made in parts, `--family` by `--family`) are one run here; runs of
//! other devices, or of the same cases again, are compared: verdicts side by side.

use std::path::Path;

use super::compare;
use super::plot::{self, Metric};
use super::write::write_atomic;
use crate::analysis::findings::{self, Finding};
use crate::format::ratio_text;
use crate::format::sig4;
use crate::results::model::{CaseResult, Run, Status};

mod costs;
mod instructions;
pub use super::doc::{anchor, Block};
use super::doc::{html, markdown};
use crate::error::{Error, Result};

/// Every file [`write()`] may write into `dir` for `runs`: its page, its markdown and a chart per
/// family.
pub fn files(dir: &Path, runs: &[Run]) -> Vec<std::path::PathBuf> {
    let names: std::collections::BTreeSet<&str> =
        runs.iter().flat_map(|r| &r.families).map(|f| f.name.as_str()).collect();
    // The instruction table's and the units' charts beside the families' (where a run has them).
    let charts = names
        .into_iter()
        .chain(["instructions", "units-strips"])
        .map(|name| dir.join("charts").join(format!("{name}.svg")));
    [dir.join("index.html"), dir.join("report.md")].into_iter().chain(charts).collect()
}

/// Writes the report of the runs in `files` (already loaded as `runs`) to `dir` (a symbolic
/// link the kernel would not follow is refused, as for every output).
pub fn write(labels: &[String], runs: Vec<Run>, dir: &Path) -> Result<()> {
    let dir = &super::output::resolve(dir)?;
    let (labels, runs) = crate::analysis::parts::combine(labels, runs);
    let blocks = blocks(&labels, &runs);
    let failed = |detail: String| Error::Output { path: dir.display().to_string(), detail };
    std::fs::create_dir_all(dir.join("charts")).map_err(|e| failed(e.to_string()))?;
    for block in blocks.iter().flat_map(flatten) {
        if let Block::Chart { file, svg } = block {
            write_atomic(&dir.join("charts").join(file), svg)?;
        }
    }
    write_atomic(&dir.join("report.md"), &markdown(&blocks))?;
    write_atomic(&dir.join("index.html"), &html(&title(&runs), &blocks))
}

/// Each block and the blocks folded in it.
fn flatten(block: &Block) -> Vec<&Block> {
    match block {
        Block::Fold { blocks, .. } => std::iter::once(block).chain(blocks.iter().flat_map(flatten)).collect(),
        other => vec![other],
    }
}

/// The page's title.
fn title(runs: &[Run]) -> String {
    let devices: Vec<&str> = runs.iter().map(|r| r.device.name.as_str()).collect();
    format!("perftest report: {}", devices.join(" vs "))
}

/// The blocks of the page.
pub fn blocks(labels: &[String], runs: &[Run]) -> Vec<Block> {
    let mut blocks = vec![Block::Para(format!(
        "Made by perftest {} from {}. Rates are medians of GPU-timed samples; per clock per compute unit at the \
         clock measured around each case; % of peak against the architecture's datasheet; ratios against each \
         family's baseline (above 1 = faster). docs/output.md says how to read every column and flag.",
        env!("CARGO_PKG_VERSION"),
        labels.join(", ")
    ))];
    for (i, (label, run)) in labels.iter().zip(runs).enumerate() {
        // Only the first run has tables to link to; the others' evidence links to the comparison.
        let link = |case: &str| if i == 0 { anchor(case) } else { "compare".to_owned() };
        blocks.extend(run_blocks(label, run, runs.len() > 1, &link));
    }
    if runs.len() > 1 {
        blocks.extend(comparison(labels, runs));
    }
    blocks.extend(super::sections::fleet::page(labels, runs));
    blocks.extend(families(labels, runs));
    blocks
}

/// A run's facts and its findings, whose evidence links to `link(case)`.
fn run_blocks(label: &str, run: &Run, several: bool, link: &dyn Fn(&str) -> String) -> Vec<Block> {
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
    blocks.push(Block::Table {
        head: vec!["".into(), "".into()],
        rows: [
            (
                "device",
                format!(
                    "{} ({}, vendor 0x{:04x}, device 0x{:04x})",
                    d.name, d.kind, d.vendor_id, d.device_id
                ),
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
        ]
        .into_iter()
        .map(|(k, v)| (None, vec![k.to_owned(), v]))
        .collect(),
    });
    if run.facts.is_some() || !run.header.is_empty() {
        blocks.push(Block::Fold {
            summary: "The run's header".into(),
            blocks: vec![Block::Pre(super::text::header(run, true))],
        });
    }
    blocks.extend(costs::block(run));
    let found = findings::of(run);
    let heading = if several { format!("Findings on {}", d.name) } else { "Findings".into() };
    blocks.push(Block::Heading { level: 3, text: heading, id: format!("findings-{}", anchor(label)) });
    blocks.push(match found.is_empty() {
        true => Block::Para("The run has none of the cases the findings rest on.".into()),
        false => Block::List(found.iter().map(|f| finding_item(f, link)).collect()),
    });
    blocks
}

/// Where the run ran, as its record says, and the devices that ran with it.
fn where_text(run: &Run) -> String {
    let mut parts = super::text::header::where_parts(run);
    parts.extend(super::text::header::together(run));
    match parts.is_empty() {
        true => "not recorded (a file from before perftest kept it)".into(),
        false => parts.join("; "),
    }
}

fn finding_item(f: &Finding, link: &dyn Fn(&str) -> String) -> (String, Vec<(String, String)>) {
    let links = f.evidence.iter().map(|(case, shown)| (format!("{case}: {shown}"), link(case))).collect();
    (f.text.clone(), links)
}

/// The compare verdicts of every run against the first.
fn comparison(labels: &[String], runs: &[Run]) -> Vec<Block> {
    let comparison = compare::compare(labels, runs);
    let mut blocks =
        vec![Block::Heading { level: 2, text: "Compared with the first run".into(), id: "compare".into() }];
    blocks.push(Block::List(comparison.summaries.iter().map(|s| (s.clone(), Vec::new())).collect()));
    let head = std::iter::once("case".to_owned()).chain(comparison.runs.iter().cloned()).collect();
    let rows = comparison
        .rows
        .iter()
        .map(|row| {
            let cells = (0..row.cells.len()).map(|i| match (row.ratios[i], row.verdicts[i]) {
                (Some(ratio), Some((verdict, _))) if i > 0 => {
                    format!("{} ({}, {})", row.cells[i], ratio_text(ratio), verdict.word())
                }
                _ => row.cells[i].clone(),
            });
            (None, std::iter::once(row.name.clone()).chain(cells).collect())
        })
        .collect();
    blocks.push(Block::Fold {
        summary: format!("Every case side by side ({} rows)", comparison.rows.len()),
        blocks: vec![Block::Table { head, rows }],
    });
    blocks
}

/// Per family: what it measures, its chart, and the first run's table.
fn families(labels: &[String], runs: &[Run]) -> Vec<Block> {
    let mut blocks = vec![Block::Heading { level: 2, text: "Families".into(), id: "families".into() }];
    for family in &runs[0].families {
        let cases: Vec<&CaseResult> = runs[0].cases.iter().filter(|c| c.family == family.name).collect();
        if cases.is_empty() {
            continue;
        }
        blocks.push(Block::Heading {
            level: 3,
            text: format!("{} ({} cases)", family.name, cases.len()),
            id: format!("family-{}", family.name),
        });
        blocks.push(Block::Para(format!(
            "Measures {}. More: docs/families/{}.md.",
            family.measures, family.name
        )));
        if family.name == crate::analysis::instructions::FAMILY {
            blocks.extend(instructions::blocks(labels, runs));
        }
        // The units as strips (the first run's only: one device's units are its own).
        if family.name == "units" {
            if let Some(Ok(svg)) = plot::units::svg(&runs[0]) {
                blocks.push(Block::Chart { file: "units-strips.svg".into(), svg });
            }
        }
        let only: Vec<Run> = runs
            .iter()
            .map(|r| Run {
                cases: r.cases.iter().filter(|c| c.family == family.name).cloned().collect(),
                ..r.clone()
            })
            .collect();
        if only.iter().any(|r| r.cases.iter().any(|c| c.rate.is_some())) {
            if let Ok(svg) = plot::svg(labels, &only, Metric::Rate) {
                blocks.push(Block::Chart { file: format!("{}.svg", family.name), svg });
            }
        }
        let head = ["case", "rate", "per clock per compute unit", "% of peak", "ratio", "flags"];
        let rows = cases.iter().map(|c| (Some(anchor(&c.name)), row(c))).collect();
        blocks.push(Block::Fold {
            summary: format!("The {} table ({} rows)", family.name, cases.len()),
            blocks: vec![Block::Table { head: head.map(str::to_owned).to_vec(), rows }],
        });
    }
    blocks
}

/// A case's table row: the original's per-GPU table, with perftest's columns.
fn row(c: &CaseResult) -> Vec<String> {
    let rate = match (c.status, &c.rate) {
        (Status::Ok, Some(rate)) => rate.text(),
        (Status::Ok, None) => c.reason.clone().unwrap_or_default(),
        _ => super::text::status_text(c),
    };
    let per_clock = c.per_clock.first().map_or(String::new(), |a| format!("{} {}", sig4(a.value), a.unit));
    let peak = c.peak_percent.map_or(String::new(), |p| format!("{p:.1}%"));
    let ratio = c.ratio.map_or(String::new(), ratio_text);
    let flags: Vec<String> = c.flags.iter().map(|f| f.name()).collect();
    vec![c.name.clone(), rate, per_clock, peak, ratio, flags.join(", ")]
}
