//! Results as documents: the data model and its JSON (kept, compared, plotted), CSV and markdown;
//! the text lines of a run; `compare` and `plot`. One run matcher and one number formatter serve all.

pub mod columns;
pub mod compare;
pub mod expect;
pub mod failures;
pub mod findings;
pub mod flag;
pub mod levels;
pub mod markdown;
pub mod matching;
pub mod model;
pub mod output;
pub mod page;
pub mod plot;
pub mod run_flags;
pub mod spread;
pub mod text;
pub mod trust;
pub mod twins;
pub mod validate;
pub mod verdict;
pub mod write;

pub use model::{load, CaseResult, Run, FORMAT_VERSION};
pub use write::{render, to_csv, to_json, to_markdown, write_atomic, Format};
