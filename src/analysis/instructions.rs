//! The instruction table: each operation of the `instr` family, its throughput case and its
//! latency case paired into one row with the numbers a shader programmer reads (operations per
//! clock per compute unit, the cost in fp32 FMAs, clocks and nanoseconds per dependent operation),
//! and the rows of several runs side by side.
//!
//! A case's operation is its `variant`; its `measure` label says which of the two it is and its
//! `class` label the kind of operation (`fp32`, `subgroup`, ...). Files written before the cases
//! carried them have no table.

use crate::results::model::{CaseResult, Run};

/// The family whose cases make the table.
pub const FAMILY: &str = "instr";

/// What an operation whose throughput case runs at `ratio` of the FMA's rate costs in fp32 FMAs:
/// the ratio's inverse (none for a ratio that is not positive).
pub fn fma_cost(ratio: f64) -> Option<f64> {
    (ratio > 0.0).then(|| 1.0 / ratio)
}

/// One operation's row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row<'a> {
    /// As the cases name it (`fp32 sin`).
    pub operation: &'a str,
    /// The kind of operation (`fp32`, `int32`, `conversion`, `subgroup`, ...).
    pub class: &'a str,
    /// Its throughput case, where the run has it.
    pub throughput: Option<&'a CaseResult>,
    /// Its latency case, where the run has it.
    pub latency: Option<&'a CaseResult>,
    /// The FMA's throughput case its throughput is against, where the run has it.
    pub fma: Option<&'a CaseResult>,
}

/// A case where it was timed (none where it was skipped or failed).
fn timed(case: Option<&CaseResult>) -> Option<&CaseResult> {
    case.filter(|c| c.timed_rate().is_some())
}

impl Row<'_> {
    /// Operations per second.
    pub fn ops_per_s(&self) -> Option<f64> {
        Some(timed(self.throughput)?.rate.as_ref()?.value)
    }

    /// Operations per clock per compute unit, with its unit (`ops/clk/SM`).
    pub fn per_clock(&self) -> Option<(f64, String)> {
        let amount = timed(self.throughput)?.per_clock.first()?;
        Some((amount.value, amount.unit.to_string()))
    }

    /// What one operation costs in fp32 FMAs: the inverse of its ratio against the FMA's rate.
    pub fn fma_cost(&self) -> Option<f64> {
        timed(self.throughput)?.ratio.and_then(fma_cost)
    }

    /// Picojoules per operation for the board, where the run measured its energy (`--energy`).
    pub fn energy_pj(&self) -> Option<f64> {
        Some(timed(self.throughput)?.energy.as_ref()?.first()?.value)
    }

    /// What one operation's energy is in fp32 FMAs' energy: its picojoules over the FMA's.
    pub fn energy_in_fmas(&self) -> Option<f64> {
        let fma = timed(self.fma)?.energy.as_ref()?.first()?.value;
        Some(self.energy_pj()? / fma)
    }

    /// Nanoseconds per dependent operation.
    pub fn latency_ns(&self) -> Option<f64> {
        Some(1e9 / timed(self.latency)?.rate.as_ref()?.value)
    }

    /// Clocks per dependent operation: counted by the shader clock around the chain where the
    /// case read it ([`Row::shader_clocked`]), else the nanoseconds at the clock read around the case.
    pub fn latency_clk(&self) -> Option<f64> {
        Some(timed(self.latency)?.per_clock.first()?.value)
    }

    /// Whether [`Row::latency_clk`] is the shader clock's count.
    pub fn shader_clocked(&self) -> bool {
        timed(self.latency).is_some_and(|c| c.shader_clocked)
    }

    /// The clocks per dependent operation the timestamps give at the clock read around the case
    /// (where [`Row::latency_clk`] is the shader's count, the two should agree).
    pub fn latency_clk_by_time(&self) -> Option<f64> {
        let case = timed(self.latency)?;
        Some(case.clock_mhz? * 1e6 / case.rate.as_ref()?.value)
    }

    /// A case of the row that has no number (skipped, failed, or not timed), if one has none.
    pub fn missing(&self) -> Option<&CaseResult> {
        [self.throughput, self.latency].into_iter().flatten().find(|c| timed(Some(c)).is_none())
    }

    /// Whether the row has a number.
    pub fn has_numbers(&self) -> bool {
        self.ops_per_s().is_some() || self.latency_ns().is_some()
    }
}

/// Whether a case of the family is its operation's throughput case (`Some(true)`) or latency
/// case (`Some(false)`); `None` for a case without the label.
fn is_throughput(case: &CaseResult) -> Option<bool> {
    match case.labels.get("measure")?.as_str() {
        "throughput" => Some(true),
        "latency" => Some(false),
        _ => None,
    }
}

/// The run's table, in the order its cases ran (the family's table order); empty without the family.
pub fn table(run: &Run) -> Vec<Row<'_>> {
    let mut rows: Vec<Row> = Vec::new();
    for case in run.cases.iter().filter(|c| c.family == FAMILY) {
        let Some(throughput) = is_throughput(case) else { continue };
        let at = match rows.iter().position(|r| r.operation == case.variant) {
            Some(at) => at,
            None => {
                let class = case.labels.get("class").map_or("", String::as_str);
                rows.push(Row {
                    operation: &case.variant,
                    class,
                    throughput: None,
                    latency: None,
                    fma: None,
                });
                rows.len() - 1
            }
        };
        match throughput {
            true => {
                rows[at].throughput = Some(case);
                rows[at].fma = case.baseline.as_ref().and_then(|b| run.cases.iter().find(|c| c.name == *b));
            }
            false => rows[at].latency = Some(case),
        }
    }
    rows
}

/// Whether any row has a number (a verify or compile-only run has none).
pub fn has_numbers(rows: &[Row]) -> bool {
    rows.iter().any(Row::has_numbers)
}

/// One operation across several runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Across<'a> {
    /// As the cases name it (`fp32 sin`).
    pub operation: &'a str,
    /// Its row in each run (`None` where the run lacks it).
    pub rows: Vec<Option<Row<'a>>>,
}

/// The tables of `runs` side by side: each operation any of them timed, in the order the runs
/// first show them.
pub fn side_by_side(runs: &[Run]) -> Vec<Across<'_>> {
    let tables: Vec<Vec<Row>> = runs.iter().map(table).collect();
    let mut operations: Vec<&str> = Vec::new();
    for row in tables.iter().flatten().filter(|r| r.has_numbers()) {
        if !operations.contains(&row.operation) {
            operations.push(row.operation);
        }
    }
    operations
        .into_iter()
        .map(|operation| Across {
            operation,
            rows: tables.iter().map(|t| t.iter().find(|r| r.operation == operation).cloned()).collect(),
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::results::model::{Amount, Status};

    /// A timed case of the family: `operation`'s throughput or latency case (by its name's end).
    pub(crate) fn case(name: &str, rate: f64, per_clock: f64, ratio: Option<f64>) -> CaseResult {
        let latency = name.ends_with("latency");
        let mut c = crate::results::model::tests::sample_run().cases[0].clone();
        c.name = name.into();
        c.family = FAMILY.into();
        c.variant = name
            .trim_start_matches("Instr ")
            .trim_end_matches(" latency")
            .trim_end_matches(" throughput")
            .into();
        c.labels.insert("measure".into(), if latency { "latency" } else { "throughput" }.into());
        c.labels.insert("class".into(), "fp32".into());
        c.status = Status::Ok;
        c.rate = Some(Amount { value: rate, unit: if latency { "dependent ops/s" } else { "ops/s" }.into() });
        c.per_clock =
            vec![Amount { value: per_clock, unit: if latency { "clk/op" } else { "ops/clk/SM" }.into() }];
        c.ratio = ratio;
        c.flags.clear();
        c
    }

    pub(crate) fn run_of(cases: Vec<CaseResult>) -> Run {
        Run { cases, ..crate::results::model::tests::sample_run() }
    }

    #[test]
    fn pairs_each_operations_two_cases_into_one_row() {
        let mut sin_latency = case("Instr fp32 sin latency", 86e6, 23.0, None);
        sin_latency.shader_clocked = true;
        sin_latency.clock_mhz = Some(1980.0);
        let run = run_of(vec![
            case("Instr fp32 fma throughput", 32e12, 123.5, Some(1.0)),
            case("Instr fp32 sin throughput", 4e12, 15.9, Some(0.125)),
            case("Instr fp32 fma latency", 480e6, 4.1, None),
            sin_latency,
        ]);
        let rows = table(&run);
        assert_eq!(rows.len(), 2);
        let sin = &rows[1];
        assert_eq!((sin.operation, sin.class), ("fp32 sin", "fp32"));
        assert_eq!(sin.fma_cost(), Some(8.0));
        assert_eq!(sin.per_clock(), Some((15.9, "ops/clk/SM".to_owned())));
        assert_eq!(sin.latency_clk(), Some(23.0));
        assert!(sin.shader_clocked() && !rows[0].shader_clocked());
        assert!((sin.latency_ns().unwrap() - 11.628).abs() < 0.001);
        // 1980 MHz over 86 M dependent operations per second: 23.02 clocks by the timestamps.
        assert!((sin.latency_clk_by_time().unwrap() - 23.023).abs() < 0.001);
        assert!(has_numbers(&rows));
    }

    /// `case` with energy of `pj` picojoules per operation for the board.
    pub(crate) fn with_energy(mut case: CaseResult, pj: f64) -> CaseResult {
        let unit = crate::results::measure::Measure::Energy(crate::registry::Unit::Op);
        case.energy = Some(Box::new(crate::results::energy::CaseEnergy {
            seconds: 4.0,
            joules: 1200.0,
            measurements: 200,
            busy: None,
            per_unit: vec![Amount { value: pj, unit }],
            above_idle: Vec::new(),
        }));
        case
    }

    #[test]
    fn an_operations_energy_is_priced_in_the_fmas_it_is_against() {
        let mut fma = case("Instr fp32 fma throughput", 32e12, 123.5, Some(1.0));
        fma.baseline = Some(fma.name.clone());
        let mut sin = case("Instr fp32 sin throughput", 4e12, 15.9, Some(0.125));
        sin.baseline = fma.name.clone().into();
        let run = run_of(vec![with_energy(fma, 10.2), with_energy(sin.clone(), 40.8)]);
        let rows = table(&run);
        assert_eq!(rows[1].energy_pj(), Some(40.8));
        assert_eq!(rows[1].energy_in_fmas(), Some(4.0));
        assert_eq!(rows[0].energy_in_fmas(), Some(1.0));
        // Without the FMA's energy, no price in FMAs.
        let alone = run_of(vec![with_energy(sin, 40.8)]);
        assert_eq!(table(&alone)[0].energy_in_fmas(), None);
    }

    #[test]
    fn a_skipped_case_leaves_its_numbers_out_and_says_why() {
        let mut skipped = case("Instr fp64 fma throughput", 1.0, 1.0, Some(1.0));
        skipped.status = Status::Skipped;
        skipped.rate = None;
        skipped.reason = Some("the device lacks shaderFloat64".into());
        let run = run_of(vec![skipped]);
        let rows = table(&run);
        assert_eq!(rows[0].ops_per_s(), None);
        assert_eq!(rows[0].fma_cost(), None);
        assert_eq!(
            rows[0].missing().and_then(|c| c.reason.as_deref()),
            Some("the device lacks shaderFloat64")
        );
        assert!(!has_numbers(&rows));
    }

    #[test]
    fn cases_without_the_labels_make_no_table() {
        let mut old = case("Instr fp32 sin throughput", 4e12, 15.9, Some(0.125));
        old.labels.clear();
        assert!(table(&run_of(vec![old])).is_empty());
    }

    #[test]
    fn side_by_side_keeps_every_operation_either_run_timed() {
        let mut skipped = case("Instr fp16 fma throughput", 1.0, 1.0, Some(1.0));
        skipped.status = Status::Skipped;
        let a = run_of(vec![case("Instr fp32 fma throughput", 32e12, 123.5, Some(1.0)), skipped]);
        let b = run_of(vec![
            case("Instr fp32 fma throughput", 16e12, 64.0, Some(1.0)),
            case("Instr fp64 fma throughput", 1e12, 2.0, Some(1.0 / 32.0)),
        ]);
        let runs = [a, b];
        let rows = side_by_side(&runs);
        let operations: Vec<&str> = rows.iter().map(|r| r.operation).collect();
        assert_eq!(operations, ["fp32 fma", "fp64 fma"], "fp16, timed by neither, is left out");
        assert!(rows[0].rows.iter().all(Option::is_some));
        assert!(rows[1].rows[0].is_none());
        assert_eq!(rows[1].rows[1].as_ref().and_then(Row::fma_cost), Some(32.0));
    }
}
