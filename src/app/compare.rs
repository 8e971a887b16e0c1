//! `perftest compare`: runs side by side, each case's verdict against the first run, and the CI
//! gate `--fail-on-slower`.

use std::path::PathBuf;

use super::emit::{self, Format};
use crate::error::Result;

/// Compare runs: the verdict, the largest changes, then a column per run.
///
/// Runs kept with --json (or written with --format json); the ratios are against the first.
#[derive(Debug, clap::Args)]
#[command(display_order = 3)]
pub struct Args {
    /// Two or more JSON results files; cases are matched by name.
    #[arg(required = true, num_args = 2.., value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// text, markdown or json.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Write to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit with code 11 if a case of a later run is slower than the first run's by more than
    /// PCT percent and beyond the noise (verdict "slower"): a CI gate.
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub fail_on_slower: Option<f64>,
}

fn parse_percent(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=100.0).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a percentage from 0 to 100")),
    }
}

/// Compares `args.files`: the verdict is decided first; a document that cannot be written
/// changes it not.
pub fn run(args: &Args) -> Result<()> {
    emit::guard(&[("--output", args.output.as_deref())], &super::inputs::named(&args.files))?;
    let (labels, runs) = super::inputs::load_all(&args.files)?;
    let verdict = match args.fail_on_slower {
        Some(percent) => {
            let slower = crate::analysis::verdict::slower_than(&runs, percent);
            match slower.first() {
                Some((worst, change)) => Err(crate::Error::Slower {
                    count: slower.len(),
                    percent,
                    worst: crate::format::printable(worst).into_owned(),
                    change: change * 100.0,
                }),
                None => Ok(()),
            }
        }
        None => Ok(()),
    };
    let comparison = crate::report::compare::compare(&labels, &runs);
    let document = emit::document(
        args.format,
        || crate::report::sections::compare::to_text(&comparison),
        || crate::report::sections::compare::to_markdown(&comparison),
        &comparison,
        "the comparison",
    )?;
    let written = emit::write(args.output.as_deref(), &document);
    emit::decided(verdict, written.err().into_iter().collect())
}
