//! The devices that ran at the same time as this one (`--all-devices`), by name and PCI address.

use super::{Block, RunSection};
use crate::results::model::Run;

inventory::submit! { RunSection { name: "together", order: 50, blocks } }

/// Its line, or none.
fn blocks(run: &Run) -> Vec<Block> {
    crate::report::text::header::together(run)
        .map(|t| Block::Para(format!("together: {t}")))
        .into_iter()
        .collect()
}
