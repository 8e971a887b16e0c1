//! The cases as a table, the original's per-GPU table with perftest's columns: after a run's
//! header in markdown, and on the report page per family (what it measures, its chart, its
//! table folded).

use super::Block;
use crate::format::sig4;
use crate::report::doc::{anchor, Cell, Column, Hint, Table};
use crate::results::model::{CaseResult, Run};

/// A row per case (anchored by its name where `anchored`, for the findings' links): its rate, per
/// clock, % of peak, ratio, times and flags.
pub fn table<'a>(cases: impl IntoIterator<Item = &'a CaseResult>, anchored: bool) -> Table {
    let mut table = Table::new(vec![
        Column::left("case"),
        Column::left("rate"),
        Column::left("per clock"),
        Column::right("% of peak", 0),
        Column::right("ratio", 0),
        Column::right("median ms", 0),
        Column::right("min ms", 0),
        Column::right("cv", 0),
        Column::left("flags"),
    ]);
    for c in cases {
        let timed = c.median_ms.is_some();
        let unknown = || Cell::Missing(if timed { "unknown" } else { "" }.into());
        let per_clock = match (c.per_clock.as_slice(), c.clock_mhz) {
            ([_, ..], Some(mhz)) => {
                let rates: Vec<String> =
                    c.per_clock.iter().map(|a| format!("{} {}", sig4(a.value), a.unit)).collect();
                Cell::Text(format!("{} at {mhz:.0} MHz", rates.join(", ")))
            }
            _ => unknown(),
        };
        let flags: Vec<String> = c.flags.iter().map(ToString::to_string).collect();
        table.push(
            anchored.then(|| anchor(&c.name)),
            vec![
                Cell::text(c.name.as_str()),
                Cell::Text(crate::report::text::rate_text(c)),
                per_clock,
                c.peak_percent.map_or_else(unknown, |p| Cell::number(p, "", Hint::Percent)),
                Cell::maybe(c.ratio, "", Hint::Ratio),
                Cell::maybe(c.median_ms, "", Hint::Fixed(3)),
                Cell::maybe(c.min_ms, "", Hint::Fixed(3)),
                Cell::maybe(c.cv.map(|v| v * 100.0), "", Hint::Percent),
                Cell::Text(flags.join("; ")),
            ],
        );
    }
    table
}

/// Per family: what it measures, its chart, and the first run's table.
pub fn page(labels: &[String], runs: &[Run]) -> Vec<Block> {
    let mut blocks = vec![Block::Heading { level: 2, text: "Families".into(), id: "families".into() }];
    for family in &runs[0].families {
        let cases: Vec<&CaseResult> = runs[0].cases.iter().filter(|c| c.family == family.name).collect();
        if cases.is_empty() {
            continue;
        }
        blocks.push(Block::Heading {
            level: 3,
            text: format!("{} ({} cases)", family.name, cases.len()),
            id: format!("family-{}", family.name),
        });
        blocks.push(Block::Para(format!(
            "Measures {}. More: docs/families/{}.md.",
            family.measures, family.name
        )));
        blocks.extend(super::family(&family.name, labels, runs));
        let only: Vec<Run> = runs
            .iter()
            .map(|r| Run {
                cases: r.cases.iter().filter(|c| c.family == family.name).cloned().collect(),
                ..r.clone()
            })
            .collect();
        if only.iter().any(|r| r.cases.iter().any(|c| c.rate.is_some())) {
            if let Ok(svg) = crate::report::plot::svg(labels, &only, crate::report::plot::Metric::Rate) {
                blocks.push(Block::Chart { file: format!("{}.svg", family.name), svg });
            }
        }
        let table = table(cases.iter().copied(), true);
        blocks.push(Block::Fold {
            summary: format!("The {} table ({} rows)", family.name, cases.len()),
            blocks: vec![Block::Table(table)],
        });
    }
    blocks
}
