//! `perftest show`: a kept run printed as the live run printed it, or in another format.

use std::path::PathBuf;

use crate::error::Result;
use crate::report::Format;

/// Print a kept run as the live run printed it, or in another format.
///
/// A run kept with --json (or written with --format json): its header, a line per case, its
/// summaries.
#[derive(Debug, clap::Args)]
#[command(display_order = 1)]
pub struct Args {
    /// The JSON results file.
    #[arg(value_name = "RUN")]
    pub file: PathBuf,
    /// text (as the run printed it), json, csv or markdown.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Write to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Text: each case's full line (every rate, per clock, peak, median, min, spread and flag)
    /// instead of the columns that fit 120.
    #[arg(long)]
    pub verbose: bool,
}

/// Renders the run in `args.file` as `args` say.
pub fn run(args: &Args) -> Result<()> {
    let inputs = super::inputs::named(std::slice::from_ref(&args.file));
    super::emit::guard(&[("--output", args.output.as_deref())], &inputs)?;
    let run = crate::results::load(&args.file)?;
    super::emit::write(args.output.as_deref(), &crate::report::render(&run, args.format, args.verbose)?)
}
