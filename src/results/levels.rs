//! The memory levels a run's sweeps show, as the record keeps them (the analysis layer finds them).

use serde::{Deserialize, Serialize};

/// One level of the memory hierarchy as a sweep sees it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Level {
    /// `L1`, `L2`, `DRAM`, or `level N`.
    pub name: String,
    /// The median rate of its points (bytes per second).
    pub rate: f64,
    /// Its smallest working set, bytes.
    pub from_bytes: u64,
    /// Its largest working set, bytes (for the last level, the sweep's largest).
    pub to_bytes: u64,
}

/// The levels of one swept variant.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Levels {
    /// The variant (`Sweep SSBO vec4 linear`).
    pub variant: String,
    /// The unit of the rates (`B/s`).
    pub unit: String,
    /// The levels, smallest working set first.
    pub levels: Vec<Level>,
}
