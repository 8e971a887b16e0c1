//! Reading an input with a bound on its size: a JSON file (a results file, a reference, a device
//! profile, expectations) or a small text attribute (sysfs), so that `/dev/zero`, a binary or an
//! endless pipe is refused at once rather than read into memory.

use std::io::Read;
use std::path::Path;

/// How many bytes are read before deciding that a file is not JSON.
const HEAD_BYTES: u64 = 4096;

/// Reads `path` as UTF-8 text of at most `max_bytes` that begins as a JSON object within its
/// first bytes; the problem, as the end of a sentence that starts with the file's name, names
/// `expected` (what to pass instead: `files written with --format json`).
pub fn read_json(path: &Path, max_bytes: u64, expected: &str) -> Result<String, String> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("cannot be read ({e})"))?;
    let mut bytes = Vec::new();
    (&mut file).take(HEAD_BYTES).read_to_end(&mut bytes).map_err(|e| format!("cannot be read ({e})"))?;
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(format!("is not JSON (it does not begin with `{{`); pass {expected}"));
    }
    file.take((max_bytes + 1).saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot be read ({e})"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!("is larger than {} MiB; pass {expected}", max_bytes >> 20));
    }
    String::from_utf8(bytes).map_err(|_| format!("is not JSON (it is not UTF-8 text); pass {expected}"))
}

/// The most a sysfs attribute perftest reads holds (a number, a link speed): a page.
pub const ATTRIBUTE_BYTES: u64 = 4096;

/// Reads `path` as text of at most [`ATTRIBUTE_BYTES`] (a sysfs attribute); a longer or endless
/// one is an error of kind `InvalidData`, never read whole.
pub fn read_attribute(path: &Path) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(ATTRIBUTE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > ATTRIBUTE_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it holds more than {ATTRIBUTE_BYTES} bytes, more than any attribute"),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "it is not text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_or_binary_input_is_refused_without_reading_it_whole() {
        let zero = read_json(Path::new("/dev/zero"), 1 << 20, "X").unwrap_err();
        assert_eq!(zero, "is not JSON (it does not begin with `{`); pass X");
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.json");
        std::fs::write(&big, format!("{{\"a\": \"{}\"}}", "x".repeat(3 << 20))).unwrap();
        let error = read_json(&big, 1 << 20, "X").unwrap_err();
        assert_eq!(error, "is larger than 1 MiB; pass X");
        assert_eq!(read_json(&big, 4 << 20, "X").unwrap().len(), (3 << 20) + 9);
        assert_eq!(
            read_attribute(Path::new("/dev/zero")).unwrap_err().kind(),
            std::io::ErrorKind::InvalidData
        );
    }
}
