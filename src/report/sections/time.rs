//! Where a run's wall time went: how much the GPU spent on timed samples, and the cases' phases.

use super::{Block, RunSection};
use crate::format::seconds_text;
use crate::results::model::Run;

inventory::submit! { RunSection { name: "time", order: 60, blocks } }

/// Its line, or none.
fn blocks(run: &Run) -> Vec<Block> {
    time_line(run).map(Block::Para).into_iter().collect()
}

/// The line after the clock's that says where the run's wall time went: how much of it the GPU
/// spent on timed samples, and the cases' phases, largest first (none for files that did not
/// keep them): `time: 415 s wall; timed samples kept the GPU busy for 179 s (43%); the cases:
/// samples 185 s, warm-up 60 s, ...; outside them (device, pipelines, warm-up) 12 s`.
fn time_line(run: &Run) -> Option<String> {
    let (wall, sum) = run.time_spent()?;
    let list: Vec<String> = sum
        .largest_first()
        .iter()
        .filter(|(_, ms)| *ms >= 50.0)
        .map(|(name, ms)| format!("{name} {}", seconds_text(ms / 1e3)))
        .collect();
    let busy = sum.samples_gpu_ms / 1e3;
    let busy = match busy > 0.0 {
        true => {
            format!(
                "; timed samples kept the GPU busy for {} ({:.0}%)",
                seconds_text(busy),
                busy / wall * 100.0
            )
        }
        false => String::new(),
    };
    Some(format!(
        "time: {} wall{busy}; the cases: {}; outside them (device, pipelines, warm-up) {}",
        seconds_text(wall),
        if list.is_empty() { "none over 0.05 s".to_owned() } else { list.join(", ") },
        seconds_text((wall - sum.total_ms / 1e3).max(0.0))
    ))
}
