//! `perftest check`: a run held to its driver's expectations file (known faults and skips).

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::registry;

/// Check a run against a driver's known faults (CI).
///
/// Every case its selection lists is there with a status, every failure is a known one, and
/// every known one still happens (exit 15 otherwise, each problem named).
#[derive(Debug, clap::Args)]
#[command(display_order = 6)]
pub struct Args {
    /// The JSON results file.
    #[arg(value_name = "RUN")]
    pub file: PathBuf,
    /// The driver's expectations file (ci/expectations/ has lavapipe's).
    #[arg(long, value_name = "FILE")]
    pub expect: PathBuf,
}

/// Checks `args.file` against `args.expect`: every listed case there, every failure known,
/// every known one still happening; else exit 15 with each problem.
pub fn run(args: &Args) -> Result<()> {
    let run = crate::results::load(&args.file)?;
    let expected = crate::analysis::expect::Expectations::load(&args.expect)?;
    let listed: Vec<String> = listed_by(&run, &args.file)?.into_iter().map(|c| c.name).collect();
    let shown = args.expect.display().to_string();
    let open: Vec<&str> =
        registry::families().into_iter().filter(|f| f.device_cases).map(|f| f.name).collect();
    let problems = crate::analysis::expect::check(&run, &listed, &open, &expected, &shown);
    if !problems.is_empty() {
        return Err(crate::Error::Unexpected {
            run: args.file.display().to_string(),
            expect: shown,
            problems,
        });
    }
    let failed = run.cases.iter().filter(|c| c.status.is_failure()).count();
    Ok(crate::session::progress::print(&format!(
        "{}: all {} listed cases present; {failed} failed as {} expects",
        args.file.display(),
        listed.len(),
        shown
    ))?)
}

/// The cases a saved run's selection lists (its filter, skip and axes, expanded as `--list` does).
fn listed_by(run: &crate::results::Run, file: &Path) -> Result<Vec<registry::CaseSpec>> {
    let axes = run
        .settings
        .axes
        .iter()
        .map(|text| registry::parse_setting(text))
        .collect::<std::result::Result<Vec<_>, String>>()
        .map_err(|e| crate::Error::ResultsFile {
            path: file.display().to_string(),
            problem: format!("has an axis perftest cannot read ({e})"),
        })?;
    let s = &run.settings;
    let selection = registry::Selection {
        families: s.families.clone(),
        filter: s.filter.clone(),
        skip: s.skip.clone(),
        quick: s.quick,
        names: s.cases.clone(),
    };
    selection.apply(registry::expand(&axes, None))
}
