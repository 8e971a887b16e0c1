//! The instruction table after a run's cases: one line per operation of the `instr` family,
//! grouped by kind; a column the whole run cannot fill (per clock on a device with no clock) is
//! left out and the heading says why. Its lines are one preformatted block (markdown shows it as
//! code); its typed table is the next step of the document model.

use super::{Block, RunSection};
use crate::analysis::instructions::{has_numbers, table, Row};
use crate::format::{ns_text, si, sig4};
use crate::results::model::Run;

inventory::submit! { RunSection { name: "instructions", order: 20, blocks } }

/// The table as a block, or none.
fn blocks(run: &Run) -> Vec<Block> {
    let text = instructions(run);
    match text.is_empty() {
        true => Vec::new(),
        false => vec![Block::Pre(text)],
    }
}

/// The table's lines, or nothing where the run timed none of the family:
/// `    fp32 sin   15.93 ops/clk/SM   4.12 Tops/s   7.750 FMAs   22.98 clk   11.63 ns`.
pub fn instructions(run: &Run) -> String {
    let rows = table(run);
    if !has_numbers(&rows) {
        return String::new();
    }
    let per_clock = rows.iter().any(|r| r.per_clock().is_some());
    let clocks = rows.iter().any(|r| r.latency_clk().is_some());
    let latency = match (clocks, rows.iter().any(Row::shader_clocked)) {
        (true, true) => "in clocks (counted by the shader clock around the chain) and in time",
        (true, false) => "in clocks (the time at the clock measured around the case) and in time",
        (false, _) => "in time (the clock is unknown)",
    };
    let throughput = match per_clock {
        true => "per clock per compute unit and per second",
        false => "per second (per clock unknown)",
    };
    let mut out = format!(
        "\ninstructions: throughput {throughput}; its cost in fp32 FMAs (the FMA's throughput over its own); \
         latency per dependent operation {latency}\n"
    );
    let width = rows.iter().map(|r| r.operation.chars().count()).max().unwrap_or(0);
    let mut class = "";
    for row in &rows {
        if row.class != class {
            class = row.class;
            out.push_str(&format!("  {class}\n"));
        }
        let name = crate::format::pad_end(row.operation, width);
        out.push_str(&format!("    {name}  {}\n", cells(row, per_clock, clocks).trim_end()));
    }
    out
}

/// A row's numbers (with the per-clock columns where the run has them), or why a case has none.
fn cells(row: &Row, per_clock: bool, clocks: bool) -> String {
    if let Some(case) = row.missing() {
        return crate::report::text::case::status_text(case);
    }
    let mut cells = Vec::new();
    let throughput = row.throughput.is_some();
    if per_clock {
        let text = match row.per_clock() {
            Some((v, unit)) => format!("{} {unit}", sig4(v)),
            None if throughput => "unknown per clock".into(),
            None => "latency only".into(),
        };
        cells.push(format!("{text:>18}"));
    }
    let per_second = match (row.ops_per_s(), per_clock) {
        (Some(v), _) => si(v, "ops/s"),
        (None, false) => "latency only".into(),
        (None, true) => String::new(),
    };
    cells.push(format!("{per_second:>13}"));
    cells.push(format!("{:>11}", row.fma_cost().map_or(String::new(), |c| format!("{} FMAs", sig4(c)))));
    if clocks {
        let text = row.latency_clk().map_or("unknown clk".to_owned(), |c| format!("{} clk", sig4(c)));
        cells.push(format!("{text:>11}"));
    }
    cells.push(format!("{:>10}", row.latency_ns().map_or(String::new(), ns_text)));
    cells.join("  ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::instructions::tests::{case, run_of};

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
}
