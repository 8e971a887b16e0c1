//! Where the runs are: the files and folders a command is given, read one way for every command
//! (`fleet`, `history`, `health`'s own runs). A file given is read as given; in a folder, every
//! `*.json` entry that is a regular file (through a link), in name order; an entry that is no
//! regular file (a FIFO, a socket, a folder, a link to nothing) is named and skipped, never opened,
//! so it cannot hang the command or end it. Each file is read once, however often it is given.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// How deep a folder is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Its own entries only (a screen's folder).
    Top,
    /// Its folders' too, at any depth (kept checks, a folder per day); a link to a folder inside is
    /// not followed, so a loop cannot hold the walk.
    Any,
}

/// A path given or found that is not read, and why (`is a FIFO, not a file`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The path.
    pub path: PathBuf,
    /// Why, as a sentence's end.
    pub why: String,
}

/// The files to read, in order, and what was passed over.
#[derive(Debug, Default)]
pub struct Found {
    /// Each file once.
    pub files: Vec<PathBuf>,
    /// Entries and repeats not read.
    pub skipped: Vec<Skipped>,
}

/// The files `given` names (see the module's rules); a folder that holds no `*.json` at all is an
/// error (its runs have not been written), exit 10.
pub fn gather(given: &[PathBuf], depth: Depth) -> Result<Found> {
    let mut found = Found::default();
    let mut listed = Vec::new();
    for path in given {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let before = listed.len() + found.skipped.len();
                walk(path, depth, &mut listed, &mut found.skipped)?;
                if listed.len() + found.skipped.len() == before {
                    return Err(Error::ResultsFile {
                        path: path.display().to_string(),
                        problem: "holds no .json results file: pass the folder the runs wrote with --json"
                            .into(),
                    });
                }
            }
            // A file, or a path that is not there (its load says so), or the user's own pipe.
            _ => listed.push(path.clone()),
        }
    }
    let mut seen: Vec<((u64, u64), PathBuf)> = Vec::new();
    for path in listed {
        let Some(id) = file_id(&path) else {
            found.files.push(path);
            continue;
        };
        match seen.iter().find(|(known, _)| *known == id) {
            Some((_, first)) => found.skipped.push(Skipped {
                why: match *first == path {
                    true => "was given twice: read once".to_owned(),
                    false => format!("is the same file as {}: read once", first.display()),
                },
                path,
            }),
            None => {
                seen.push((id, path.clone()));
                found.files.push(path);
            }
        }
    }
    Ok(found)
}

/// The `*.json` regular files in `dir` (and its folders, with [`Depth::Any`]), in name order,
/// into `files`; other `*.json` entries into `skipped`.
fn walk(dir: &Path, depth: Depth, files: &mut Vec<PathBuf>, skipped: &mut Vec<Skipped>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::ResultsFile {
        path: dir.display().to_string(),
        problem: format!("cannot be read ({e})"),
    })?;
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for entry in entries {
        let json = entry.extension().is_some_and(|e| e == "json");
        let Ok(own) = std::fs::symlink_metadata(&entry) else { continue };
        if own.is_dir() {
            if depth == Depth::Any {
                walk(&entry, depth, files, skipped)?;
            }
            continue;
        }
        if !json {
            continue;
        }
        let why = match std::fs::metadata(&entry) {
            Ok(meta) if meta.is_file() => {
                files.push(entry);
                continue;
            }
            Ok(meta) => format!("is {}, not a results file", kind(&meta)),
            Err(e) if own.file_type().is_symlink() => format!("is a link to nothing readable ({e})"),
            Err(e) => format!("cannot be read ({e})"),
        };
        skipped.push(Skipped { path: entry, why });
    }
    Ok(())
}

/// What a file that is not a regular file is, in words.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    match () {
        () if t.is_dir() => "a folder",
        () if t.is_fifo() => "a FIFO",
        () if t.is_socket() => "a socket",
        () if t.is_block_device() || t.is_char_device() => "a device",
        () => "not a regular file",
    }
}

/// The file's device and inode, which links and repeated mentions share.
pub fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_given_twice_or_through_a_link_is_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("a.json");
        std::fs::write(&run, "{}").unwrap();
        std::os::unix::fs::symlink(&run, dir.path().join("b.json")).unwrap();
        let found = gather(&[dir.path().to_path_buf(), run.clone()], Depth::Top).unwrap();
        assert_eq!(found.files, std::slice::from_ref(&run));
        assert_eq!(found.skipped.len(), 2, "{:?}", found.skipped);
        assert!(found.skipped[0].why.starts_with("is the same file as "), "{:?}", found.skipped[0]);
    }

    #[test]
    fn odd_entries_are_named_and_skipped_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("run.json"), "{}").unwrap();
        rustix::fs::mkfifoat(rustix::fs::CWD, d.join("fifo.json"), rustix::fs::Mode::from_raw_mode(0o600))
            .unwrap();
        std::os::unix::fs::symlink(d.join("gone"), d.join("dangling.json")).unwrap();
        std::fs::create_dir(d.join("folder.json")).unwrap();
        std::fs::write(d.join("folder.json").join("deep.json"), "{}").unwrap();
        std::os::unix::fs::symlink(d, d.join("loop.json")).unwrap();
        std::fs::write(d.join("notes.txt"), "").unwrap();
        let top = gather(&[d.to_path_buf()], Depth::Top).unwrap();
        assert_eq!(top.files, [d.join("run.json")]);
        let why: Vec<(String, &str)> = top
            .skipped
            .iter()
            .map(|s| (s.path.file_name().unwrap().to_string_lossy().into_owned(), s.why.as_str()))
            .collect();
        assert_eq!(why[0].0, "dangling.json");
        assert!(why[0].1.starts_with("is a link to nothing readable ("), "{why:?}");
        assert_eq!(why[1], ("fifo.json".into(), "is a FIFO, not a results file"));
        assert_eq!(why[2], ("loop.json".into(), "is a folder, not a results file"));
        assert_eq!(why.len(), 3, "{why:?}");
        // At any depth a real folder is walked; a link to one is not followed.
        let any = gather(&[d.to_path_buf()], Depth::Any).unwrap();
        assert_eq!(any.files, [d.join("folder.json").join("deep.json"), d.join("run.json")]);
        let empty = tempfile::tempdir().unwrap();
        let error = gather(&[empty.path().to_path_buf()], Depth::Top).unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::BadResults);
    }
}
