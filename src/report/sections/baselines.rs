//! Each baseline with flags of its own, and how many ratios are against it.

use super::{Block, RunSection};
use crate::results::model::Run;

inventory::submit! { RunSection { name: "baselines", order: 45, blocks } }

/// A line per flagged baseline.
fn blocks(run: &Run) -> Vec<Block> {
    baseline_lines(run).into_iter().map(Block::Para).collect()
}

/// A line per baseline with flags of its own, and how many ratios are against it (none when no
/// baseline is flagged): `baseline "X" flagged (throttled: ...): the 137 ratio(s) against it are
/// doubtful`.
pub fn baseline_lines(run: &Run) -> Vec<String> {
    run.flagged_baselines()
        .iter()
        .map(|(name, flags, ratios)| {
            format!(
                "baseline \"{name}\" flagged ({}): {} against it {} doubtful",
                flags.join("; "),
                crate::format::count(*ratios, "ratio"),
                crate::format::is_are(*ratios)
            )
        })
        .collect()
}
