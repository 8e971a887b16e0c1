//! perftest: a Vulkan compute micro-benchmark of loads, samples, caches, memory, copies, atomics,
//! dispatch cost, branches, ALU and tensor cores.
//!
//! The library holds everything the `perftest` binary does, so that the GPU integration tests in
//! `tests-gpu/` drive the same code paths as a user. Layers, leaves first: [`bounded`] (reading input files with a bound), [`cache_files`] (where caches are kept, written whole), [`caps`] (what a device
//! offers and a case needs, and what a run reports about it, as data), [`record`] (what a run
//! measured, as data), [`registry`] (families and their cases, as data), [`shader`]
//! (GLSL to SPIR-V), [`vk`] (Vulkan objects; imports neither the registry nor the shader module),
//! [`sensors`] (what a GPU's vendor tells outside Vulkan: NVML's processes), [`runner`] (the worker: the one place where cases meet Vulkan), [`analysis`] (judging
//! records: verdicts, the fleet's conclusion), [`report`] (documents, compare, plot, report),
//! [`session`] (the parent: runs workers and child perftests and collects their records),
//! [`cli`] (a run's options) and [`app`] (one file per command: its options, body and exit
//! code). A layer never imports one above it: nothing below [`app`] imports [`cli`]. Families live in [`cases`] and register themselves.

pub mod analysis;
pub mod app;
pub mod bounded;
pub mod cache_files;
pub mod caps;
pub mod cases;
pub mod cli;
pub mod error;
pub mod format;
pub mod record;
pub mod registry;
pub mod report;
pub mod results;
pub mod runner;
pub mod sensors;
pub mod session;
pub mod shader;
pub mod vk;

pub use error::{Error, ExitCode};
