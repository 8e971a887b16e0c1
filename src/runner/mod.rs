//! Running cases: pure measurement logic first (scaling, stats, measure, verify, outcome), then the
//! GPU side, the only place where the registry and Vulkan meet (pipelines, bench, run, session).

pub mod bench;
pub mod clock;
pub mod copy;
pub mod measure;
pub mod outcome;
pub mod pipelines;
pub mod progress;
pub mod run;
pub mod scaling;
pub mod session;
pub mod stats;
pub mod verify;
