//! Reading a results file back: bounded, its format version first (a newer file is refused
//! before its fields are), every field checked ([`super::validate`]), and what older formats
//! did not keep filled in as today's would say it.

use std::path::Path;

use serde::Deserialize;

use super::model::{read_bounded, CaseResult, Ending, Run, RunState, Status, FORMAT_VERSION};
use crate::error::{Error, Result};

/// Reads a perftest JSON results file, refusing missing files, other JSON and newer formats.
pub fn load(path: &Path) -> Result<Run> {
    let bad = |problem: String| Error::ResultsFile { path: path.display().to_string(), problem };
    // Text that is not JSON, or JSON without a format version, is no run at all (a verdict, a
    // stray file): `fleet` names and skips such files in a folder of runs.
    let not_a_run = |problem: String| Error::NotARun { path: path.display().to_string(), problem };
    let text =
        read_bounded(path).map_err(|p| if p.starts_with("is not JSON") { not_a_run(p) } else { bad(p) })?;
    // The version first, read without building the document (a `Value` tree costs 16-20 times
    // the file): a newer file must be refused before its fields are.
    #[derive(Deserialize)]
    struct Version {
        format_version: Option<serde_json::Value>,
    }
    let version = serde_json::from_str::<Version>(&text)
        .map_err(|e| not_a_run(format!("is not JSON ({e}); pass files written with --format json")))?;
    match version.format_version.as_ref().map(serde_json::Value::as_u64) {
        None | Some(None) => {
            return Err(not_a_run("is not a perftest results file (no format_version)".into()))
        }
        Some(Some(v)) if v > u64::from(FORMAT_VERSION) => {
            return Err(bad(format!(
                "has format version {v}, newer than this perftest reads ({FORMAT_VERSION}); update perftest"
            )))
        }
        Some(Some(_)) => {}
    }
    let mut run: Run =
        serde_json::from_str(&text).map_err(|e| bad(format!("is not a perftest results file ({e})")))?;
    drop(text);
    super::validate::check(&run).map_err(bad)?;
    if run.interrupted && run.ending.state == RunState::Complete {
        run.ending = Ending { state: RunState::Interrupted, exit_code: 1, message: None };
    }
    if let Some(warm) = run.warm_up.as_mut().filter(|w| !w.readings.is_empty()) {
        warm.watched = true;
    }
    if run.families.is_empty() {
        // Files before format 7 did not keep their families: this perftest's registry says.
        let names: Vec<String> = run.cases.iter().map(|c| c.family.clone()).collect();
        run.families = super::family::FamilyFacts::of_names(names.iter().map(String::as_str));
    }
    // Files before families kept their headline cases: this perftest's registry says.
    for family in run.families.iter_mut().filter(|f| f.quick.is_empty()) {
        if let Some(known) = crate::registry::families().into_iter().find(|f| f.name == family.name) {
            family.quick = known.quick.iter().map(|&name| name.to_owned()).collect();
        }
    }
    let before_6 = run.format_version < 6;
    if run.format_version < 7 {
        run.cases.iter_mut().for_each(untangle_status);
    }
    for case in &mut run.cases {
        // Before format 6 every case with a ratio had the original's columns.
        if before_6 && case.ratio.is_some() {
            case.original_time = true;
        }
        if case.group.is_empty() {
            case.group = case.family.clone();
        }
        if case.variant.is_empty() {
            case.variant = case.name.clone();
        }
        if case.rates.is_empty() {
            case.rates.extend(case.rate.clone());
        }
    }
    Ok(run)
}

/// A case of a format 1-6 file that said `ok` with `verified: N results match the CPU reference`
/// or `compiled (N pipeline executable(s)...` in its reason, as format 7 says it.
fn untangle_status(case: &mut CaseResult) {
    let number = |text: &str| text.split(|c: char| !c.is_ascii_digit()).find(|w| !w.is_empty())?.parse().ok();
    let Some(reason) = case.reason.as_deref().filter(|_| case.status == Status::Ok) else { return };
    if let Some(checked) = reason.strip_prefix("verified: ") {
        (case.status, case.checked) = (Status::Verified, number(checked));
    } else if let Some(compiled) = reason.strip_prefix("compiled (") {
        (case.status, case.executables) =
            (Status::Compiled, number(compiled.split(';').next().unwrap_or("")));
    } else {
        return;
    }
    case.reason = None;
}
