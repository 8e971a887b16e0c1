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
    let mut found = Vec::new();
    for input in request.inputs {
        walk(input, &mut found)?;
    }
    // Each file once, however often it was given (a file and its folder, a link).
    let mut seen = Vec::new();
    let mut files = Vec::new();
    for path in found {
        match super::fleet::file_id(&path) {
            Some(id) if seen.contains(&id) => continue,
            Some(id) => seen.push(id),
            None => {}
        }
        files.push(path);
    }
    let inputs: Vec<crate::report::output::Named<'_>> =
        files.iter().map(|p| named("the results file", p)).collect();
    let mut outputs: Vec<crate::report::output::Named<'_>> =
        request.output.map(|p| named("--output", p)).into_iter().collect();
    let page = request.report.map(|dir| [dir.join("index.html"), dir.join("report.md")]);
    outputs.extend(page.iter().flatten().map(|p| named("--report", p)));
    crate::report::output::guard(&outputs, &inputs)?;
    let mut runs: Vec<(String, Run)> = Vec::new();
    let mut skipped = 0;
    for file in &files {
        match crate::results::load(file) {
            Ok(mut run) => {
                super::fleet::slim(&mut run);
                runs.push((file.display().to_string(), run));
            }
            Err(Error::NotARun { .. }) => skipped += 1,
            Err(other) => return Err(other),
        }
    }
    if skipped > 0 {
        super::progress::say(&format!(
            "perftest history: {skipped} JSON file(s) that are not perftest runs skipped"
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
        None => Ok(super::progress::write_line(document.trim_end())?),
    }
}

/// `path` if a file, else every `*.json` under it at any depth, in name order (a folder given is
/// followed through a link; links to folders inside are not: a loop cannot hold the walk).
fn walk(path: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let bad = |e: std::io::Error| Error::ResultsFile {
        path: path.display().to_string(),
        problem: format!("cannot be read ({e})"),
    };
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(path).map_err(bad)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for entry in entries {
        let kind = std::fs::symlink_metadata(&entry).map(|m| m.file_type());
        match kind {
            Ok(t) if t.is_dir() => walk(&entry, files)?,
            Ok(_) if entry.extension().is_some_and(|e| e == "json") => files.push(entry),
            _ => {}
        }
    }
    Ok(())
}
