//! The report's instruction table: a chart of each operation's cost and latency, and the table
//! itself (one run: its numbers in full; several: side by side, against the first run).

use super::Block;
use crate::analysis::instructions::{has_numbers, table, Row};
use crate::format::{ns_text, si, sig4};
use crate::report::compare::instructions as side_by_side;
use crate::report::plot::instructions::svg;
use crate::results::model::Run;

/// The instruction table's blocks, or none where no run timed the `instr` family.
pub fn blocks(labels: &[String], runs: &[Run]) -> Vec<Block> {
    if !runs.iter().any(|run| has_numbers(&table(run))) {
        return Vec::new();
    }
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
    if let Some(Ok(svg)) = svg(labels, runs) {
        blocks.push(Block::Chart { file: "instructions.svg".into(), svg });
    }
    blocks.push(match runs {
        [run] => one(run),
        _ => several(runs),
    });
    blocks
}

/// One run's table: every number of each row; a column no row fills (per clock on a device with
/// no clock) is left out.
fn one(run: &Run) -> Block {
    let head = [
        "operation",
        "kind",
        "throughput per clock per compute unit",
        "per second",
        "cost in fp32 FMAs",
        "latency (clk)",
        "latency (time)",
        "flags",
    ];
    let rows: Vec<Vec<String>> =
        table(run).iter().filter(|r| r.has_numbers() || r.missing().is_some()).map(cells).collect();
    let kept: Vec<usize> =
        (0..head.len()).filter(|&c| c < 2 || rows.iter().any(|r| !r[c].is_empty())).collect();
    let pick = |cells: &[String]| kept.iter().map(|&c| cells[c].clone()).collect::<Vec<String>>();
    Block::Table {
        head: pick(&head.map(str::to_owned)),
        rows: rows.iter().map(|r| (None, pick(r))).collect(),
    }
}

/// A row's cells (no anchor: the family's table below holds each case's); a case without numbers
/// says why in its first cell.
fn cells(row: &Row) -> Vec<String> {
    // Why a case of the row has no number, in the column it would fill.
    let why = |case: Option<&crate::results::model::CaseResult>| {
        case.filter(|c| c.timed_rate().is_none()).map(crate::report::text::status_text)
    };
    let mut flags: Vec<String> = Vec::new();
    for case in [row.throughput, row.latency].into_iter().flatten() {
        for name in case.flags.iter().map(|f| f.name()) {
            if !flags.contains(&name) {
                flags.push(name);
            }
        }
    }
    let cost = match row.throughput {
        None => "latency only".to_owned(),
        Some(_) => row.fma_cost().map(sig4).unwrap_or_default(),
    };
    vec![
        row.operation.to_owned(),
        row.class.to_owned(),
        row.per_clock().map(|(v, unit)| format!("{} {unit}", sig4(v))).unwrap_or_default(),
        row.ops_per_s().map(|v| si(v, "ops/s")).or(why(row.throughput)).unwrap_or_default(),
        cost,
        row.latency_clk().map(sig4).unwrap_or_default(),
        row.latency_ns().map(ns_text).or(why(row.latency)).unwrap_or_default(),
        flags.join(", "),
    ]
}

/// Several runs' tables side by side, against the first.
fn several(runs: &[Run]) -> Block {
    let (head, rows) = side_by_side::table(&side_by_side::rows(runs), runs.len());
    Block::Table { head, rows: rows.into_iter().map(|cells| (None, cells)).collect() }
}
