//! How far apart timestamps written back to back read: what the header says of the timer.

/// Timestamps written back to back: how far apart they read.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Steps {
    /// The smallest non-zero difference between two consecutive ones, ns.
    pub min_ns: f64,
    /// The median difference, ns.
    pub median_ns: f64,
    /// Consecutive pairs that read the same value.
    pub equal: usize,
    /// Consecutive pairs.
    pub pairs: usize,
}
