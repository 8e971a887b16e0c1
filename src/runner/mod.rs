//! Running cases: pure measurement logic first (scaling, stats, measure, verify, report), then the GPU side (bench).

pub mod bench;
pub mod measure;
pub mod progress;
pub mod report;
pub mod scaling;
pub mod stats;
pub mod verify;
