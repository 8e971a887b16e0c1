//! `perftest report`: a run's page (index.html and report.md) of findings, tables and charts.

use std::path::PathBuf;

use crate::error::Result;
use crate::report::output::Named;

/// Write a run's page of findings, tables and charts into a folder.
///
/// DIR/index.html (self-contained: inline SVG, no script) and DIR/report.md: the run's device
/// and settings, the findings computed from it, a table and chart per family, and with two or
/// more runs, the compare verdicts.
#[derive(Debug, clap::Args)]
#[command(display_order = 2)]
pub struct Args {
    /// One or more JSON results files; a run given right after another of the same device
    /// row and settings, with no case in common, is a part of it (a run made family by
    /// family); any other run is compared with the first.
    #[arg(required = true, num_args = 1.., value_name = "RUN")]
    pub files: Vec<PathBuf>,
    /// The folder to write into (made if missing).
    #[arg(long, value_name = "DIR")]
    pub output: PathBuf,
}

/// Writes the page of `args.files` into `args.output`.
pub fn run(args: &Args) -> Result<()> {
    let (labels, runs) = super::inputs::load_all(&args.files)?;
    let written = crate::report::page::files(&args.output, &runs);
    let named: Vec<Named<'_>> =
        written.iter().map(|path| Named { role: "the report's file", path }).collect();
    crate::report::output::guard(&named, &super::inputs::named(&args.files))?;
    crate::report::page::write(&labels, runs, &args.output)?;
    Ok(crate::session::progress::print(&format!(
        "{}: index.html and report.md written",
        args.output.display()
    ))?)
}
