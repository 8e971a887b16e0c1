//! `perftest report RUN.json [MORE.json ...] --output DIR`: the page a programmer acts on, as
//! `DIR/index.html` (self-contained: inline SVG and CSS, no script, no network) and `DIR/report.md`
//! (the same blocks, its charts beside it in `DIR/charts/`).
//!
//! The page is built once as [`Block`]s, from the views under [`super::sections`] (each run's
//! facts and findings, the comparison, the fleet, the families), and rendered twice. Runs of one device row whose cases do
//! not overlap (a full run made in parts, `--family` by `--family`) are one run here; runs of
//! other devices, or of the same cases again, are compared: verdicts side by side.

use std::path::Path;

use super::doc::{html, markdown};
use super::output::write_atomic;
use super::sections;
use crate::error::{Error, Result};
use crate::results::model::Run;

pub use super::doc::{anchor, Block};

/// Every file [`write()`] may write into `dir` for `runs`: its page, its markdown and a chart per
/// family.
pub fn files(dir: &Path, runs: &[Run]) -> Vec<std::path::PathBuf> {
    let names: std::collections::BTreeSet<&str> =
        runs.iter().flat_map(|r| &r.families).map(|f| f.name.as_str()).collect();
    // The charts of the families' own parts beside the families' (where a run has them).
    let charts = names
        .into_iter()
        .map(|name| format!("{name}.svg"))
        .chain(sections::family_charts().map(str::to_owned))
        .chain(["energy.svg".to_owned()])
        .map(|name| dir.join("charts").join(name));
    [dir.join("index.html"), dir.join("report.md")].into_iter().chain(charts).collect()
}

/// Writes the report of the runs in `files` (already loaded as `runs`) to `dir` (a symbolic
/// link the kernel would not follow is refused, as for every output).
pub fn write(labels: &[String], runs: Vec<Run>, dir: &Path) -> Result<()> {
    let dir = &super::output::resolve(dir)?;
    let (labels, runs) = crate::analysis::parts::combine(labels, runs);
    let blocks = blocks(&labels, &runs);
    write_blocks(dir, &title(&runs), &blocks)
}

/// Writes `blocks` to `dir` as a page titled `title`: `index.html`, `report.md` and each chart
/// under `charts/` (a symbolic link the kernel would not follow is refused).
pub fn write_blocks(dir: &Path, title: &str, blocks: &[Block]) -> Result<()> {
    // Its folders are made through no link the kernel would not follow, as every output is written.
    let dir = &super::output::resolve(dir)?;
    let failed = |detail: String| Error::Output { path: dir.display().to_string(), detail };
    std::fs::create_dir_all(dir.join("charts")).map_err(|e| failed(e.to_string()))?;
    for block in blocks.iter().flat_map(flatten) {
        if let Block::Chart { file, svg } = block {
            write_atomic(&dir.join("charts").join(file), svg)?;
        }
    }
    write_atomic(&dir.join("report.md"), &markdown(blocks))?;
    write_atomic(&dir.join("index.html"), &html(title, blocks))
}

/// Each block and the blocks folded or sectioned in it.
fn flatten(block: &Block) -> Vec<&Block> {
    match block {
        Block::Fold { blocks, .. } | Block::Section { blocks, .. } => {
            std::iter::once(block).chain(blocks.iter().flat_map(flatten)).collect()
        }
        other => vec![other],
    }
}

/// Whether every run is of one device model (a fleet, or one GPU measured again).
fn alike(runs: &[Run]) -> bool {
    runs.len() > 1 && runs.iter().all(|r| r.device.name == runs[0].device.name)
}

/// The page's title: one device, devices compared, or runs of one model.
fn title(runs: &[Run]) -> String {
    match (runs, alike(runs)) {
        ([run], _) => format!("perftest report: {}", run.device.name),
        ([first, ..], true) => format!("perftest report: {} runs of {}", runs.len(), first.device.name),
        _ => {
            let devices: Vec<&str> = runs.iter().map(|r| r.device.name.as_str()).collect();
            format!("perftest report: {}", devices.join(" vs "))
        }
    }
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
        // Runs of one model: the first's facts and findings, the others in the comparison.
        if i > 0 && alike(runs) {
            continue;
        }
        // Only the first run has tables to link to; the others' evidence links to the comparison.
        let link = |case: &str| if i == 0 { anchor(case) } else { "compare".to_owned() };
        blocks.extend(sections::overview::page(label, run, runs.len() > 1 && !alike(runs), &link));
    }
    if alike(runs) {
        blocks.push(Block::Para(format!(
            "The other {} runs are of the same model ({}): the comparison below holds them beside the first, \
             and where three or more share a driver and settings, the fleet section judges them.",
            runs.len() - 1,
            runs[0].device.name
        )));
    }
    if runs.len() > 1 {
        blocks.extend(sections::compare::page(labels, runs));
    }
    blocks.extend(sections::fleet::page(labels, runs));
    blocks.extend(sections::energy::page(labels, runs));
    blocks.extend(sections::cases::page(labels, runs));
    // A map of the page after its first paragraph.
    let contents = super::doc::contents(&blocks);
    blocks.insert(1, contents);
    blocks
}
