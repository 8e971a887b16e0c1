//! Where a run's wall time went: how much the GPU spent on timed samples, and the cases' phases.

use super::{Block, RunSection};
use crate::format::seconds_text;
use crate::results::model::Run;

inventory::submit! { RunSection { name: "time", order: 60, blocks } }

/// Its line, or none.
fn blocks(run: &Run) -> Vec<Block> {
    let line = time_summary(run);
    let line = line.trim_start_matches('\n');
    match line.is_empty() {
        true => Vec::new(),
        false => vec![Block::Para(line.to_owned())],
    }
}

/// The line after the clock's that says where the run's wall time went: how much of it the GPU
/// spent on timed samples, and the cases' phases, largest first (empty for files that did not
/// keep them): `\ntime: 415 s wall; timed samples kept the GPU busy for 179 s (43%); the cases:
/// samples 185 s, warm-up 60 s, ...; outside them (device, pipelines, warm-up) 12 s`.
pub fn time_summary(run: &Run) -> String {
    let Some((wall, sum)) = run.time_spent() else { return String::new() };
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
    format!(
        "\ntime: {} wall{busy}; the cases: {}; outside them (device, pipelines, warm-up) {}",
        seconds_text(wall),
        if list.is_empty() { "none over 0.05 s".to_owned() } else { list.join(", ") },
        seconds_text((wall - sum.total_ms / 1e3).max(0.0))
    )
}
