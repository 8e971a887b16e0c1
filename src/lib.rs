//! perftest: a Vulkan compute micro-benchmark of loads, samples, branches and ALU throughput.
//!
//! The library holds everything the `perftest` binary does, so that the GPU
//! integration tests in `tests-gpu/` drive the same code paths as a user.
//! Case families live in [`cases`] and register themselves with `inventory`;
//! [`app`] ties the CLI, the Vulkan context and the runner together.

pub mod app;
pub mod cases;
pub mod cli;
pub mod compare;
pub mod error;
pub mod plot;
pub mod registry;
pub mod results;
pub mod runner;
pub mod shader;
pub mod vk;

pub use error::{Error, ExitCode};
