//! Where perftest keeps what a later run can reuse (the driver's pipelines, shaderc's SPIR-V), and
//! how such a file is written: whole, through a temporary file renamed over it.

use std::io::Write;
use std::path::{Path, PathBuf};

/// `$XDG_CACHE_HOME/perftest` (else `~/.cache/perftest`); `None` where the environment names no
/// absolute home for caches.
pub fn folder() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_CACHE_HOME").filter(|d| Path::new(d).is_absolute()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            PathBuf::from(std::env::var_os("HOME").filter(|d| Path::new(d).is_absolute())?).join(".cache")
        }
    };
    Some(base.join("perftest"))
}

/// Replaces the file at `path` with `data` whole (a temporary file beside it, synced, renamed over
/// it), making its folder (owner only) where there is none.
pub fn replace(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(folder)?;
    let mut file = tempfile::Builder::new().prefix(".perftest-").suffix(".tmp").tempfile_in(folder)?;
    file.write_all(data)?;
    file.as_file().sync_all()?;
    file.persist(path).map(drop).map_err(|e| e.error)
}
