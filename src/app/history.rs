//! `perftest history`: runs (files, and folders at any depth), each device's changes over time
//! ([`crate::analysis::history`]), as text, markdown or JSON, and as a page with a chart per device.

use std::path::PathBuf;

use super::emit::{self, Format};
use crate::error::{Error, Result};
use crate::results::files::Depth;

/// Find where each GPU's rates changed across its runs over time.
///
/// Per device (its UUID) and settings, each case's rates in date order, their change points by
/// e-divisive means (as Apache Otava finds them), each confirmed by three runs after it, and
/// the driver changes beside them (docs/fleet.md). Exits 22 where a GPU got slower and stayed so
/// (confirmed), 21 where a run computed wrong bits.
#[derive(Debug, clap::Args)]
#[command(display_order = 7)]
pub struct Args {
    /// JSON results files, or folders of them (every *.json under each, at any depth).
    #[arg(required = true, value_name = "RUN|DIR")]
    pub inputs: Vec<PathBuf>,
    /// text, markdown or json.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Write to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write a page with a chart per device (its changes, else the cases that drifted
    /// most) into DIR (index.html, report.md, charts/).
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// Also write each GPU's changes, drift, wrong bits and the history's verdict to FILE in
    /// Prometheus's text format (node_exporter's textfile collector; labels as dcgm-exporter's).
    #[arg(long, value_name = "FILE")]
    pub metrics: Option<PathBuf>,
}

/// Runs `perftest history` as `args` say.
pub fn run(args: &Args) -> Result<()> {
    let say = crate::session::progress::say;
    let (files, skipped) = super::inputs::gather(&args.inputs, Depth::Any)?;
    let page = args.report.as_ref().map(|dir| [dir.join("index.html"), dir.join("report.md")]);
    let mut outputs = vec![("--output", args.output.as_deref()), ("--metrics", args.metrics.as_deref())];
    outputs.extend(page.iter().flatten().map(|p| ("--report", Some(p.as_path()))));
    emit::guard(&outputs, &super::inputs::named(&files))?;
    for skipped in &skipped {
        let path = skipped.path.display().to_string();
        say(&format!("perftest history: skipped {} {}", crate::format::printable_lines(&path), skipped.why));
    }
    let mut not_runs = Vec::new();
    let hint = "pass the runs kept with --json (perftest health --keep keeps them)";
    // Each run is kept as a history reads it (its rates, not its file) as it is read.
    let mut kept = crate::analysis::history::Runs::default();
    let read = super::inputs::load_each(&files, &args.inputs, hint, &mut not_runs, |file, run| {
        // A history is in time order: a date that is no time would put its run anywhere.
        if humantime::parse_rfc3339_weak(&run.date).is_err() {
            return Err(Error::ResultsFile {
                path: file.display().to_string(),
                problem: format!(
                    "has the date {:?}, which is no RFC 3339 time (2026-11-28T06:00:00Z): history orders runs \
                     by it; leave the file out or give it the date it ran",
                    crate::format::printable_lines(&run.date)
                ),
            });
        }
        kept.add(&run);
        Ok(())
    });
    if !not_runs.is_empty() {
        let files = crate::format::count(not_runs.len(), "JSON file");
        say(&format!(
            "perftest history: {files} that {} not perftest runs skipped",
            crate::format::is_are(not_runs.len())
        ));
    }
    read?;
    let devices = crate::analysis::history::history(&kept);
    // The verdict is decided first; a failed write is said after it and changes no verdict.
    let verdict = crate::analysis::history::ending(&devices);
    let document = emit::document(
        args.format,
        || crate::report::sections::history::to_text(&devices),
        || crate::report::sections::history::to_markdown(&devices),
        &devices,
        "the history",
    )?;
    let mut writes: Vec<Error> = emit::write(args.output.as_deref(), &document).err().into_iter().collect();
    if let Some(dir) = &args.report {
        let blocks = crate::report::sections::history::blocks(&devices, true);
        writes.extend(crate::report::page::write_blocks(dir, "perftest history", &blocks).err());
    }
    if let Some(path) = &args.metrics {
        let metrics = crate::report::prometheus::history(&devices);
        writes.extend(crate::report::write_atomic(path, &metrics).err());
    }
    emit::decided(verdict, writes)
}
