//! A run's clock: its median over the timed cases, its range, the cases off it, and how each was read.

use super::{Block, RunSection};
use crate::results::model::Run;

inventory::submit! { RunSection { name: "clock", order: 40, blocks } }

/// Its line.
fn blocks(run: &Run) -> Vec<Block> {
    vec![Block::Para(clock_summary(run))]
}

/// The line after the cases: the run's median clock and its range, and which cases ran 5% or
/// more off it; or why clocks are unknown.
pub fn clock_summary(run: &Run) -> String {
    let clocks: Vec<f64> = run.cases.iter().filter_map(|c| c.clock_mhz).collect();
    let Some(median) = run.clock_median_mhz.filter(|_| !clocks.is_empty()) else {
        return format!("clock: {}", run.device.clock.as_deref().unwrap_or("unknown"));
    };
    let (low, high) = clocks.iter().fold((f64::MAX, f64::MIN), |(l, h), &c| (l.min(c), h.max(c)));
    let throttled: Vec<&str> = run.cases.iter().filter(|c| c.throttled()).map(|c| c.name.as_str()).collect();
    let off = match throttled.len() {
        0 => "none 5% or more off it".to_owned(),
        n => format!(
            "{} 5% or more off it, flagged throttled: {}",
            crate::format::count(n, "case"),
            throttled.join(", ")
        ),
    };
    format!(
        "clock: median {median:.0} MHz over {}, from {low:.0} to {high:.0} MHz; {off}{}",
        crate::format::count(clocks.len(), "timed case"),
        clock_sources(run)
    )
}

/// How the cases' clocks were read, for runs that kept it (format 8): `; read beside the work in
/// 1445 (median uncertainty 0.06%), around the samples in 68; 81 held below the warm-up's level by
/// their own load`.
fn clock_sources(run: &Run) -> String {
    use crate::record::measurement::ClockSource;
    let reads: Vec<&crate::record::measurement::ClockRead> =
        run.cases.iter().filter_map(|c| c.clock.as_ref()).collect();
    if reads.is_empty() {
        return String::new();
    }
    let witnessed: Vec<f64> =
        reads.iter().filter(|r| r.source == ClockSource::Witness).filter_map(|r| r.uncertainty).collect();
    let probed = reads.iter().filter(|r| r.source == ClockSource::Probe).count();
    let mut text = match crate::record::stats::median(witnessed.iter().copied()) {
        Some(u) => format!(
            "; read beside the work in {} (median uncertainty {:.2}%), around the samples in {probed}",
            witnessed.len(),
            u * 100.0
        ),
        None => format!("; read around the samples in {probed}"),
    };
    let own = reads.iter().filter(|r| r.own_load).count();
    if own > 0 {
        text.push_str(&format!("; {own} held below the warm-up's level by their own load"));
    }
    text
}
