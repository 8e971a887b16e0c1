//! A command's runs: the results files and folders it was given ([`crate::results::files`]:
//! one depth rule, each file once, odd entries named and skipped), loaded, and named as inputs
//! that no output may be.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::report::output::Named;
use crate::results::files::{Depth, Skipped};
use crate::results::Run;

/// The results files a command reads, as inputs that no output may be.
pub fn named(files: &[PathBuf]) -> Vec<Named<'_>> {
    files.iter().map(|path| Named { role: "the results file", path }).collect()
}

/// Loads every file given (a bad one fails before anything is written), labelled by its path.
pub fn load_all(files: &[PathBuf]) -> Result<(Vec<String>, Vec<Run>)> {
    let runs = files.iter().map(|f| crate::results::load(f)).collect::<Result<Vec<_>>>()?;
    Ok((files.iter().map(|f| f.display().to_string()).collect(), runs))
}

/// The files `given` names, read to `depth` in folders, and what was passed over.
pub fn gather(given: &[PathBuf], depth: Depth) -> Result<(Vec<PathBuf>, Vec<Skipped>)> {
    let found = crate::results::files::gather(given, depth)?;
    Ok((found.files, found.skipped))
}

/// The runs in `files`, each with its file, passed through `keep` (which may refuse one, or
/// slim it); a file that is JSON but no run is passed over (into `skipped`); none at all is an
/// error naming `given`, saying `hint` (exit 10).
pub fn load_runs(
    files: &[PathBuf],
    given: &[PathBuf],
    hint: &str,
    skipped: &mut Vec<Skipped>,
    mut keep: impl FnMut(&Path, &mut Run) -> Result<()>,
) -> Result<Vec<(String, Run)>> {
    load_each(files, given, hint, skipped, |file, mut run| {
        keep(file, &mut run)?;
        Ok((file.display().to_string(), run))
    })
}

/// As [`load_runs`], each run turned by `keep` into what the command keeps of it as it is read:
/// one file in memory at a time, however many are given.
pub fn load_each<T>(
    files: &[PathBuf],
    given: &[PathBuf],
    hint: &str,
    skipped: &mut Vec<Skipped>,
    mut keep: impl FnMut(&Path, Run) -> Result<T>,
) -> Result<Vec<T>> {
    let mut kept = Vec::new();
    for file in files {
        match crate::results::load(file) {
            Ok(run) => kept.push(keep(file, run)?),
            Err(Error::NotARun { problem, .. }) => skipped.push(Skipped { path: file.clone(), why: problem }),
            Err(other) => return Err(other),
        }
    }
    if kept.is_empty() {
        return Err(Error::ResultsFile {
            path: given.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
            problem: format!("hold no perftest run: {hint}"),
        });
    }
    Ok(kept)
}
