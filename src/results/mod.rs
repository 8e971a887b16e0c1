//! The record: what a run measured, as plain serde data (the run, its device and settings, each
//! case's status, numbers, units and flags), reading it back from any format version, and
//! checking what a file holds. Imports nothing above caps, registry and record.

pub mod case;
pub mod energy;
pub mod family;
pub mod files;
pub mod flag;
pub mod header;
pub mod levels;
pub mod load;
pub mod measure;
pub mod model;
pub mod sharing;
pub mod validate;

pub use load::load;
pub use model::{CaseResult, Run, FORMAT_VERSION};
