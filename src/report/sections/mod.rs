//! The views, each one file that builds its [`Block`]s once for every format. A run's sections
//! (what follows its cases) and a family's part of the report page register themselves with
//! `inventory::submit!`, as families do: adding one is its file and a `mod` line here.

use super::doc::Block;
use crate::results::model::Run;

mod answer;
pub(crate) mod baselines;
pub mod cases;
mod clock;
pub mod compare;
pub mod energy;
pub mod fleet;
pub mod health;
pub mod history;
pub mod instructions;
pub(crate) mod levels;
pub mod overview;
mod sharing;
pub mod time;
mod together;
mod units;

/// A view of one run, after its cases: its name, where it goes (lowest first), and its blocks
/// (none where the run has nothing for it).
pub struct RunSection {
    /// What it is called.
    pub name: &'static str,
    /// Its place among the others.
    pub order: u32,
    /// What it shows of a run.
    pub blocks: fn(&Run) -> Vec<Block>,
}

inventory::collect!(RunSection);

/// What the report page shows of a family beyond its chart and its table (the instruction table,
/// the compute units as strips): the family it belongs to and its blocks for the runs.
pub struct FamilySection {
    /// The family's name.
    pub family: &'static str,
    /// The chart files it may write (`instructions.svg`).
    pub charts: &'static [&'static str],
    /// Its blocks for the labelled runs (none where they have nothing for it).
    pub blocks: fn(&[String], &[Run]) -> Vec<Block>,
}

inventory::collect!(FamilySection);

/// Every chart file a family's part of the page may write.
pub fn family_charts() -> impl Iterator<Item = &'static str> {
    inventory::iter::<FamilySection>.into_iter().flat_map(|s| s.charts.iter().copied())
}

/// What the page shows of `family` beyond its chart and its table.
pub fn family(family: &str, labels: &[String], runs: &[Run]) -> Vec<Block> {
    inventory::iter::<FamilySection>
        .into_iter()
        .filter(|s| s.family == family)
        .flat_map(|s| (s.blocks)(labels, runs))
        .collect()
}

/// The run sections in order.
pub fn run_sections() -> Vec<&'static RunSection> {
    let mut sections: Vec<&'static RunSection> = inventory::iter::<RunSection>.into_iter().collect();
    sections.sort_by_key(|s| s.order);
    sections
}

/// What follows a run's cases, every section's blocks in order.
pub fn run(run: &Run) -> Vec<Block> {
    run_sections().iter().flat_map(|s| (s.blocks)(run)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_run_section_is_registered_once_in_order() {
        let sections = run_sections();
        let names: Vec<&str> = sections.iter().map(|s| s.name).collect();
        let known = [
            "levels",
            "instructions",
            "units",
            "clock",
            "baselines",
            "together",
            "time",
            "sharing",
            "answer",
        ];
        let found: Vec<&str> = names.iter().copied().filter(|n| known.contains(n)).collect();
        assert_eq!(found, known, "a section the linker dropped, or one out of its place: {names:?}");
        for pair in sections.windows(2) {
            assert!(pair[0].order < pair[1].order, "{} and {} share a place", pair[0].name, pair[1].name);
        }
    }
}
