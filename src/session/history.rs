//! `perftest history`: read runs (files, and folders at any depth), find each device's changes
//! over time ([`crate::analysis::history`]) and write them as text, markdown or JSON, and as a page
//! with a chart per device.

use std::path::{Path, PathBuf};

use crate::analysis::fleet::Member;
use crate::cli::CompareFormat;
use crate::error::{Error, Result};
use crate::results::Run;

/// What `perftest history` is asked.
pub struct Request<'a> {
    /// The files and folders given.
    pub inputs: &'a [PathBuf],
    /// The document's format.
    pub format: CompareFormat,
    /// Where it goes (stdout when `None`).
    pub output: Option<&'a Path>,
    /// Where the page goes, if anywhere.
    pub report: Option<&'a Path>,
}

/// Runs `perftest history` as `request` says.
pub fn history(request: &Request<'_>) -> Result<()> {
    fn named<'p>(role: &'static str, path: &'p Path) -> crate::report::output::Named<'p> {
        crate::report::output::Named { role, path }
    }
    let found = crate::results::files::gather(request.inputs, crate::results::files::Depth::Any)?;
    let files = found.files;
    let inputs: Vec<crate::report::output::Named<'_>> =
        files.iter().map(|p| named("the results file", p)).collect();
    let mut outputs: Vec<crate::report::output::Named<'_>> =
        request.output.map(|p| named("--output", p)).into_iter().collect();
    let page = request.report.map(|dir| [dir.join("index.html"), dir.join("report.md")]);
    outputs.extend(page.iter().flatten().map(|p| named("--report", p)));
    crate::report::output::guard(&outputs, &inputs)?;
    for skipped in &found.skipped {
        super::progress::say(&format!(
            "perftest history: skipped {} {}",
            crate::format::printable_lines(&skipped.path.display().to_string()),
            skipped.why
        ));
    }
    let mut runs: Vec<(String, Run)> = Vec::new();
    let mut not_runs = 0;
    for file in &files {
        match crate::results::load(file) {
            Ok(mut run) => {
                // A history is in time order: a date that is no time would put its run anywhere.
                if humantime::parse_rfc3339_weak(&run.date).is_err() {
                    return Err(Error::ResultsFile {
                        path: file.display().to_string(),
                        problem: format!(
                            "has the date {:?}, which is no RFC 3339 time (2026-11-28T06:00:00Z): history orders \
                             runs by it; leave the file out or give it the date it ran",
                            crate::format::printable_lines(&run.date)
                        ),
                    });
                }
                super::fleet::slim(&mut run);
                runs.push((file.display().to_string(), run));
            }
            Err(Error::NotARun { .. }) => not_runs += 1,
            Err(other) => return Err(other),
        }
    }
    if not_runs > 0 {
        super::progress::say(&format!(
            "perftest history: {not_runs} JSON file(s) that are not perftest runs skipped"
        ));
    }
    if runs.is_empty() {
        return Err(Error::ResultsFile {
            path: request.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
            problem:
                "hold no perftest run: pass the runs kept with --json (perftest health --keep keeps them)"
                    .into(),
        });
    }
    let members: Vec<Member<'_>> =
        runs.iter().map(|(file, run)| Member { label: file.clone(), run }).collect();
    let devices = crate::analysis::history::history(&members);
    let document = match request.format {
        CompareFormat::Text => crate::report::sections::history::to_text(&devices),
        CompareFormat::Markdown => crate::report::sections::history::to_markdown(&devices),
        CompareFormat::Json => serde_json::to_string_pretty(&devices)
            .map_err(|source| Error::Serialize { what: "the history", source })?,
    };
    if let Some(dir) = request.report {
        let blocks = crate::report::sections::history::blocks(&devices, true);
        crate::report::page::write_blocks(dir, "perftest history", &blocks)?;
    }
    match request.output {
        Some(path) => crate::report::write_atomic(path, &document),
        None => Ok(super::progress::print(document.trim_end())?),
    }
}
