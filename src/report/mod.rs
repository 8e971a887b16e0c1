//! Renderers only: a run as text lines (live and `show`), JSON, CSV and markdown; `compare`,
//! `plot` and the `report` page; and writing a document safely. Each reads the record
//! ([`crate::results`]) and its judgements ([`crate::analysis`]); none asks today's registry
//! what a saved run's family is.

pub mod columns;
pub mod compare;
pub mod doc;
pub mod markdown;
pub mod metric;
pub mod output;
pub mod page;
pub mod plot;
pub mod prometheus;
pub mod sections;
pub mod spread;
pub mod text;
pub mod write;

pub use write::{render, to_csv, to_json, to_markdown, write_atomic, Format};
