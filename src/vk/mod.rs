//! Vulkan, one concept per file: instance, debug messages, device rows, device, context, resources.

pub mod buffer;
pub mod commands;
pub mod context;
pub mod coopmat2;
pub mod debug;
pub mod device;
pub mod features;
pub mod image;
pub mod instance;
pub mod newer;
pub mod pipeline;
pub mod pipeline_cache;
pub mod select;
pub mod timestamps;
pub mod transfer;

pub use buffer::Buffer;
pub use context::{Adapter, Context};
pub use pipeline::Pipeline;
pub use timestamps::TimestampPool;
