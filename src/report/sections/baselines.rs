//! Each baseline with flags of its own, and how many ratios are against it.

use super::{Block, RunSection};
use crate::results::model::Run;

inventory::submit! { RunSection { name: "baselines", order: 45, blocks } }

/// A line per flagged baseline.
fn blocks(run: &Run) -> Vec<Block> {
    baselines_summary(run).lines().filter(|l| !l.is_empty()).map(|l| Block::Para(l.to_owned())).collect()
}

/// The lines after the clock's that name each baseline with flags of its own, and how many
/// ratios are against it (empty when there is none): `\nbaseline "X" flagged (throttled: ...):
/// its 137 ratio(s) are doubtful`.
pub fn baselines_summary(run: &Run) -> String {
    run.flagged_baselines()
        .iter()
        .map(|(name, flags, ratios)| {
            format!(
                "\nbaseline \"{name}\" flagged ({}): the {ratios} ratio(s) against it are doubtful",
                flags.join("; ")
            )
        })
        .collect()
}
