//! Running cases: pure measurement logic first (scaling, stats, measure, warmup, retry, verify,
//! outcome), then the GPU side, the only place where the registry and Vulkan meet (kernel, clock,
//! heater, warmth, pipelines, resources, bench, gpu_time, copy, run, session).

pub mod assemble;
pub mod bench;
pub mod clock;
pub mod collect;
pub mod copy;
pub mod gpu_time;
pub mod heater;
pub mod kernel;
pub mod measure;
pub mod message;
pub mod pipelines;
pub mod progress;
pub mod resources;
pub mod retry;
pub mod run;
pub mod scaling;
pub mod session;
pub mod supervise;
pub mod verify;
pub mod warmth;
pub mod warmup;
pub mod work;
