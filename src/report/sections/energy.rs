//! What the run's work cost in energy (`--energy`): the table by level (the arithmetic, then the
//! memory hierarchy from shared memory to the host link, each priced in fp32 FMAs' energy), then
//! every case with its window and watts; on the report page, under the energy heading with its
//! chart.

use super::{Block, RunSection};
use crate::analysis::energy::{by_data, in_fmas, table, ByData, Level};
use crate::registry::data::Data;
use crate::report::compare::EnergyLevel;
use crate::report::doc::{Cell, Column, Hint, Table};
use crate::results::model::{Amount, Run};

inventory::submit! { RunSection { name: "energy", order: 15, blocks } }

/// The section, or none where no case has energy.
fn blocks(run: &Run) -> Vec<Block> {
    let cases = cases(run);
    if cases.rows.is_empty() {
        return Vec::new();
    }
    let mut inner = Vec::new();
    let levels = levels(run);
    if !levels.rows.is_empty() {
        inner.push(Block::Para(LEVELS.into()));
        inner.push(Block::Table(levels));
    }
    inner.extend(data_blocks(run));
    inner.push(Block::Para(CASES.into()));
    inner.push(Block::Table(cases));
    vec![Block::Gap, Block::Section { title: "energy:".into(), id: "energy".into(), blocks: inner }]
}

/// What the table by level holds.
pub const LEVELS: &str =
    "By level: picojoules per unit of work for the board and above the idle board (what the \
                          work added), and a byte's board energy in fp32 FMAs (one FMA is 2 FLOPs).";

/// What the table of cases holds.
const CASES: &str = "Each case: the window its work was held for, the share of it the GPU ran the work (the rest \
                     is between measurements), the board's average watts, and picojoules per unit of its last work \
                     unit (bytes for a load; the record keeps each), for the board and above idle.";

/// What the table by data holds.
pub const BY_DATA: &str = "By data: each level's board picojoules per unit on its family's default data, on zeros, \
                           on a constant and on random data (every bit toggling; above idle in brackets), and \
                           random over zeros: what the data alone moves (--axis FAMILY.data=...; \
                           docs/design/energy.md says what each holds).";

/// The table by data and the span of each level in words; none where the run measured no level
/// on other data than the default.
fn data_blocks(run: &Run) -> Vec<Block> {
    let rows = by_data(run);
    if rows.is_empty() {
        return Vec::new();
    }
    vec![Block::Para(BY_DATA.into()), Block::Table(data_table(&rows)), Block::Para(spans(&rows))]
}

/// `fp32 FMA  pJ/FLOP  6.35 (4.7)  3.74 (2.1)  ...  2.26x`.
fn data_table(rows: &[ByData]) -> Table {
    let mut columns = vec![Column::left("level"), Column::left("unit")];
    columns.extend(Data::ALL.iter().map(|d| Column::right(d.name(), 14)));
    columns.push(Column::right("random / zeros", 14));
    let mut out = Table::new(columns);
    for row in rows {
        let unit = format!("pJ/{}", row.level.unit.amount_name());
        let mut cells = vec![Cell::text(row.level.level.as_str()), Cell::text(unit.as_str())];
        for data in Data::ALL {
            cells.push(match row.on(data) {
                Some(l) => {
                    let cell = Cell::number(l.board, "", Hint::Sig4);
                    match l.above {
                        Some(a) => cell.noted(format!("({})", crate::format::sig4(a))),
                        None => cell,
                    }
                }
                None => Cell::Missing("-".into()),
            });
        }
        cells
            .push(row.span().map_or(Cell::Missing("-".into()), |s| Cell::text(crate::format::ratio_text(s))));
        out.push(None, cells);
    }
    out
}

/// `On random data an fp32 FLOP costs 2.26x what it costs on zeros, ...`.
fn spans(rows: &[ByData]) -> String {
    let parts = crate::analysis::energy::spans(rows);
    match parts.is_empty() {
        true => "Random over zeros: not measured (the run has no level on both).".into(),
        false => format!("On random data against zeros, for the board: {}.", parts.join(", ")),
    }
}

/// The report page's energy section: the chart, then the table by level (one run's, or every
/// run's side by side); none where no run measured energy.
pub fn page(labels: &[String], runs: &[Run]) -> Vec<Block> {
    let Some(Ok(svg)) = crate::report::plot::energy::svg(labels, runs) else { return Vec::new() };
    let sensors: Vec<String> = labels
        .iter()
        .zip(runs)
        .filter_map(|(label, run)| Some(format!("{label}: {}", run.energy.as_ref()?.line())))
        .collect();
    vec![
        Block::Heading { level: 2, text: "Energy".into(), id: "energy".into() },
        Block::Para(format!(
            "What a unit of work costs in energy, measured with --energy: each case's work held between two \
             updates of the board's energy sensor after its samples; above idle is above the idle board \
             measured before the warm-up. How far to trust it: docs/design/energy.md. {}.",
            sensors.join("; ")
        )),
        Block::Chart { file: "energy.svg".into(), svg },
        Block::Table(match runs {
            [run] => levels(run),
            _ => side_by_side(&crate::report::compare::energy(runs), runs.len()),
        }),
    ]
    .into_iter()
    .chain(runs.iter().zip(labels).flat_map(|(run, label)| {
        let blocks = data_blocks(run);
        let title = (!blocks.is_empty() && runs.len() > 1).then(|| Block::Para(format!("{label}:")));
        title.into_iter().chain(blocks)
    }))
    .collect()
}

/// What the side-by-side energy table holds, above it.
pub const SIDE_BY_SIDE: &str =
    "Energy by level side by side (--energy): per run the board's picojoules per unit \
                                of work; in brackets against run 1.";

/// The levels of several runs side by side: per run the board's picojoules per unit, against
/// run 1's in brackets; `-` where a run lacks the level.
pub fn side_by_side(levels: &[EnergyLevel], runs: usize) -> Table {
    let mut columns = vec![Column::left("level")];
    columns.extend((1..=runs).map(|i| Column::left(&format!("run {i}"))));
    let mut out = Table::new(columns);
    for level in levels {
        let first = level.board.first().copied().flatten();
        let mut cells = vec![Cell::text(level.level.as_str())];
        for (i, board) in level.board.iter().enumerate() {
            cells.push(match (board, first) {
                (None, _) => Cell::Missing("-".into()),
                (Some(pj), Some(first)) if i > 0 => Cell::number(*pj, &level.unit, Hint::Sig4)
                    .noted(format!("({})", crate::format::ratio_text(pj / first))),
                (Some(pj), _) => Cell::number(*pj, &level.unit, Hint::Sig4),
            });
        }
        out.push(None, cells);
    }
    out
}

/// The table by level: `DRAM  Sweep SSBO vec4 linear 256 MiB  456 W  147.2 pJ/B  109.5 pJ/B  11.32`.
pub fn levels(run: &Run) -> Table {
    let rows = table(run);
    let bytes_in_fmas = in_fmas(&rows).map(|(_, b)| b).unwrap_or_default();
    let mut out = Table::new(vec![
        Column::left("level"),
        Column::left("case"),
        Column::right("board", 7),
        Column::right("pJ per unit", 12),
        Column::right("above idle", 12),
        Column::right("in FMAs", 7),
    ]);
    for row in &rows {
        let fmas = bytes_in_fmas.iter().find(|(r, _)| r.level == row.level).map(|(_, f)| *f);
        out.push(None, cells(row, fmas));
    }
    out
}

fn cells(row: &Level, fmas: Option<f64>) -> Vec<Cell> {
    let unit = format!("pJ/{}", row.unit.amount_name());
    let watts = row.case.energy.as_ref().map(|e| e.watts());
    vec![
        Cell::text(row.level.as_str()),
        Cell::text(row.case.name.as_str()),
        Cell::maybe(watts, "W", Hint::Fixed(0)),
        Cell::number(row.board, &unit, Hint::Sig4),
        Cell::maybe(row.above, &unit, Hint::Sig4),
        Cell::maybe(fmas, "", Hint::Sig4),
    ]
}

/// Every case with energy: `ALU fp32 FMA  4.00 s  99.3%  425 W  6.501 pJ/FLOP  4.720 pJ/FLOP`.
fn cases(run: &Run) -> Table {
    let mut out = Table::new(vec![
        Column::left("case"),
        Column::right("window", 7),
        Column::right("GPU busy", 8),
        Column::right("board", 7),
        Column::right("pJ per unit", 12),
        Column::right("above idle", 12),
    ]);
    // Per the case's last work unit (bytes for a load, FLOPs, operations): the record keeps each.
    let last = |all: &[Amount]| -> Cell {
        all.last()
            .map_or(Cell::Missing("-".into()), |a| Cell::number(a.value, &a.unit.to_string(), Hint::Sig4))
    };
    for case in &run.cases {
        let Some(energy) = &case.energy else { continue };
        out.push(
            None,
            vec![
                Cell::text(case.name.as_str()),
                Cell::number(energy.seconds, "s", Hint::Fixed(2)),
                energy.busy.map_or(Cell::Missing("-".into()), |b| Cell::number(b * 100.0, "", Hint::Percent)),
                Cell::number(energy.watts(), "W", Hint::Fixed(0)),
                last(&energy.per_unit),
                last(&energy.above_idle),
            ],
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::energy::tests::{run_on_data, run_with_energy};

    #[test]
    fn the_table_by_data_says_each_level_on_each_data_and_the_span() {
        let text = crate::report::doc::text(&blocks(&run_on_data()));
        let by_data = &text[text.find("By data").unwrap()..];
        let row = by_data.lines().find(|l| l.trim_start().starts_with("fp32 FMA")).unwrap();
        // Default, zeros, no constant, random (above idle in brackets), random over zeros.
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            cells[2..],
            ["pJ/FLOP", "5.130", "(3.110)", "3.740", "(3.110)", "-", "8.470", "(3.110)", "2.265x"]
        );
        assert!(text.contains("On random data against zeros, for the board: an fp32 FLOP 2.265x."), "{text}");
        // A run without other data has no such table.
        let plain = crate::report::doc::text(&blocks(&run_with_energy()));
        assert!(!plain.contains("By data"), "{plain}");
    }
}
