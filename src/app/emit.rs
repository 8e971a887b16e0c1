//! Writing a command's document: its outputs guarded against its inputs, a view rendered in the
//! format asked, to `--output` (atomically) or stdout (a reader that stops early is a quiet end),
//! and a verdict that stands whatever a write does.

use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::report::output::Named;

/// The document formats of `compare`, `fleet` and `history`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For reading: the verdict first, then the table, in 120 columns.
    Text,
    /// The same as markdown, for a wiki page or a pull request.
    Markdown,
    /// Every figure the text shows, for scripts.
    Json,
}

/// Refuses outputs (each its option's name and path, where given) that are one of `inputs`, or
/// each other, before anything is read or written ([`crate::report::output::guard`]).
pub fn guard(outputs: &[(&'static str, Option<&Path>)], inputs: &[Named<'_>]) -> Result<()> {
    let outputs: Vec<Named<'_>> =
        outputs.iter().filter_map(|(role, path)| Some(Named { role, path: (*path)? })).collect();
    crate::report::output::guard(&outputs, inputs)
}

/// The document in `format`: `text` or `markdown` rendered, or `json` serialized (`what` names it
/// in an error).
pub fn document<T: Serialize>(
    format: Format,
    text: impl FnOnce() -> String,
    markdown: impl FnOnce() -> String,
    json: &T,
    what: &'static str,
) -> Result<String> {
    match format {
        Format::Text => Ok(text()),
        Format::Markdown => Ok(markdown()),
        Format::Json => {
            serde_json::to_string_pretty(json).map_err(|source| Error::Serialize { what, source })
        }
    }
}

/// Writes `document` to `output` (atomically) or stdout.
pub fn write(output: Option<&Path>, document: &str) -> Result<()> {
    match output {
        Some(path) => crate::report::write_atomic(path, document),
        None => Ok(crate::session::progress::print(document.trim_end())?),
    }
}

/// The ending of a command whose verdict was decided before its outputs were written: the
/// verdict's, each failed write said on stderr after it; where the verdict passed, the first
/// failed write's (exit 1: an output is missing).
pub fn decided(verdict: Result<()>, writes: Vec<Error>) -> Result<()> {
    let say = |error: &Error, after: &str| {
        let text = crate::error::report(error);
        crate::session::progress::say(&format!("perftest: {}{after}", crate::format::printable_lines(&text)));
    };
    match verdict {
        Err(verdict) => {
            writes.iter().for_each(|error| say(error, " (the verdict below stands)"));
            Err(verdict)
        }
        Ok(()) => {
            let mut writes = writes.into_iter();
            let first = writes.next();
            writes.for_each(|error| say(&error, ""));
            first.map_or(Ok(()), Err)
        }
    }
}
