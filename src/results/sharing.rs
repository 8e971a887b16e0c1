//! Another process on the run's GPU: what the vendor's library saw while the run used it. The
//! NVIDIA driver time-slices a GPU between processes and GPU timestamps see only perftest's
//! slices, so a shared GPU's rates look healthy while its screen says nothing about the GPU.

use serde::{Deserialize, Serialize};

/// What watching the GPU for other processes found.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Sharing {
    /// How the GPU was watched (`NVML`), or why it could not be (`unknown: ...`).
    pub watched: String,
    /// Readings taken (about one a second), and how many saw another process.
    pub readings: u32,
    /// Readings that saw another process.
    pub shared_readings: u32,
    /// The other processes seen, each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<OtherProcess>,
}

/// A process other than perftest's own on the GPU.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OtherProcess {
    /// Its process id as the vendor's library gives it.
    pub pid: u32,
    /// Its name, where this host shows it (`python3`; absent for a process in another container).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The most GPU memory it was seen to hold, bytes, where the library says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
}

impl Sharing {
    /// Whether another process was seen on the GPU during the run.
    pub fn shared(&self) -> bool {
        self.shared_readings > 0
    }

    /// Whether the GPU could be watched at all.
    pub fn watched(&self) -> bool {
        !self.watched.starts_with("unknown")
    }

    /// The others, as text: `pid 4242 (python3, 12.0 GiB)`, joined.
    pub fn others_text(&self) -> String {
        let one = |p: &OtherProcess| {
            let mut detail: Vec<String> = p.name.iter().cloned().collect();
            if let Some(bytes) = p.memory_bytes {
                detail.push(format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30)));
            }
            match detail.is_empty() {
                true => format!("pid {}", p.pid),
                false => format!("pid {} ({})", p.pid, detail.join(", ")),
            }
        };
        self.others.iter().map(one).collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_seen_with_another_process_is_shared_and_names_it() {
        let mut sharing =
            Sharing { watched: "NVML".into(), readings: 40, shared_readings: 0, others: vec![] };
        assert!(!sharing.shared() && sharing.watched());
        sharing.shared_readings = 38;
        sharing.others = vec![
            OtherProcess { pid: 4242, name: Some("python3".into()), memory_bytes: Some(12 << 30) },
            OtherProcess { pid: 77, name: None, memory_bytes: None },
        ];
        assert!(sharing.shared());
        assert_eq!(sharing.others_text(), "pid 4242 (python3, 12.0 GiB), pid 77");
        let blind = Sharing { watched: "unknown: NVML could not be loaded".into(), ..Sharing::default() };
        assert!(!blind.watched() && !blind.shared());
    }
}
