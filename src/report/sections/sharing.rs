//! Another process on a run's GPU, where one was seen: its rates are slices of a shared GPU.

use super::{Block, RunSection};
use crate::results::model::Run;

inventory::submit! { RunSection { name: "sharing", order: 70, blocks } }

/// Its line, or none.
fn blocks(run: &Run) -> Vec<Block> {
    let line = sharing_summary(run);
    let line = line.trim_start_matches('\n');
    match line.is_empty() {
        true => Vec::new(),
        false => vec![Block::Para(line.to_owned())],
    }
}

/// The line that says another process used the run's GPU, where one did (empty otherwise):
/// `\nshared: another process used this GPU in 26 of 26 readings (pid 1935 (python3, 1.1 GiB));
/// its rates are perftest's slices of a shared GPU, no screen of it`.
pub fn sharing_summary(run: &Run) -> String {
    match crate::analysis::screen::shared(run) {
        Some(why) => {
            format!("\nshared: {why}; these rates are perftest's slices of a shared GPU, no screen of it")
        }
        None => String::new(),
    }
}
