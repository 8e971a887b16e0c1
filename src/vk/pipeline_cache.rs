//! The pipeline cache kept between runs: the driver's compiled pipelines of one device and driver,
//! read when a context is made and written back when it ends, so that a later run (a health check
//! every few minutes, the second run of a study) does not compile them again. On an H200 the
//! driver spent about 6.5 s of a full run's 8 s of pipelines compiling (results/half-the-time-2/).
//!
//! The file is `$XDG_CACHE_HOME/perftest/pipelines-VENDOR-DEVICE-UUID.bin` (else under
//! `~/.cache`), named by the device's `pipelineCacheUUID`, which a driver changes whenever its
//! compiled code would; its header is checked as the Vulkan specification lays it out before the
//! driver sees it, it is read only up to [`MAX_BYTES`], and it is replaced whole through a
//! temporary file, never half-written. Delete those files to start afresh.

use std::io::Read;
use std::path::{Path, PathBuf};

use ash::vk;

/// The largest cache file read (a full run's is a few MiB).
pub const MAX_BYTES: u64 = 256 << 20;

/// The bytes of `VkPipelineCacheHeaderVersionOne`.
const HEADER_BYTES: usize = 32;

/// Where the cache of the device with `vendor`, `device` and `uuid` (its `pipelineCacheUUID`) is
/// kept, where the environment names a home for caches.
pub fn path(vendor: u32, device: u32, uuid: [u8; 16]) -> Option<PathBuf> {
    let uuid: String = uuid.iter().map(|b| format!("{b:02x}")).collect();
    Some(crate::cache_files::folder()?.join(format!("pipelines-{vendor:04x}-{device:04x}-{uuid}.bin")))
}

/// Whether `data` begins with the header of a cache of this device and driver:
/// `VkPipelineCacheHeaderVersionOne` (its length, version one, the vendor and device IDs and the
/// pipeline cache UUID).
pub fn matches(data: &[u8], vendor: u32, device: u32, uuid: [u8; 16]) -> bool {
    let Some(header) = data.get(..HEADER_BYTES) else { return false };
    let word = |at: usize| u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]]);
    word(0) as usize == HEADER_BYTES
        && word(4) == vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32
        && word(8) == vendor
        && word(12) == device
        && header[16..32] == uuid
}

/// The cache kept at `path` for this device and driver, or nothing (none yet, unreadable, too
/// large, or another device's or driver's).
pub fn read(path: &Path, vendor: u32, device: u32, uuid: [u8; 16]) -> Vec<u8> {
    let mut data = Vec::new();
    let Ok(mut file) = std::fs::File::open(path) else { return data };
    // The header first: another device's file, or no cache at all, is not read on.
    let header = (&mut file).take(HEADER_BYTES as u64).read_to_end(&mut data);
    if header.is_err() || !matches(&data, vendor, device, uuid) {
        return Vec::new();
    }
    match file.take(MAX_BYTES + 1 - HEADER_BYTES as u64).read_to_end(&mut data) {
        Ok(_) if data.len() as u64 <= MAX_BYTES => data,
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache_files::replace;

    fn header(vendor: u32, device: u32, uuid: [u8; 16]) -> Vec<u8> {
        let mut data = Vec::new();
        for word in [32, 1, vendor, device] {
            data.extend_from_slice(&u32::to_le_bytes(word));
        }
        data.extend_from_slice(&uuid);
        data.extend_from_slice(b"the driver's pipelines");
        data
    }

    #[test]
    fn only_this_devices_and_drivers_cache_is_read_and_it_is_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("perftest/pipelines.bin");
        let uuid = [7; 16];
        assert!(read(&file, 0x10de, 0x2335, uuid).is_empty(), "none yet");
        let ours = header(0x10de, 0x2335, uuid);
        replace(&file, &ours).unwrap();
        assert_eq!(read(&file, 0x10de, 0x2335, uuid), ours);
        // Another driver (its UUID), another device, another vendor, a truncated header: nothing.
        assert!(read(&file, 0x10de, 0x2335, [8; 16]).is_empty());
        assert!(read(&file, 0x10de, 0x2330, uuid).is_empty());
        assert!(read(&file, 0x1002, 0x2335, uuid).is_empty());
        replace(&file, &ours[..31]).unwrap();
        assert!(read(&file, 0x10de, 0x2335, uuid).is_empty());
        // A wrong header length or version.
        let mut odd = ours.clone();
        odd[0] = 16;
        assert!(!matches(&odd, 0x10de, 0x2335, uuid));
        let mut odd = ours.clone();
        odd[4] = 2;
        assert!(!matches(&odd, 0x10de, 0x2335, uuid));
        // Nothing but the file is left in the folder, and it is the owner's alone.
        let names: Vec<_> =
            std::fs::read_dir(file.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["pipelines.bin"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file.parent().unwrap()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
    }

    #[test]
    fn an_endless_file_is_not_read_whole() {
        assert!(read(Path::new("/dev/zero"), 0, 0, [0; 16]).is_empty());
    }
}
