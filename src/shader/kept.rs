//! The SPIR-V kept between runs: shaderc's output for each permutation, so that a later run (the
//! next health check, the main job's next driver) does not compile it again. On lavapipe shaderc
//! is most of a run's pipeline time; the driver's own compile is kept by the pipeline cache
//! ([`crate::vk::pipeline_cache`]).
//!
//! One file per permutation in `$XDG_CACHE_HOME/perftest/spirv-GEN/` (else under `~/.cache`),
//! where GEN is the hash of the compiler's version and the embedded includes: a folder of another
//! GEN (another perftest's) is removed when a compiler first keeps something. A file is named by
//! the hash of everything else the compile reads (the file's name and text, the defines, the
//! target), holds that hash again and a checksum of its words, and is written through a temporary
//! file renamed over it, never half-written; one that does not match (another permutation's, cut
//! short, changed) is compiled again and replaced. Delete the folders to start afresh.

use std::hash::Hasher;
use std::io::Read;
use std::path::{Path, PathBuf};

use fnv::FnvHasher;

/// The largest SPIR-V read, in bytes (the largest permutation is well under 1 MiB).
pub const MAX_BYTES: u64 = 16 << 20;

/// The first bytes of a kept file, naming its layout: this, the key, the checksum (each eight
/// bytes, little-endian), then the SPIR-V words.
const MAGIC: &[u8; 8] = b"ptspirv1";

/// The bytes before the words.
const HEADER_BYTES: usize = 24;

/// The folder this compiler's SPIR-V is kept in.
#[derive(Clone, Debug)]
pub struct Kept {
    folder: PathBuf,
    generation: u64,
}

/// An FNV-1a hash of `parts`, each with its length first (so that no two lists of parts run
/// together alike): a fixed algorithm, the same in every build.
pub fn hash<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> u64 {
    let mut hasher = FnvHasher::default();
    for part in parts {
        hasher.write_u64(part.len() as u64);
        hasher.write(part);
    }
    hasher.finish()
}

impl Kept {
    /// The folder of the compiler generation `generation` under the home the environment names for
    /// caches (`$XDG_CACHE_HOME`, else `~/.cache`); `None` where it names none.
    pub fn here(generation: u64) -> Option<Self> {
        Some(Self::under(&crate::cache_files::folder()?, generation))
    }

    /// The folder of generation `generation` under `base`.
    pub fn under(base: &Path, generation: u64) -> Self {
        Kept { folder: base.join(format!("spirv-{generation:016x}")), generation }
    }

    /// The key of a compile of `parts` (the file's name and text, the defines, the target) in
    /// this generation.
    pub fn key<'a>(&self, parts: impl IntoIterator<Item = &'a [u8]>) -> u64 {
        hash([&self.generation.to_le_bytes()[..], &hash(parts).to_le_bytes()])
    }

    fn file(&self, key: u64) -> PathBuf {
        self.folder.join(format!("{key:016x}.spv"))
    }

    /// The SPIR-V kept under `key`, or nothing (none yet, unreadable, too large, or not what was
    /// written under that key).
    pub fn read(&self, key: u64) -> Option<Vec<u32>> {
        let mut bytes = Vec::new();
        let file = std::fs::File::open(self.file(key)).ok()?;
        file.take(HEADER_BYTES as u64 + MAX_BYTES + 1).read_to_end(&mut bytes).ok()?;
        let (header, body) = bytes.split_at_checked(HEADER_BYTES)?;
        let field = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().unwrap());
        let fits = body.len() as u64 <= MAX_BYTES && !body.is_empty() && body.len() % 4 == 0;
        if &header[..8] != MAGIC || field(8) != key || !fits || field(16) != hash([body]) {
            return None;
        }
        let words: Vec<u32> =
            body.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
        (words[0] == super::spirv::MAGIC).then_some(words)
    }

    /// Keeps `words` under `key`, replacing what was there whole; makes the folder (owner only)
    /// where there is none, and then removes the folders of other generations.
    pub fn write(&self, key: u64, words: &[u32]) -> std::io::Result<()> {
        let new_folder = !self.folder.is_dir();
        let body: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let header = [&MAGIC[..], &key.to_le_bytes(), &hash([&body[..]]).to_le_bytes()].concat();
        crate::cache_files::replace(&self.file(key), &[header, body].concat())?;
        if new_folder {
            self.remove_other_generations();
        }
        Ok(())
    }

    /// Removes the `spirv-*` folders beside this one (what another perftest kept); nothing else.
    fn remove_other_generations(&self) {
        let Some(base) = self.folder.parent() else { return };
        let Ok(entries) = std::fs::read_dir(base) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let ours = name == self.folder.file_name().unwrap_or_default();
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if !ours && is_dir && name.to_str().is_some_and(|n| n.starts_with("spirv-")) {
                // Another process may be removing it too, or writing into it: neither is an error.
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORDS: [u32; 5] = [super::super::spirv::MAGIC, 0x0001_0500, 0, 8, 0];

    fn kept(dir: &Path) -> Kept {
        Kept::under(&dir.join("perftest"), 7)
    }

    #[test]
    fn what_is_kept_is_read_back_under_its_key_only() {
        let dir = tempfile::tempdir().unwrap();
        let kept = kept(dir.path());
        let key = kept.key([&b"alu.glsl"[..], b"void main() {}"]);
        assert_eq!(kept.read(key), None, "nothing yet");
        kept.write(key, &WORDS).unwrap();
        assert_eq!(kept.read(key).as_deref(), Some(&WORDS[..]));
        assert_eq!(kept.read(key ^ 1), None, "another key");
        // Parts that run together alike are other keys; another generation's too.
        assert_ne!(kept.key([&b"ab"[..], b"c"]), kept.key([&b"a"[..], b"bc"]));
        assert_ne!(Kept::under(dir.path(), 8).key([&b"x"[..]]), kept.key([&b"x"[..]]));
        // Nothing but the file is left in the folder, and the folder is the owner's alone.
        let names: Vec<_> =
            std::fs::read_dir(&kept.folder).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, [format!("{key:016x}.spv").as_str()]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&kept.folder).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
    }

    #[test]
    fn a_file_cut_short_changed_or_of_another_layout_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let kept = kept(dir.path());
        kept.write(1, &WORDS).unwrap();
        let path = kept.file(1);
        let good = std::fs::read(&path).unwrap();
        let mut changed = good.clone();
        *changed.last_mut().unwrap() ^= 1;
        let mut other_layout = good.clone();
        other_layout[7] = b'2';
        let not_spirv = {
            let body: Vec<u8> = [1u32, 2].iter().flat_map(|w| w.to_le_bytes()).collect();
            [&MAGIC[..], &1u64.to_le_bytes(), &hash([&body[..]]).to_le_bytes(), &body].concat()
        };
        for (what, bytes) in [
            ("cut short", &good[..good.len() - 2]),
            ("only a header", &good[..HEADER_BYTES]),
            ("changed", &changed[..]),
            ("another layout", &other_layout[..]),
            ("not SPIR-V", &not_spirv[..]),
        ] {
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(kept.read(1), None, "{what}");
        }
        // Written again, it is whole again.
        kept.write(1, &WORDS).unwrap();
        assert_eq!(kept.read(1).as_deref(), Some(&WORDS[..]));
    }

    #[test]
    fn the_first_keep_removes_other_generations_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("perftest");
        let old = Kept::under(&base, 6);
        old.write(1, &WORDS).unwrap();
        std::fs::write(base.join("pipelines-10de-2335-00.bin"), b"the driver's").unwrap();
        std::fs::write(base.join("spirv-notes.txt"), b"a file, not a folder").unwrap();
        let new = kept(dir.path());
        new.write(1, &WORDS).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(&base).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["pipelines-10de-2335-00.bin", "spirv-0000000000000007", "spirv-notes.txt"]);
        assert_eq!(old.read(1), None);
    }

    #[test]
    fn an_endless_file_is_not_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let kept = kept(dir.path());
        std::fs::create_dir_all(&kept.folder).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/dev/zero", kept.file(3)).unwrap();
            assert_eq!(kept.read(3), None);
        }
    }
}
