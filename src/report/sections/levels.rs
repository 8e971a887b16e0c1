//! The memory levels a run's sweeps found: a line per swept variant.

use super::{Block, RunSection};
use crate::results::model::Run;

inventory::submit! { RunSection { name: "levels", order: 10, blocks } }

/// A line per variant.
fn blocks(run: &Run) -> Vec<Block> {
    level_lines(&run.levels).into_iter().map(Block::Para).collect()
}

/// One line per variant: `levels: Sweep SSBO vec4 linear: L1 32.6 TB/s up to 192 KiB; L2 9.1 TB/s
/// up to 48 MiB; DRAM 3.13 TB/s (from 128 MiB)`.
pub fn level_lines(all: &[crate::results::levels::Levels]) -> Vec<String> {
    all.iter()
        .map(|l| {
            let count = l.levels.len();
            let parts: Vec<String> = l
                .levels
                .iter()
                .enumerate()
                .map(|(i, level)| {
                    let rate = match l.unit.as_str() {
                        crate::analysis::levels::LATENCY => format!("{} ns", crate::format::sig4(level.rate)),
                        unit => crate::format::si(level.rate, unit),
                    };
                    if i + 1 == count {
                        format!(
                            "{} {rate} (from {})",
                            level.name,
                            crate::format::format_bytes(level.from_bytes)
                        )
                    } else {
                        format!("{} {rate} up to {}", level.name, crate::format::format_bytes(level.to_bytes))
                    }
                })
                .collect();
            format!("levels: {}: {}", l.variant, parts.join("; "))
        })
        .collect()
}
