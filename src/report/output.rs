//! Writing a document to the path the user gave, without ever destroying what should not be.
//!
//! A regular file (or a path that does not exist yet) is replaced atomically: the document goes
//! into a temporary file beside it, created exclusively under an unpredictable name (`tempfile`),
//! flushed, given the old file's permissions, and renamed over it, so a reader never sees half a
//! document. A symlink is followed and its target replaced, so the link stays a link, but only
//! where the kernel itself would follow it (`fs.protected_symlinks`): a link in a sticky,
//! world-writable folder such as `/tmp` is followed only if this user or the folder's owner owns
//! it, so another user cannot plant `/tmp/r.json -> ~you/.bashrc`. The same rule holds for a FIFO
//! (another user's FIFO there would receive the document, or block the command forever), and a
//! socket is never written. Anything else (`/dev/null`, a terminal, one's own FIFO) is written
//! through, as a shell redirection would; a FIFO is opened without waiting, so one that no
//! process reads is an error, not a hang. [`guard`] refuses an output that is one of the
//! command's inputs, or another of its outputs.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

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

/// How many symbolic links one path may pass through, as Linux allows (`ELOOP` after 40).
const MAX_LINKS: usize = 40;

/// One step of a path walk.
enum Step {
    Root,
    Up,
    Name(std::ffi::OsString),
}

/// Puts `path`'s steps on `stack` so that popping gives them in order.
fn push_steps(stack: &mut Vec<Step>, path: &Path) {
    let steps = path.components().filter_map(|c| match c {
        Component::RootDir | Component::Prefix(_) => Some(Step::Root),
        Component::CurDir => None,
        Component::ParentDir => Some(Step::Up),
        Component::Normal(name) => Some(Step::Name(name.to_os_string())),
    });
    let steps: Vec<Step> = steps.collect();
    stack.extend(steps.into_iter().rev());
}

/// The file a write to `path` lands in: `path` itself, or a symlink's final target, resolved
/// step by step as the kernel would, refusing a link the kernel would not follow.
pub fn resolve(path: &Path) -> Result<PathBuf> {
    let absolute = std::path::absolute(path).map_err(|e| io_error(path, e))?;
    let mut pending = Vec::new();
    push_steps(&mut pending, &absolute);
    let mut resolved = PathBuf::from("/");
    let mut links = 0;
    while let Some(step) = pending.pop() {
        let name = match step {
            Step::Root => {
                resolved = PathBuf::from("/");
                continue;
            }
            Step::Up => {
                resolved.pop();
                continue;
            }
            Step::Name(name) => name,
        };
        let next = resolved.join(&name);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(output_error(path, "it passes through too many symbolic links"));
                }
                refuse_unsafe_link(path, &next, &meta, &resolved)?;
                let target = std::fs::read_link(&next).map_err(|e| io_error(path, e))?;
                push_steps(&mut pending, &target);
            }
            // A missing step ends nothing: the write creates it or fails as it would anyway.
            _ => resolved = next,
        }
    }
    Ok(resolved)
}

/// Whether Linux's `fs.protected_symlinks` lets user `me` follow a link owned by `link_owner` in
/// a folder of mode `folder_mode` owned by `folder_owner`: anywhere but in a sticky,
/// world-writable folder; there, only a link of this user or of the folder's owner.
fn kernel_follows(link_owner: u32, folder_mode: u32, folder_owner: u32, me: u32) -> bool {
    let shared = folder_mode & 0o1000 != 0 && folder_mode & 0o002 != 0;
    !shared || link_owner == me || link_owner == folder_owner
}

/// Refuses the symbolic link `link` (in the folder `folder`) where the kernel would
/// ([`kernel_follows`]), whatever the machine's own setting.
#[cfg(unix)]
fn refuse_unsafe_link(path: &Path, link: &Path, meta: &std::fs::Metadata, folder: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let Ok(dir) = std::fs::metadata(folder) else { return Ok(()) };
    if kernel_follows(meta.uid(), dir.mode(), dir.uid(), rustix::process::geteuid().as_raw()) {
        return Ok(());
    }
    Err(Error::UnsafeLink {
        path: path.display().to_string(),
        link: link.display().to_string(),
        owner: meta.uid(),
    })
}

#[cfg(not(unix))]
fn refuse_unsafe_link(_: &Path, _: &Path, _: &std::fs::Metadata, _: &Path) -> Result<()> {
    Ok(())
}

/// Refuses a FIFO or socket at `target` (reached from `path`) that the link rule refuses: a FIFO
/// another user made in a world-writable sticky folder; a socket anywhere.
#[cfg(unix)]
fn refuse_unsafe_special(path: &Path, target: &Path, meta: &std::fs::Metadata) -> Result<()> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let kind = meta.file_type();
    let what = match (kind.is_fifo(), kind.is_socket()) {
        (_, true) => "a socket".to_owned(),
        (true, _) => {
            let Ok(dir) = std::fs::metadata(folder(target)) else { return Ok(()) };
            if kernel_follows(meta.uid(), dir.mode(), dir.uid(), rustix::process::geteuid().as_raw()) {
                return Ok(());
            }
            format!(
                "a FIFO that user {} owns in the world-writable sticky folder {} (it would receive the document, or \
                 block until someone reads it)",
                meta.uid(),
                folder(target).display()
            )
        }
        _ => return Ok(()),
    };
    Err(Error::UnsafeSpecial { path: path.display().to_string(), what })
}

#[cfg(not(unix))]
fn refuse_unsafe_special(_: &Path, _: &Path, _: &std::fs::Metadata) -> Result<()> {
    Ok(())
}

/// Writes `text` to `path` (see the module documentation).
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let target = resolve(path)?;
    match std::fs::metadata(&target) {
        Ok(meta) if !meta.is_file() => {
            refuse_unsafe_special(path, &target, &meta)?;
            write_through(&target, text).map_err(|e| io_error(path, e))
        }
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

/// How long a FIFO may go without a reader before writing to it is an error.
const FIFO_READER_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Writes `text` into a file that is not a regular one (a device, a terminal, a FIFO): opened
/// without blocking (a FIFO that no process opens for reading within [`FIFO_READER_WAIT`] is an
/// error, `ENXIO`), then written in blocking mode.
fn write_through(target: &Path, text: &str) -> std::io::Result<()> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    let open =
        || std::fs::OpenOptions::new().write(true).custom_flags(OFlags::NONBLOCK.bits() as i32).open(target);
    let no_reader = |e: &std::io::Error| e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error());
    let start = std::time::Instant::now();
    let mut opened = open();
    while opened.as_ref().is_err_and(no_reader) && start.elapsed() < FIFO_READER_WAIT {
        std::thread::sleep(std::time::Duration::from_millis(20));
        opened = open();
    }
    let mut file = opened.map_err(|e| match no_reader(&e) {
        true => std::io::Error::other("it is a FIFO that no process is reading: start its reader first"),
        false => e,
    })?;
    let flags = rustix::fs::fcntl_getfl(&file)?;
    rustix::fs::fcntl_setfl(&file, flags - OFlags::NONBLOCK)?;
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
    // Named after the file it was for (`r-gpu2`), so each device of several keeps its own.
    let stem: String =
        path.file_stem().map(|s| s.to_string_lossy()).unwrap_or_default().chars().take(64).collect();
    let prefix = format!("perftest-rescued-{}-", stem.replace(std::path::MAIN_SEPARATOR, "_"));
    let rescued =
        tempfile::Builder::new().prefix(&prefix).suffix(&extension).tempfile().and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.keep().map_err(|e| e.error)
        });
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
    let target = resolve(path)?;
    match std::fs::metadata(&target) {
        // A FIFO is not opened to check it: its reader would see the end of its input.
        Ok(meta) if std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()) => {
            refuse_unsafe_special(path, &target, &meta)
        }
        Ok(meta) if !meta.is_file() => {
            refuse_unsafe_special(path, &target, &meta)?;
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

/// A file a command reads or writes, and what its command line calls it (`--output`, `RUN`).
#[derive(Clone, Copy, Debug)]
pub struct Named<'a> {
    /// The option or argument (`--json`, `the results file`).
    pub role: &'static str,
    /// The path as given.
    pub path: &'a Path,
}

/// What a path names, to tell whether two paths are one file: its device and inode where it
/// exists (so links and hard links count), else where it resolves to.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    Inode(u64, u64),
    Path(PathBuf),
}

/// The identity of `target` (resolved already); `None` for a device, FIFO or terminal, which
/// two outputs can share without destroying anything.
fn identity(target: &Path) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(target) {
        Ok(meta) if meta.is_file() || meta.is_dir() => Some(Identity::Inode(meta.dev(), meta.ino())),
        Ok(_) => None,
        Err(_) => Some(Identity::Path(target.to_path_buf())),
    }
}

/// Refuses a command whose outputs include one of its inputs, or name one file twice, before
/// anything is read or written: `show run.json --output run.json` would replace the run it shows.
pub fn guard(outputs: &[Named<'_>], inputs: &[Named<'_>]) -> Result<()> {
    let mut seen: Vec<(Identity, Named<'_>)> = Vec::new();
    for input in inputs {
        if let Some(id) = std::fs::canonicalize(input.path).ok().and_then(|p| identity(&p)) {
            seen.push((id, *input));
        }
    }
    for output in outputs {
        let Some(id) = identity(&resolve(output.path)?) else { continue };
        if let Some((_, other)) = seen.iter().find(|(known, _)| *known == id) {
            return Err(Error::SameFile {
                output: format!("{} {}", output.role, output.path.display()),
                other: format!("{} {}", other.role, other.path.display()),
            });
        }
        seen.push((id, *output));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
