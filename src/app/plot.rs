//! `perftest plot`: runs drawn as an SVG bar chart, a panel per family.

use std::path::PathBuf;

use crate::error::Result;
use crate::report::plot::Metric;

/// Draw runs as an SVG bar chart, a panel per family.
///
/// Runs kept with --json (or written with --format json): a bar per case and run.
#[derive(Debug, clap::Args)]
#[command(display_order = 4)]
pub struct Args {
    /// One or more JSON results files; each gets its own bar colour.
    #[arg(required = true, num_args = 1.., value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// rate (each case's headline rate) or ratio (to its family's baseline).
    #[arg(long, value_enum, default_value = "rate")]
    pub metric: Metric,
    /// The SVG file to write (atomically).
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
}

/// Draws `args.files` into `args.output`.
pub fn run(args: &Args) -> Result<()> {
    super::emit::guard(&[("--output", Some(args.output.as_path()))], &super::inputs::named(&args.files))?;
    let (labels, runs) = super::inputs::load_all(&args.files)?;
    crate::report::plot::plot(&labels, &runs, args.metric, &args.output)
}
