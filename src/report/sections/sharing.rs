//! Another process on a run's GPU, where one was seen: its rates are slices of a shared GPU.

use super::{Block, RunSection};
use crate::results::model::Run;

inventory::submit! { RunSection { name: "sharing", order: 70, blocks } }

/// Its line, or none: `shared: another process used its GPU in 26 of 26 readings (pid 1935
/// (python3, 1.1 GiB)); these rates are perftest's slices of a shared GPU, no screen of it`.
fn blocks(run: &Run) -> Vec<Block> {
    crate::analysis::screen::shared(run)
        .map(|why| {
            Block::Para(format!(
                "shared: {why}; these rates are perftest's slices of a shared GPU, no screen of it"
            ))
        })
        .into_iter()
        .collect()
}
