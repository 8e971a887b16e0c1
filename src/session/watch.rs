//! Watching a run's GPU for other processes while the run uses it: NVML's list about once a
//! second, less perftest's own processes. What it finds goes into the run's record
//! ([`Sharing`]): a GPU shared with another job time-slices, and a screen of it says nothing about
//! the GPU.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::results::sharing::{OtherProcess, Sharing};
use crate::sensors::nvml::{NvidiaGpu, Process};

/// How often the GPU is looked at.
const EVERY: Duration = Duration::from_secs(1);

/// A watch running beside a run.
pub struct Watch {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Sharing>,
}

impl Watch {
    /// Starts watching the GPU whose Vulkan `deviceUUID` is `uuid` (on NVIDIA; elsewhere the
    /// record says why it could not).
    pub fn start(uuid: [u8; 16], nvidia: bool) -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let handle = std::thread::spawn(move || watch(uuid, nvidia, &stopped));
        Watch { stop, handle }
    }

    /// Stops watching; what it saw.
    pub fn finish(self) -> Sharing {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.join().unwrap_or_else(|_| unknown("the watch's thread panicked"))
    }
}

fn unknown(why: &str) -> Sharing {
    Sharing { watched: format!("unknown: {why}"), ..Sharing::default() }
}

/// Reads the GPU's processes until `stop`, then says what it saw.
fn watch(uuid: [u8; 16], nvidia: bool, stop: &AtomicBool) -> Sharing {
    if !nvidia {
        return unknown("no vendor library to ask on this device (perftest reads NVIDIA's NVML)");
    }
    let gpu = match NvidiaGpu::open(&uuid) {
        Ok(gpu) => gpu,
        Err(why) => return unknown(&why),
    };
    let mut sharing = Sharing { watched: "NVML".into(), ..Sharing::default() };
    while !stop.load(Ordering::SeqCst) {
        if let Ok(processes) = gpu.processes() {
            sharing.readings += 1;
            let others = others(&processes, &own_pids());
            if !others.is_empty() {
                sharing.shared_readings += 1;
            }
            merge(&mut sharing.others, others);
        }
        // Wake often enough to stop promptly at the run's end.
        for _ in 0..10 {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(EVERY / 10);
        }
    }
    sharing
}

/// The processes of `listed` that are not perftest's (`own`: this process, its workers, and the
/// ids a PID namespace gives them).
pub fn others(listed: &[Process], own: &HashSet<u32>) -> Vec<OtherProcess> {
    listed
        .iter()
        .filter(|p| !own.contains(&p.pid))
        .map(|p| OtherProcess { pid: p.pid, name: process_name(p.pid), memory_bytes: p.memory_bytes })
        .collect()
}

/// Adds `seen` to `known`, each process once, with the most memory seen.
fn merge(known: &mut Vec<OtherProcess>, seen: Vec<OtherProcess>) {
    for process in seen {
        match known.iter_mut().find(|k| k.pid == process.pid) {
            Some(k) => {
                k.memory_bytes = k.memory_bytes.max(process.memory_bytes);
                k.name = k.name.take().or(process.name);
            }
            None => known.push(process),
        }
    }
}

/// This process and its children (the workers), with every id their PID namespaces give them
/// (`NSpid`: NVML names processes as the namespace it runs in sees them).
fn own_pids() -> HashSet<u32> {
    let me = std::process::id();
    let mut own: HashSet<u32> = HashSet::from([me]);
    let Ok(entries) = std::fs::read_dir("/proc") else { return own };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
        let field = |name: &str| status.lines().find_map(|l| l.strip_prefix(name)).map(str::trim);
        let parent = field("PPid:").and_then(|p| p.parse::<u32>().ok());
        if pid == me || parent == Some(me) {
            own.insert(pid);
            own.extend(
                field("NSpid:").unwrap_or_default().split_whitespace().filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    own
}

/// A process's name, where this host's /proc shows it.
fn process_name(pid: u32) -> Option<String> {
    let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
    let name = name.trim();
    (!name.is_empty()).then(|| name.chars().take(64).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perftests_own_processes_are_not_others() {
        let me = std::process::id();
        let own = own_pids();
        assert!(own.contains(&me));
        // Linux's PID_MAX_LIMIT: every pid is below it, whatever pid_max says.
        let absent = 4_194_304;
        let listed =
            [Process { pid: me, memory_bytes: Some(1 << 20) }, Process { pid: absent, memory_bytes: None }];
        let found = others(&listed, &own);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].pid, found[0].name.as_deref()), (absent, None), "a pid this host does not show");
    }

    #[test]
    fn each_process_is_kept_once_with_the_most_memory_seen() {
        let mut known = Vec::new();
        let seen = |bytes| vec![OtherProcess { pid: 7, name: None, memory_bytes: Some(bytes) }];
        merge(&mut known, seen(1 << 30));
        merge(&mut known, seen(3 << 30));
        merge(&mut known, seen(2 << 30));
        assert_eq!(known.len(), 1);
        assert_eq!(known[0].memory_bytes, Some(3 << 30));
    }

    #[test]
    fn a_device_without_nvml_is_unknown_not_unshared() {
        let sharing = Watch::start([0; 16], false).finish();
        assert!(!sharing.watched() && !sharing.shared());
        assert!(sharing.watched.contains("NVML"), "{}", sharing.watched);
    }
}
