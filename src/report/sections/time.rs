//! Where a run's wall time went: how much the GPU spent on timed samples, and the cases' phases;
//! on the report page, the phases summed over the cases and the cases that cost the most, so the
//! slow part of a run is seen before it is guessed.

use super::{Block, RunSection};
use crate::format::seconds_text;
use crate::record::phases::Phases;
use crate::report::doc::{Cell, Column, Hint, Table};
use crate::results::model::Run;

/// The costliest cases the page lists.
const CASES: usize = 10;

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

/// The page's fold that says where `run`'s wall time went; `None` for files that did not keep it.
pub fn page(run: &Run) -> Option<Block> {
    let (wall_s, sum) = run.time_spent()?;
    let share = |ms: f64| Cell::number(ms / 1e3 / wall_s * 100.0, "", Hint::Percent);
    let seconds = |ms: f64| Cell::number(ms / 1e3, "", Hint::Seconds);
    let mut phases: Vec<(&str, f64)> = sum.largest_first().into_iter().filter(|(_, ms)| *ms > 0.0).collect();
    phases.push(("outside the cases (device, pipelines, warm-up)", (wall_s * 1e3 - sum.total_ms).max(0.0)));
    phases.push(("of it, timed samples on the GPU", sum.samples_gpu_ms));
    let mut table =
        Table::new(vec![Column::left("phase"), Column::right("wall time", 0), Column::right("share", 0)]);
    for (name, ms) in phases {
        table.push(None, vec![Cell::text(name), seconds(ms), share(ms)]);
    }
    let mut costly: Vec<(&str, &Phases)> =
        run.cases.iter().filter_map(|c| Some((c.name.as_str(), c.phases.as_ref()?))).collect();
    costly.sort_by(|a, b| b.1.total_ms.total_cmp(&a.1.total_ms));
    let mut cases = Table::new(vec![
        Column::left("costliest case"),
        Column::right("wall time", 0),
        Column::left("mostly"),
    ]);
    for (name, p) in costly.iter().take(CASES) {
        let most = p.named().into_iter().max_by(|a, b| a.1.total_cmp(&b.1)).map_or("", |(n, _)| n);
        cases.push(None, vec![Cell::text(*name), seconds(p.total_ms), Cell::text(most)]);
    }
    Some(Block::Fold {
        summary: format!(
            "Where the time went: {} wall, {} of it timed samples on the GPU",
            seconds_text(wall_s),
            share(sum.samples_gpu_ms).shown()
        ),
        blocks: vec![Block::Table(table), Block::Table(cases)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::doc::Row;

    #[test]
    fn names_the_phases_largest_first_and_the_costliest_cases() {
        let mut run = crate::results::model::tests::sample_run();
        assert!(page(&run).is_none(), "a file without phases has no such fold");
        run.wall_s = Some(2.0);
        run.cases[0].phases = Some(Phases {
            setup_ms: 300.0,
            samples_ms: 1000.0,
            samples_gpu_ms: 990.0,
            total_ms: 1400.0,
            ..Phases::default()
        });
        let Some(Block::Fold { summary, blocks }) = page(&run) else { panic!("a fold") };
        assert_eq!(summary, "Where the time went: 2.00 s wall, 49.5% of it timed samples on the GPU");
        let shown = |block: &Block| -> Vec<Vec<String>> {
            let Block::Table(table) = block else { panic!("a table") };
            let rows = table.rows.iter().filter_map(|r| match r {
                Row::Cells(_, cells) => Some(cells.iter().map(Cell::shown).collect()),
                Row::Group(_) => None,
            });
            rows.collect()
        };
        let phases = shown(&blocks[0]);
        assert_eq!([&phases[0][0], &phases[1][0]], ["samples", "setup"]);
        assert_eq!(phases[2], ["outside the cases (device, pipelines, warm-up)", "0.60 s", "30.0%"]);
        assert_eq!(shown(&blocks[1])[0], ["ByteAddressBuffer.Load uniform", "1.40 s", "samples"]);
    }
}
