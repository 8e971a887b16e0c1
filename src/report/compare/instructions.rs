//! The instruction tables of the compared runs side by side: per operation, each run's
//! throughput per clock per compute unit, cost in fp32 FMAs and latency in clocks, and the last
//! two against the first run's.

use serde::Serialize;

use crate::analysis::instructions::{side_by_side, Row};
use crate::format::{printable, ratio_text, sig4};
use crate::results::model::Run;

/// One operation across the runs (`None` where a run lacks it or did not time it).
#[derive(Debug, Serialize, PartialEq)]
pub struct Instruction {
    /// As the cases name it (`fp32 sin`).
    pub operation: String,
    /// Operations per clock per compute unit.
    pub per_clock: Vec<Option<f64>>,
    /// The cost in fp32 FMAs.
    pub fma_cost: Vec<Option<f64>>,
    /// Clocks per dependent operation.
    pub latency_clk: Vec<Option<f64>>,
    /// Nanoseconds per dependent operation.
    pub latency_ns: Vec<Option<f64>>,
}

/// The rows of every operation any of `runs` timed; empty where none did.
pub fn rows(runs: &[Run]) -> Vec<Instruction> {
    side_by_side(runs)
        .into_iter()
        .map(|across| {
            let each =
                |f: fn(&Row) -> Option<f64>| across.rows.iter().map(|r| r.as_ref().and_then(f)).collect();
            Instruction {
                operation: printable(across.operation).into_owned(),
                per_clock: each(|r| r.per_clock().map(|(v, _)| v)),
                fma_cost: each(|r| r.fma_cost()),
                latency_clk: each(|r| r.latency_clk()),
                latency_ns: each(|r| r.latency_ns()),
            }
        })
        .collect()
}

/// A value of run `i` with its ratio to run 1's (`16.0 (2.00x)`), or `-` where it has none.
fn cell(values: &[Option<f64>], i: usize, unit: &str) -> String {
    let Some(value) = values[i] else { return "-".into() };
    match (i, values[0]) {
        (0, _) | (_, None) => format!("{}{unit}", sig4(value)),
        (_, Some(first)) => format!("{}{unit} ({})", sig4(value), ratio_text(value / first)),
    }
}

/// The table's column names and cells: per run, its throughput per clock, its cost and its latency
/// in clocks (in time where the run has no clock).
pub fn table(rows: &[Instruction], runs: usize) -> (Vec<String>, Vec<Vec<String>>) {
    let mut head = vec!["operation".to_owned()];
    for i in 1..=runs {
        head.extend([format!("run {i} per clock"), format!("run {i} FMAs"), format!("run {i} latency")]);
    }
    let cells = rows
        .iter()
        .map(|row| {
            let mut cells = vec![row.operation.clone()];
            for i in 0..runs {
                // A run without a clock shows its latency in time, with no ratio.
                let latency = match (row.latency_clk[i], row.latency_ns[i]) {
                    (None, Some(ns)) => crate::format::ns_text(ns),
                    _ => cell(&row.latency_clk, i, ""),
                };
                cells.extend([cell(&row.per_clock, i, ""), cell(&row.fma_cost, i, ""), latency]);
            }
            cells
        })
        .collect();
    (head, cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::instructions::tests::{case, run_of};

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
        let rows = rows(&[a, b]);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].fma_cost, [Some(2.0), Some(32.0)]);
        let (head, cells) = table(&rows, 2);
        assert_eq!(head.len(), 7);
        assert_eq!(cells[1][1..6], ["64.00", "2.000", "-", "2.000 (0.031x)", "32.00 (16.000x)"]);
    }
}
