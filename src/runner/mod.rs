//! The worker: running cases. Pure measurement logic first (scaling, measure, warmup, retry,
//! verify, and the counts kept between runs), then the GPU side, the only place where the registry
//! and Vulkan meet (open, kernel, clock, heater, warmth, pipelines, later, kept, resources, bench,
//! gpu_time, copy, run, work), and the messages it sends its parent (the session layer), which it
//! never imports.

pub mod assemble;
pub mod bench;
pub mod clock;
pub mod copy;
pub mod counts;
pub mod energy;
pub mod gpu_time;
pub mod heater;
pub mod kept;
pub mod kernel;
pub mod last_use;
pub mod later;
pub mod measure;
pub mod message;
pub mod open;
pub mod pipelines;
pub mod resources;
pub mod retry;
pub mod run;
pub mod scaling;
pub mod verify;
pub mod warmth;
pub mod warmup;
pub mod witness;
pub mod work;
