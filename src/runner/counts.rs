//! The dispatch counts kept between runs: each case's count that took the target time on this
//! device and driver, so that a later run (a health check every few minutes, a fleet's next
//! screen, a study's second run) starts each case there rather than growing it from one
//! workgroup. Scaling took 6.4-6.7 s of a full H200 run, about 4 ms a case: runs of 1, 10, 100
//! ... workgroups until one takes a fortieth of the target (a hundredth since
//! results/half-the-time-15/: 5.2-5.3 s), then one aimed at it (results/half-the-time-14/). A
//! count that no longer takes the target (a slower clock, another build of the case) is aimed
//! again from its first run as any other, so a stale file costs time, never a result.
//!
//! The file is `$XDG_CACHE_HOME/perftest/counts-DEVICEUUID.json` (else under `~/.cache`), its
//! entries used only where it names this device's UUID and its driver's, read only up to
//! [`MAX_BYTES`], and replaced whole through a temporary file after a timed run. Delete it to scale
//! every case afresh.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::scaling::Policy;
use crate::caps::Identity;
use crate::record::measurement::Measurement;

/// The largest file read (a full run's is about 100 KiB).
pub const MAX_BYTES: u64 = 4 << 20;

/// The file's layout version.
const FORMAT: u32 = 1;

/// What a run settled on for one case: its count and the median time the count took.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Known {
    /// The count of the case's scale (workgroups, repeats, dispatches, submissions, copies).
    pub count: u64,
    /// The samples' median at that count, ms.
    pub ms: f64,
}

impl Known {
    /// A count of one or more that took a finite, positive time: anything else in a file is not
    /// this program's.
    fn usable(&self) -> bool {
        self.count >= 1 && self.ms.is_finite() && self.ms > 0.0
    }
}

/// The file's contents.
#[derive(Debug, Serialize, Deserialize)]
struct File {
    format: u32,
    /// `deviceUUID` and `driverUUID` as text.
    device: String,
    driver: String,
    /// By case name.
    counts: BTreeMap<String, Known>,
}

/// The counts of one device and driver: those a run before kept, and those this run settles.
#[derive(Debug)]
pub struct Counts {
    path: Option<PathBuf>,
    device: String,
    driver: String,
    known: BTreeMap<String, Known>,
    learned: bool,
}

impl Counts {
    /// The counts kept for the device and driver `identity` names, where the environment names a
    /// home for caches; none where nothing usable is kept.
    pub fn open(identity: &Identity) -> Counts {
        let device = Identity::uuid_text(&identity.device_uuid);
        let path = crate::cache_files::folder().map(|f| f.join(format!("counts-{device}.json")));
        Counts::at(path, device, Identity::uuid_text(&identity.driver_uuid))
    }

    /// The counts kept at `path` for `device` and `driver` (UUIDs as text).
    fn at(path: Option<PathBuf>, device: String, driver: String) -> Counts {
        let known = path.as_deref().and_then(|p| read(p, &device, &driver)).unwrap_or_default();
        Counts { path, device, driver, known, learned: false }
    }

    /// The count to start case `name` at under `policy` ([`Policy::again`] from the kept one: run
    /// after run the same work where it takes this target); `None` where no run kept one.
    pub fn start(&self, name: &str, policy: &Policy) -> Option<u64> {
        self.known.get(name).map(|k| policy.again(k.count, k.ms))
    }

    /// Keeps what `m` settled on for case `name`: only a settled measurement that kept its result
    /// and whose median took the target (`Policy::on_target`), so that the next run's start is a
    /// count that did.
    pub fn learn(&mut self, name: &str, m: &Measurement, policy: &Policy) {
        let known = Known { count: m.groups, ms: m.summary.median };
        if m.settled && !m.gave_up && known.usable() && policy.on_target(known.ms) {
            self.learned |= self.known.insert(name.to_owned(), known) != Some(known);
        }
    }

    /// Writes the counts back, whole, where this run settled a case at a count or median other
    /// than the kept one; nothing where there is no home for caches.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(path) = self.path.as_deref().filter(|_| self.learned) else { return Ok(()) };
        let file = File {
            format: FORMAT,
            device: self.device.clone(),
            driver: self.driver.clone(),
            counts: self.known.clone(),
        };
        let text = serde_json::to_vec(&file).map_err(std::io::Error::other)?;
        crate::cache_files::replace(path, &text)
    }
}

/// The usable counts at `path` where it is a file of this format for `device` and `driver`.
fn read(path: &Path, device: &str, driver: &str) -> Option<BTreeMap<String, Known>> {
    let mut text = Vec::new();
    std::fs::File::open(path).ok()?.take(MAX_BYTES + 1).read_to_end(&mut text).ok()?;
    let file: File = serde_json::from_slice(&text).ok().filter(|_| text.len() as u64 <= MAX_BYTES)?;
    let ours = file.format == FORMAT && file.device == device && file.driver == driver;
    ours.then(|| file.counts.into_iter().filter(|(_, k)| k.usable()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::scaling::MAX_SUBMIT_MS;

    const POLICY: Policy = Policy { target_ms: 20.0, max_submit_ms: MAX_SUBMIT_MS, max_groups: 1 << 32 };

    fn measured(groups: u64, samples: &[f64], settled: bool) -> Measurement {
        Measurement { settled, ..Measurement::of_samples(groups, samples) }
    }

    fn counts(dir: &Path, device: &str, driver: &str) -> Counts {
        Counts::at(Some(dir.join("perftest/counts.json")), device.into(), driver.into())
    }

    #[test]
    fn a_settled_count_on_target_is_where_the_next_run_starts() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = counts(dir.path(), "dev", "drv");
        assert_eq!(first.start("Load", &POLICY), None, "nothing kept yet");
        first.learn("Load", &measured(150_000, &[19.9, 20.0, 20.1], true), &POLICY);
        // Unsettled, or off the target (a device's group limit reached): not kept.
        first.learn("Unsettled", &measured(1000, &[20.0; 3], false), &POLICY);
        first.learn("Capped", &measured(4_294_836_225, &[3.0; 3], true), &POLICY);
        assert_eq!(first.known.len(), 1);
        first.save().unwrap();
        let second = counts(dir.path(), "dev", "drv");
        assert_eq!(second.start("Load", &POLICY), Some(150_000));
        // The same count while it takes the target; aimed at another in proportion.
        let shorter = Policy { target_ms: 19.0, ..POLICY };
        assert_eq!(second.start("Load", &shorter), Some(150_000));
        let longer = Policy { target_ms: 40.0, ..POLICY };
        assert_eq!(second.start("Load", &longer), Some(300_000));
        assert_eq!(second.start("Capped", &POLICY), None);
        // Another device's or driver's file is not read.
        assert!(counts(dir.path(), "other", "drv").known.is_empty());
        assert!(counts(dir.path(), "dev", "newer").known.is_empty());
    }

    #[test]
    fn what_is_not_this_programs_file_is_not_read_and_a_run_keeps_what_it_did_not_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("perftest/counts.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        for text in ["not json", "{\"format\": 1}", "[1, 2]", ""] {
            std::fs::write(&path, text).unwrap();
            assert!(counts(dir.path(), "dev", "drv").known.is_empty(), "{text}");
        }
        // Entries no run could have written are dropped, the rest kept.
        let file = r#"{"format":1,"device":"dev","driver":"drv","counts":{
            "Zero":{"count":0,"ms":20.0},"Negative":{"count":5,"ms":-1.0},"Fine":{"count":5,"ms":20.0}}}"#;
        std::fs::write(&path, file).unwrap();
        let mut kept = counts(dir.path(), "dev", "drv");
        assert_eq!((kept.known.len(), kept.start("Fine", &POLICY)), (1, Some(5)));
        // Too large: not read.
        std::fs::write(&path, vec![b' '; MAX_BYTES as usize + 1]).unwrap();
        assert!(counts(dir.path(), "dev", "drv").known.is_empty());
        // A run of other cases keeps the ones it did not run; nothing new, nothing written.
        kept.learn("Other", &measured(7, &[20.0; 3], true), &POLICY);
        kept.save().unwrap();
        let after = counts(dir.path(), "dev", "drv");
        assert_eq!((after.start("Fine", &POLICY), after.start("Other", &POLICY)), (Some(5), Some(7)));
        std::fs::remove_file(&path).unwrap();
        after.save().unwrap();
        assert!(!path.exists(), "a run that settled nothing new writes nothing");
    }
}
