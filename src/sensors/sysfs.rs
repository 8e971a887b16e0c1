//! The kernel's energy and power readings under `/sys`: hwmon, where AMD's and Intel's GPU drivers
//! put a board's `energy1_input` (µJ) or, lacking it, `power1_average` or `power1_input` (µW),
//! found by the GPU's PCI address; and powercap's RAPL counter of the CPU package (`intel-rapl:0`,
//! also AMD's), what a CPU driver such as lavapipe spends, where it is readable (since Linux 5.10
//! only root may read it: CVE-2020-8694). The root is a parameter, so tests read a fixture tree
//! laid out as the kernel documents it (Documentation/hwmon/sysfs-interface.rst,
//! Documentation/power/powercap/powercap.rst).

use std::path::{Path, PathBuf};

use super::counter::Unwrapped;

/// What a sensor's file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A counter of microjoules, wrapping at `range` where it does.
    Microjoules {
        /// The count it wraps at (RAPL's `max_energy_range_uj`).
        range: Option<u64>,
    },
    /// A power reading in microwatts (averaged by the driver over its own interval).
    Microwatts,
}

/// One file to read, and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sensor {
    /// What it is, for the record: `hwmon amdgpu energy1_input`, `RAPL package-0`.
    pub name: String,
    /// The file.
    pub file: PathBuf,
    /// What it holds.
    pub kind: Kind,
}

impl Sensor {
    /// The hwmon sensor of the GPU at PCI address `pci` (`0000:1b:00.0`) under `root` (`/sys`):
    /// its energy counter, else its average power, else its power; or why there is none.
    pub fn hwmon(root: &Path, pci: &str) -> Result<Self, String> {
        let class = root.join("class/hwmon");
        let entries = std::fs::read_dir(&class).map_err(|e| format!("no {} ({e})", class.display()))?;
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        dirs.sort();
        let ours = |dir: &PathBuf| {
            let device = std::fs::canonicalize(dir.join("device")).ok();
            device.and_then(|d| d.file_name().map(|n| n.to_string_lossy().eq_ignore_ascii_case(pci)))
                == Some(true)
        };
        let dir =
            dirs.into_iter().find(ours).ok_or_else(|| format!("no hwmon device is the GPU at {pci}"))?;
        let driver = read_text(&dir.join("name")).unwrap_or_else(|_| "hwmon".into());
        let choices = [
            ("energy1_input", Kind::Microjoules { range: None }),
            ("power1_average", Kind::Microwatts),
            ("power1_input", Kind::Microwatts),
        ];
        for (file, kind) in choices {
            let path = dir.join(file);
            if path.exists() {
                return Ok(Sensor { name: format!("hwmon {driver} {file}"), file: path, kind });
            }
        }
        Err(format!("the GPU's hwmon device ({driver}) has no energy1_input, power1_average or power1_input"))
    }

    /// The RAPL counter of the first CPU package under `root` (`/sys`), or why there is none.
    pub fn rapl(root: &Path) -> Result<Self, String> {
        let dir = root.join("class/powercap/intel-rapl:0");
        if !dir.exists() {
            return Err(format!("no RAPL counter ({} is missing: not an x86 host, or a VM)", dir.display()));
        }
        let range = read_text(&dir.join("max_energy_range_uj"))?
            .parse::<u64>()
            .map_err(|e| format!("max_energy_range_uj is not a number ({e})"))?;
        let name = read_text(&dir.join("name")).unwrap_or_else(|_| "package".into());
        let sensor = Sensor {
            name: format!("RAPL {name}"),
            file: dir.join("energy_uj"),
            kind: Kind::Microjoules { range: Some(range) },
        };
        sensor.read()?;
        Ok(sensor)
    }

    /// The file's number now.
    pub fn read(&self) -> Result<u64, String> {
        read_text(&self.file)?
            .parse::<u64>()
            .map_err(|e| format!("{} is not a number ({e})", self.file.display()))
    }

    /// An unwrapper of this sensor's readings in joules, where it is a counter.
    pub fn counter(&self) -> Option<Unwrapped> {
        match self.kind {
            Kind::Microjoules { range } => Some(Unwrapped::new(1e-6, range)),
            Kind::Microwatts => None,
        }
    }
}

/// A sysfs file's text, trimmed; an unreadable one says why (RAPL's is root's only).
fn read_text(path: &Path) -> Result<String, String> {
    match crate::bounded::read_attribute(path) {
        Ok(text) => Ok(text.trim().to_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(format!(
            "{} is not readable by this user (RAPL counters are root's only since Linux 5.10)",
            path.display()
        )),
        Err(e) => Err(format!("{} could not be read ({e})", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixture `/sys`: two GPUs' hwmon devices (one with an energy counter, one with power
    /// only) and a RAPL package counter near its wrap.
    fn fixture() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let write = |path: &str, text: &str| {
            let path = r.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        let link = |hwmon: &str, pci: &str| {
            let device = r.join(format!("devices/pci0000:00/{pci}"));
            std::fs::create_dir_all(&device).unwrap();
            std::os::unix::fs::symlink(&device, r.join(format!("class/hwmon/{hwmon}/device"))).unwrap();
        };
        write("class/hwmon/hwmon2/name", "xe\n");
        write("class/hwmon/hwmon2/energy1_input", "123456789\n");
        write("class/hwmon/hwmon2/power1_average", "90000000\n");
        link("hwmon2", "0000:03:00.0");
        write("class/hwmon/hwmon5/name", "amdgpu\n");
        write("class/hwmon/hwmon5/power1_average", "250000000\n");
        link("hwmon5", "0000:1b:00.0");
        write("class/hwmon/hwmon7/name", "k10temp\n");
        write("class/powercap/intel-rapl:0/name", "package-0\n");
        write("class/powercap/intel-rapl:0/energy_uj", "262143000000\n");
        write("class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
        root
    }

    #[test]
    fn a_gpu_is_found_by_its_pci_address_and_its_counter_preferred() {
        let root = fixture();
        let xe = Sensor::hwmon(root.path(), "0000:03:00.0").unwrap();
        assert_eq!(xe.name, "hwmon xe energy1_input");
        assert_eq!((xe.kind, xe.read().unwrap()), (Kind::Microjoules { range: None }, 123_456_789));
        let amd = Sensor::hwmon(root.path(), "0000:1B:00.0").unwrap();
        assert_eq!((amd.name.as_str(), amd.kind), ("hwmon amdgpu power1_average", Kind::Microwatts));
        assert_eq!(amd.counter(), None, "a power reading is no counter");
        let none = Sensor::hwmon(root.path(), "0000:99:00.0").unwrap_err();
        assert_eq!(none, "no hwmon device is the GPU at 0000:99:00.0");
        let empty = tempfile::tempdir().unwrap();
        assert!(Sensor::hwmon(empty.path(), "0000:03:00.0").unwrap_err().starts_with("no "));
    }

    #[test]
    fn rapl_reads_and_unwraps_across_its_range() {
        let root = fixture();
        let rapl = Sensor::rapl(root.path()).unwrap();
        assert_eq!(rapl.name, "RAPL package-0");
        let mut counter = rapl.counter().unwrap();
        assert_eq!(counter.take(rapl.read().unwrap()).unwrap(), 0.0);
        // 328850 µJ to the wrap, then 1671150 past zero: 2 J.
        std::fs::write(&rapl.file, "1671150\n").unwrap();
        assert!((counter.take(rapl.read().unwrap()).unwrap() - 2.0).abs() < 1e-9);
        let empty = tempfile::tempdir().unwrap();
        let why = Sensor::rapl(empty.path()).unwrap_err();
        assert!(why.starts_with("no RAPL counter ("), "{why}");
    }

    #[test]
    fn a_file_that_is_not_a_number_says_which() {
        let root = fixture();
        std::fs::write(root.path().join("class/hwmon/hwmon2/energy1_input"), "n/a\n").unwrap();
        let xe = Sensor::hwmon(root.path(), "0000:03:00.0").unwrap();
        let why = xe.read().unwrap_err();
        assert!(why.contains("energy1_input is not a number"), "{why}");
    }
}
