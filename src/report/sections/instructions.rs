//! The instruction table, built once for every output: after a run's cases (a row per operation
//! of the `instr` family, grouped by kind; a column the whole run cannot fill, per clock on a
//! device with no clock, is left out and the title says why), the same table on the report page
//! under the family with its chart, and several runs' tables side by side for `compare` and the
//! page.

use super::{Block, FamilySection, RunSection};
use crate::analysis::instructions::{has_numbers, table, Row, FAMILY};
use crate::report::compare::Instruction;
use crate::report::doc::{Cell, Column, Hint, Row as Line, Table};
use crate::results::model::Run;

inventory::submit! { RunSection { name: "instructions", order: 20, blocks } }
inventory::submit! { FamilySection { family: FAMILY, charts: &["instructions.svg"], blocks: page } }

/// The table under its title, or none where the run timed none of the family.
fn blocks(run: &Run) -> Vec<Block> {
    let Some((title, table)) = one(run) else { return Vec::new() };
    vec![Block::Gap, Block::Section { title, id: "instructions".into(), blocks: vec![Block::Table(table)] }]
}

/// The title that says what the columns hold, and the table: `fp32 sin   15.93 ops/clk/SM   4.12
/// Tops/s   7.750 FMAs   22.98 clk   11.63 ns`.
fn one(run: &Run) -> Option<(String, Table)> {
    let rows = table(run);
    if !has_numbers(&rows) {
        return None;
    }
    let per_clock = rows.iter().any(|r| r.per_clock().is_some());
    let clocks = rows.iter().any(|r| r.latency_clk().is_some());
    let timed_latency = rows.iter().any(|r| r.latency_ns().is_some());
    let latency = match (timed_latency, clocks, rows.iter().any(Row::shader_clocked)) {
        (false, _, _) => "",
        (true, true, true) => "; latency per dependent operation in clocks (counted by the shader clock around the chain) and in time",
        (true, true, false) => "; latency per dependent operation in clocks (the time at the clock measured around the case) and in time",
        (true, false, _) => "; latency per dependent operation in time (the clock is unknown)",
    };
    let throughput = match per_clock {
        true => "per clock per compute unit and per second",
        false => "per second (per clock unknown)",
    };
    let energy = rows.iter().any(|r| r.energy_pj().is_some());
    let energy_words = match energy {
        true => {
            "; its energy per operation for the board, and that in fp32 FMAs' energy, on the \
             operation's own operands (8 chains from its seeds; on random operands an fp32 FMA can \
             cost 1.6x one on zeros: --axis alu.data)"
        }
        false => "",
    };
    let title = format!(
        "instructions: throughput {throughput}; its cost in fp32 FMAs (the FMA's throughput over its own){latency}\
         {energy_words}"
    );
    let mut out = Table::new(vec![
        Column::left("operation"),
        Column::right("throughput per clock per compute unit", 18),
        Column::right("per second", 13),
        Column::right("cost in fp32 FMAs", 11),
        Column::right("latency (clk)", 11),
        Column::right("latency (time)", 10),
        Column::right("energy", 10),
        Column::right("energy in fp32 FMAs", 11),
    ]);
    out.text_head = false;
    let mut class = "";
    for row in &rows {
        if row.class != class {
            class = row.class;
            out.rows.push(Line::Group(class.to_owned()));
        }
        out.push(None, cells(row, per_clock));
    }
    let out = out.keep(|c| match c {
        1 => per_clock,
        4 => clocks,
        5 => timed_latency,
        6 | 7 => energy,
        _ => true,
    });
    Some((title, out))
}

/// A row's numbers, or why a case of it has none (spanning the row).
fn cells(row: &Row, clocked: bool) -> Vec<Cell> {
    let name = Cell::text(row.operation);
    if let Some(case) = row.missing() {
        return vec![name, Cell::Missing(crate::report::text::case::status_text(case))];
    }
    let per_clock = match row.per_clock() {
        Some((v, unit)) => Cell::number(v, &unit, Hint::Sig4),
        None if row.throughput.is_some() => Cell::Missing("unknown per clock".into()),
        None => Cell::Missing("latency only".into()),
    };
    // Where the run has no per-clock column, this one says a row is latency only.
    let per_second = match (row.ops_per_s(), clocked) {
        (Some(v), _) => Cell::number(v, "ops/s", Hint::Si),
        (None, false) => Cell::Missing("latency only".into()),
        (None, true) => Cell::Missing(String::new()),
    };
    vec![
        name,
        per_clock,
        per_second,
        Cell::maybe(row.fma_cost(), "FMAs", Hint::Sig4),
        row.latency_clk().map_or(Cell::Missing("unknown clk".into()), |c| Cell::number(c, "clk", Hint::Sig4)),
        Cell::maybe(row.latency_ns(), "", Hint::Nanoseconds),
        Cell::maybe(row.energy_pj(), "pJ", Hint::Sig4),
        Cell::maybe(row.energy_in_fmas(), "", Hint::Sig4),
    ]
}

/// The report page's part of the family: what the table holds, its chart, and the table (one
/// run's in full, several side by side).
fn page(labels: &[String], runs: &[Run]) -> Vec<Block> {
    let Some((_, first)) = runs.iter().find_map(one) else { return Vec::new() };
    let rows: Vec<Row> = runs.iter().flat_map(table).collect();
    let latency = match (rows.iter().any(|r| r.latency_clk().is_some()), rows.iter().any(Row::shader_clocked))
    {
        (true, true) => "clocks per dependent operation as the shader clock counted them around the chain",
        (true, false) => "clocks per dependent operation (the time at the clock measured around the case)",
        (false, _) => "unknown in clocks (no clock was measured)",
    };
    let mut blocks = vec![
        Block::Heading { level: 3, text: "The instruction table".into(), id: "instructions".into() },
        Block::Para(format!(
            "What each shader operation costs: its throughput per clock per compute unit (8 independent chains \
             per invocation) and per second; that cost in fp32 FMAs (the FMA's throughput over its own: 8 means \
             a compute unit does 8 FMAs in the time of one); and its latency, {latency}, and in nanoseconds. A \
             case named \"(+ add)\" or \"(+ xor)\" pairs the operation with the cheap one named (alone it would \
             fold): that one's own row says what it adds to the latency; in throughput the two may issue side \
             by side. How each is measured and checked: docs/families/instr.md."
        )),
    ];
    if let Some(Ok(svg)) = crate::report::plot::instructions::svg(labels, runs) {
        blocks.push(Block::Chart { file: "instructions.svg".into(), svg });
    }
    blocks.push(Block::Table(match runs {
        [_] => first,
        _ => side_by_side_table(&crate::report::compare::instructions(runs), runs.len()),
    }));
    blocks
}

/// What the side-by-side table's columns are, above it.
pub const SIDE_BY_SIDE: &str = "The instruction tables side by side: per run, operations per clock per compute \
                                unit, the cost in fp32 FMAs and the latency in clocks per dependent operation (in \
                                time where a run has no clock); in brackets against run 1.";

/// Several runs' tables side by side: per operation any of them timed, each run's throughput per
/// clock, cost and latency in clocks (in time where the run has no clock), with the ratio of each
/// to the first run's; `-` where a run lacks it.
pub fn side_by_side_table(rows: &[Instruction], runs: usize) -> Table {
    let mut columns = vec![Column::left("operation")];
    for i in 1..=runs {
        for what in ["per clock", "FMAs", "latency"] {
            columns.push(Column::left(&format!("run {i} {what}")));
        }
    }
    let mut out = Table::new(columns);
    for row in rows {
        let mut cells = vec![Cell::text(row.operation.as_str())];
        for i in 0..runs {
            // A run without a clock shows its latency in time, with no ratio.
            let latency = match (row.latency_clk[i], row.latency_ns[i]) {
                (None, Some(ns)) => Cell::number(ns, "", Hint::Nanoseconds),
                _ => against(&row.latency_clk, i),
            };
            cells.extend([against(&row.per_clock, i), against(&row.fma_cost, i), latency]);
        }
        out.push(None, cells);
    }
    out
}

/// Run `i`'s value with its ratio to run 1's (`16.00 (2.000x)`), or `-` where it has none.
fn against(values: &[Option<f64>], i: usize) -> Cell {
    let Some(value) = values[i] else { return Cell::Missing("-".into()) };
    let cell = Cell::number(value, "", Hint::Sig4);
    match (i, values[0]) {
        (0, _) | (_, None) => cell,
        (_, Some(first)) => cell.noted(format!("({})", crate::format::ratio_text(value / first))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::instructions::tests::{case, run_of};

    fn instructions(run: &Run) -> String {
        crate::report::doc::text(&blocks(run))
    }

    #[test]
    fn a_line_per_operation_under_its_kind_with_what_the_run_knows() {
        let mut latency = case("Instr fp32 sin latency", 86e6, 23.0, None);
        latency.shader_clocked = true;
        let mut barrier = case("Instr barrier() with shared memory latency", 20e6, 50.0, None);
        barrier.labels.insert("class".into(), "workgroup".into());
        let run = run_of(vec![
            case("Instr fp32 fma throughput", 32e12, 123.5, Some(1.0)),
            case("Instr fp32 sin throughput", 4e12, 15.9, Some(0.125)),
            latency,
            barrier,
        ]);
        let text = instructions(&run);
        assert!(text.contains("in clocks (counted by the shader clock around the chain)"), "{text}");
        assert!(text.contains("\n  fp32\n    fp32 fma "), "{text}");
        let sin = text.lines().find(|l| l.contains("fp32 sin")).unwrap();
        assert!(
            sin.ends_with("15.90 ops/clk/SM    4.00 Tops/s   8.000 FMAs    23.00 clk    11.63 ns"),
            "{sin}"
        );
        assert!(text.contains("\n  workgroup\n"), "{text}");
        let barrier = text.lines().find(|l| l.contains("barrier()")).unwrap();
        assert!(barrier.contains("latency only") && barrier.ends_with("50.00 clk    50.00 ns"), "{barrier}");
    }

    #[test]
    fn a_run_without_a_clock_leaves_the_per_clock_columns_out() {
        let mut fma = case("Instr fp32 fma throughput", 20e9, 0.0, Some(1.0));
        fma.per_clock.clear();
        let mut latency = case("Instr fp32 fma latency", 500e6, 0.0, None);
        latency.per_clock.clear();
        let text = instructions(&run_of(vec![fma, latency]));
        assert!(
            text.contains("per second (per clock unknown)")
                && text.contains("in time (the clock is unknown)")
        );
        assert!(!text.contains("unknown clk") && !text.contains("unknown per clock"), "{text}");
        assert!(text.contains("fp32 fma    20.0 Gops/s   1.000 FMAs    2.000 ns"), "{text}");
        assert_eq!(instructions(&run_of(Vec::new())), "", "no table without the family");
    }

    #[test]
    fn each_run_has_its_numbers_and_their_ratio_to_the_first() {
        let a = run_of(vec![
            case("Instr fp32 fma throughput", 32e12, 128.0, Some(1.0)),
            case("Instr fp64 fma throughput", 16e12, 64.0, Some(0.5)),
        ]);
        let b = run_of(vec![
            case("Instr fp32 fma throughput", 16e12, 64.0, Some(1.0)),
            case("Instr fp64 fma throughput", 0.5e12, 2.0, Some(1.0 / 32.0)),
        ]);
        let table = side_by_side_table(&crate::report::compare::instructions(&[a, b]), 2);
        assert_eq!(table.columns.len(), 7);
        let crate::report::doc::Row::Cells(_, cells) = &table.rows[1] else { panic!("a row") };
        let shown: Vec<String> = cells[1..6].iter().map(Cell::shown).collect();
        assert_eq!(shown, ["64.00", "2.000", "-", "2.000 (0.031x)", "32.00 (16.000x)"]);
    }
}
