//! Writing a document to the path the user gave, without ever destroying what should not be.
//!
//! A regular file (or a path that does not exist yet) is replaced atomically: the document goes
//! into a temporary file beside it, created exclusively under an unpredictable name (`tempfile`),
//! flushed, given the old file's permissions, and renamed over it, so a reader never sees half a
//! document. A symlink is followed and its target replaced, so the link stays a link. Anything
//! else (`/dev/null`, a FIFO, a terminal) is written through, as a shell redirection would.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

fn output_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Output { path: path.display().to_string(), detail: e.to_string() }
}

/// What went wrong, in words, without the temporary file's name that `tempfile` adds.
fn io_error(path: &Path, e: std::io::Error) -> Error {
    use std::io::ErrorKind as K;
    let detail = match e.kind() {
        K::NotFound => "its folder does not exist".to_owned(),
        K::PermissionDenied => "permission denied".to_owned(),
        K::ReadOnlyFilesystem => "the file system is read-only".to_owned(),
        K::StorageFull => "the disk is full".to_owned(),
        _ => e.to_string(),
    };
    output_error(path, detail)
}

/// The file a write to `path` lands in: `path` itself, or a symlink's final target.
fn resolve(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Writes `text` to `path` (see the module documentation).
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let target = resolve(path);
    match std::fs::metadata(&target) {
        Ok(meta) if !meta.is_file() => write_through(&target, text).map_err(|e| io_error(path, e)),
        Ok(meta) => replace(&target, text, Some(meta.permissions())).map_err(|e| io_error(path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            replace(&target, text, None).map_err(|e| io_error(path, e))
        }
        Err(e) => Err(io_error(path, e)),
    }
}

/// The folder a temporary file for `target` goes in: its own (`.` for a bare file name).
fn folder(target: &Path) -> &Path {
    match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

fn replace(target: &Path, text: &str, permissions: Option<std::fs::Permissions>) -> std::io::Result<()> {
    let mut file =
        tempfile::Builder::new().prefix(".perftest-").suffix(".tmp").tempfile_in(folder(target))?;
    file.write_all(text.as_bytes())?;
    file.as_file().sync_all()?;
    if let Some(permissions) = permissions.or_else(new_file_permissions) {
        file.as_file().set_permissions(permissions)?;
    }
    // On failure the temporary file is removed when `PersistError` drops.
    file.persist(target).map(drop).map_err(|e| e.error)
}

/// What a newly created results file gets: readable by all, writable by its owner (the
/// temporary file's own mode is 0600).
#[cfg(unix)]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    None
}

fn write_through(target: &Path, text: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).open(target)?;
    file.write_all(text.as_bytes())?;
    file.flush()
}

/// Writes `text` to `path`; if that fails, keeps it in a new file in the temporary folder and
/// says where (the error names both), so a finished run is never lost to a bad destination.
pub fn write_or_rescue(path: &Path, text: &str) -> Result<()> {
    let Err(error) = write_atomic(path, text) else { return Ok(()) };
    let detail = match &error {
        Error::Output { detail, .. } => detail.clone(),
        other => other.to_string(),
    };
    let extension = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    let rescued =
        tempfile::Builder::new().prefix("perftest-rescued-").suffix(&extension).tempfile().and_then(
            |mut file| {
                file.write_all(text.as_bytes())?;
                file.keep().map_err(|e| e.error)
            },
        );
    match rescued {
        Ok((_, kept)) => Err(Error::OutputRescued {
            path: path.display().to_string(),
            detail,
            rescued: kept.display().to_string(),
        }),
        Err(_) => Err(error),
    }
}

/// Checks before a run that `path` can be written: creates and removes a temporary file in its
/// folder (or opens a non-regular target for writing), so a bad `--output` fails in a second,
/// not after an hour of measuring.
pub fn check_writable(path: &Path) -> Result<()> {
    let target = resolve(path);
    match std::fs::metadata(&target) {
        Ok(meta) if !meta.is_file() => {
            std::fs::OpenOptions::new().write(true).open(&target).map(drop).map_err(|e| io_error(path, e))
        }
        Ok(meta) if meta.permissions().readonly() => {
            Err(output_error(path, "the file is read-only (make it writable, or choose another --output)"))
        }
        _ => tempfile::Builder::new()
            .prefix(".perftest-check-")
            .tempfile_in(folder(&target))
            .map(drop)
            .map_err(|e| io_error(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("perftest-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        let names =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
        names.filter(|n| n.starts_with(".perftest")).collect()
    }

    #[test]
    fn a_regular_file_is_replaced_keeping_its_permissions_and_nothing_is_left_behind() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("regular");
        let file = dir.join("out.json");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&file, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o640);
        let fresh = dir.join("fresh.json");
        write_atomic(&fresh, "x").unwrap();
        assert_eq!(std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777, 0o644);
        assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_symlink_stays_a_link_and_its_target_is_written() {
        let dir = scratch("symlink");
        let (real, link) = (dir.join("real.json"), dir.join("link.json"));
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, "new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_fifo_and_a_device_are_written_through_not_replaced() {
        let dir = scratch("fifo");
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        write_atomic(&fifo, "through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), "through the pipe");
        assert!(!std::fs::metadata(&fifo).unwrap().is_file(), "still a FIFO");
        write_atomic(Path::new("/dev/null"), "discarded").unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file(), "/dev/null is still a device");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_planted_symlink_cannot_redirect_the_temporary_file() {
        // The old writer used `.NAME.PID.tmp`; a link planted there made it overwrite another file.
        let dir = scratch("planted");
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        let predictable = dir.join(format!(".out.json.{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &predictable).unwrap();
        write_atomic(&dir.join("out.json"), "results").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        assert_eq!(std::fs::read_to_string(dir.join("out.json")).unwrap(), "results");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_failed_final_write_keeps_the_document_and_says_where() {
        let error =
            write_or_rescue(Path::new("/nonexistent-perftest-dir/out.json"), "{\"kept\": 1}").unwrap_err();
        let Error::OutputRescued { rescued, .. } = &error else { panic!("{error}") };
        assert!(rescued.ends_with(".json"), "{rescued}");
        assert_eq!(std::fs::read_to_string(rescued).unwrap(), "{\"kept\": 1}");
        let text = error.to_string();
        assert!(
            text.contains("could not write /nonexistent-perftest-dir/out.json")
                && text.contains(rescued.as_str()),
            "{text}"
        );
        std::fs::remove_file(rescued).unwrap();
    }

    #[test]
    fn a_missing_or_read_only_destination_is_found_before_a_run() {
        let error = check_writable(Path::new("/nonexistent-perftest-dir/out.json")).unwrap_err();
        assert!(
            error.to_string().starts_with("could not write /nonexistent-perftest-dir/out.json"),
            "{error}"
        );
        let dir = scratch("check");
        check_writable(&dir.join("out.json")).unwrap();
        assert!(leftovers(&dir).is_empty(), "the probe is removed");
        check_writable(Path::new("/dev/null")).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
    }
}
