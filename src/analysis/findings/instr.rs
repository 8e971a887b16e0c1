//! The findings of the instruction table: what operations cost in fp32 FMAs, which of two ways
//! to write the same thing is cheaper, and how much independent work hides a latency.

use super::{shown, Finding, SAME};
use crate::analysis::instructions::{table, Row};
use crate::results::model::{CaseResult, Run};

/// The table's operations whose cost a shader programmer asks for first, in the order said.
const COSTLY: [&str; 9] = [
    "fp32 sin",
    "fp32 exp2",
    "fp32 log2",
    "fp32 inversesqrt",
    "fp32 sqrt",
    "fp32 a/b",
    "fp32 pow",
    "fp32 atan",
    "uint32 / (run-time)",
];

/// Every finding the run's instruction table supports.
pub fn findings(run: &Run) -> Vec<Finding> {
    let rows = table(run);
    let find = Find(&rows);
    let rules = [
        costs(&find),
        inverse_sqrt(&find),
        division(&find),
        half(&find),
        double(&find, run),
        reduction(&find, run),
        in_flight(&find),
    ];
    rules.into_iter().flatten().collect()
}

/// The rows of a table, looked up by operation.
struct Find<'r, 'a>(&'r [Row<'a>]);

impl<'r, 'a> Find<'r, 'a> {
    /// The row of `op` if its throughput was timed with a ratio (a cost in FMAs).
    fn get(&self, op: &str) -> Option<&'r Row<'a>> {
        self.0.iter().find(|r| r.operation == op && r.fma_cost().is_some())
    }
}

/// A cost in FMAs or a number of clocks, as the sentences say them: `7.8`.
fn num(value: f64) -> String {
    match value {
        v if v >= 100.0 => format!("{v:.0}"),
        v if v >= 0.95 => format!("{v:.1}"),
        v => format!("{v:.2}"),
    }
}

fn throughput<'a>(row: &Row<'a>) -> &'a CaseResult {
    row.throughput.expect("a row with a cost has its throughput case")
}

fn finding(id: &'static str, text: String, cases: &[&CaseResult]) -> Option<Finding> {
    Some(Finding { id, family: "instr", text, evidence: cases.iter().map(|c| shown(c)).collect() })
}

/// What the costly operations cost in FMAs.
fn costs(find: &Find) -> Option<Finding> {
    let fma = find.get("fp32 fma")?;
    let rows: Vec<&Row> = COSTLY.iter().filter_map(|op| find.get(op)).collect();
    if rows.is_empty() {
        return None;
    }
    let (rate, unit) = fma.per_clock().map_or((String::new(), String::new()), |(v, u)| (num(v), u));
    let each = match rate.is_empty() {
        true => String::new(),
        false => format!(" ({rate} {unit})"),
    };
    let parts: Vec<String> = rows
        .iter()
        .filter_map(|r| Some(format!("{} {}", r.operation.trim_start_matches("fp32 "), num(r.fma_cost()?))))
        .collect();
    let mut cases: Vec<&CaseResult> = vec![throughput(fma)];
    cases.extend(rows.iter().map(|r| throughput(r)));
    let text = format!("One call costs, in fp32 FMAs{each}: {}.", parts.join(", "));
    finding("instr-costs", text, &cases)
}

/// `inversesqrt(x)` against `sqrt(x)` then `1.0 / x`. The reciprocal's case holds an add, which
/// may issue beside it on another pipe (NVIDIA's MUFU and FMA): its cost is taken whole.
fn inverse_sqrt(find: &Find) -> Option<Finding> {
    let (rsqrt, sqrt, rcp) =
        (find.get("fp32 inversesqrt")?, find.get("fp32 sqrt")?, find.get("fp32 1/x (+ add)")?);
    let (one, root, reciprocal) = (rsqrt.fma_cost()?, sqrt.fma_cost()?, rcp.fma_cost()?);
    let both = root + reciprocal;
    let cases = [throughput(rsqrt), throughput(sqrt), throughput(rcp)];
    let text = if one < both * (1.0 - SAME) {
        format!(
            "Write inversesqrt(x), not 1.0 / sqrt(x): {} FMAs against {} ({} for the sqrt, {} for the \
             reciprocal with an add) where the compiler keeps them apart.",
            num(one),
            num(both),
            num(root),
            num(reciprocal)
        )
    } else {
        format!("inversesqrt(x) costs {} FMAs, no less than sqrt(x) then 1.0 / x ({}).", num(one), num(both))
    };
    finding("instr-inverse-sqrt", text, &cases)
}

/// An integer division by a run-time value against a shift.
fn division(find: &Find) -> Option<Finding> {
    let divide = find.get("uint32 / (run-time)")?;
    let shift = find.get("int32 >>")?;
    let (cost, shift_cost) = (divide.fma_cost()?, shift.fma_cost()?);
    if cost < shift_cost * (1.0 + SAME) {
        return None;
    }
    let latency = match (divide.latency_clk(), shift.latency_clk()) {
        (Some(d), Some(s)) => format!(" and waits {} clocks against {}", num(d), num(s)),
        _ => String::new(),
    };
    let text = format!(
        "An integer division by a value known only at run time costs {} FMAs{latency}, a shift {}: divide \
         by a constant the compiler can see, or shift by a power of two.",
        num(cost),
        num(shift_cost)
    );
    finding("instr-division", text, &[throughput(divide), throughput(shift)])
}

/// float16_t and f16vec2 against fp32.
fn half(find: &Find) -> Option<Finding> {
    let (scalar, packed) = (find.get("fp16 fma")?, find.get("f16vec2 fma")?);
    let (one, two) = (1.0 / scalar.fma_cost()?, 1.0 / packed.fma_cost()?);
    let text = if two > one * (1.0 + SAME) && two > 1.0 + SAME {
        format!(
            "Pack half precision: an f16vec2 FMA does {} fp32 FMAs' work per unit of cost (each component \
             counted), a float16_t FMA {}.",
            num(two),
            num(one)
        )
    } else if two > 1.0 + SAME {
        format!("Half precision runs at {} the fp32 FMA's rate, scalar or packed alike.", num(two))
    } else {
        format!(
            "Half precision buys no throughput in these chains here: a float16_t FMA runs at {}, an f16vec2 \
             FMA at {} of the fp32 FMA's rate per component (the alu family's f16vec2 case, with more \
             independent work, says whether the peak is higher).",
            num(one),
            num(two)
        )
    };
    finding("instr-half", text, &[throughput(scalar), throughput(packed)])
}

/// What an fp64 FMA costs.
fn double(find: &Find, run: &Run) -> Option<Finding> {
    let fma = find.get("fp64 fma")?;
    let cost = fma.fma_cost()?;
    // Advice only from a GPU's unflagged results.
    let advise = super::may_advise(run, &[throughput(fma)]);
    let text = match cost {
        c if c < 4.0 => format!("fp64 is fast here: an fp64 FMA costs {} fp32 FMAs.", num(c)),
        c if advise => format!("An fp64 FMA costs {} fp32 FMAs: keep doubles out of inner loops.", num(c)),
        c => format!("An fp64 FMA costs {} fp32 FMAs.", num(c)),
    };
    finding("instr-double", text, &[throughput(fma)])
}

/// A subgroup sum by `subgroupAdd` against a ladder of `subgroupShuffleXor` and adds.
fn reduction(find: &Find, run: &Run) -> Option<Finding> {
    let lanes = run.device.subgroup_size;
    let (reduce, shuffle, add) =
        (find.get("subgroupAdd uint (+ add)")?, find.get("subgroupShuffleXor")?, find.get("int32 add")?);
    if lanes < 2 {
        return None;
    }
    let steps = lanes.ilog2();
    let ladder = f64::from(steps) * (shuffle.fma_cost()? + add.fma_cost()?);
    let built_in = reduce.fma_cost()?;
    let cases = [throughput(reduce), throughput(shuffle), throughput(add)];
    let verdict = match built_in {
        // Advice only from a GPU's unflagged results.
        c if c < ladder * (1.0 - SAME) && super::may_advise(run, &cases) => "use subgroupAdd",
        c if c < ladder * (1.0 - SAME) => "subgroupAdd is cheaper here",
        c if c > ladder * (1.0 + SAME) => "the ladder is cheaper here",
        _ => "either",
    };
    let text = format!(
        "A subgroup sum: subgroupAdd costs {} FMAs (with an add), {steps} steps of subgroupShuffleXor and an \
         add over {lanes} lanes {}: {verdict}.",
        num(built_in),
        num(ladder)
    );
    finding("instr-reduction", text, &cases)
}

/// How many independent FMAs a compute unit needs in flight to reach the FMA's rate.
fn in_flight(find: &Find) -> Option<Finding> {
    let fma = find.get("fp32 fma")?;
    let (rate, unit) = fma.per_clock()?;
    let latency = fma.latency_clk()?;
    let unit_name = unit.rsplit('/').next().unwrap_or("compute unit").to_owned();
    let needed = (rate * latency).round();
    let how = match fma.shader_clocked() {
        true => "counted by the shader clock",
        false => "at the clock read around the case",
    };
    let text = format!(
        "A dependent fp32 FMA waits {} clocks ({how}); at {} per clock, each {unit_name} needs about {needed} \
         independent FMAs in flight to reach the rate: more subgroups, or more chains per invocation.",
        num(latency),
        num(rate)
    );
    let cases: Vec<&CaseResult> = [fma.throughput, fma.latency].into_iter().flatten().collect();
    finding("instr-in-flight", text, &cases)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::instructions::tests::{case, run_of};

    /// An H100-like table: `(operation, ops/clk/SM, clocks of latency)`, FMA at 128 per clock.
    fn h100(rows: &[(&str, f64, f64)]) -> Run {
        let cases = rows.iter().flat_map(|&(op, per_clock, clk)| {
            let mut latency = case(&format!("Instr {op} latency"), 1980e6 / clk, clk, None);
            latency.shader_clocked = true;
            [
                case(&format!("Instr {op} throughput"), per_clock * 1e12, per_clock, Some(per_clock / 128.0)),
                latency,
            ]
        });
        let mut run = run_of(cases.collect());
        run.device.subgroup_size = 32;
        run
    }

    fn text<'f>(found: &'f [Finding], id: &str) -> &'f str {
        &found.iter().find(|f| f.id == id).unwrap_or_else(|| panic!("no {id} in {found:#?}")).text
    }

    #[test]
    fn the_table_says_what_each_costs_and_which_form_to_write() {
        let run = h100(&[
            ("fp32 add", 128.0, 4.0),
            ("fp32 fma", 128.0, 4.0),
            ("fp32 sin", 16.0, 23.0),
            ("fp32 inversesqrt", 16.0, 17.0),
            ("fp32 sqrt", 16.0, 17.0),
            ("fp32 1/x (+ add)", 16.0, 23.0),
            ("uint32 / (run-time)", 7.0, 95.0),
            ("int32 add", 128.0, 4.0),
            ("int32 >>", 64.0, 4.0),
            ("fp16 fma", 128.0, 4.0),
            ("f16vec2 fma", 256.0, 4.0),
            ("fp64 fma", 64.0, 8.0),
            ("subgroupShuffleXor", 32.0, 26.0),
            ("subgroupAdd uint (+ add)", 16.0, 44.0),
        ]);
        let found = findings(&run);
        assert_eq!(
            text(&found, "instr-costs"),
            "One call costs, in fp32 FMAs (128 ops/clk/SM): sin 8.0, inversesqrt 8.0, sqrt 8.0, \
             uint32 / (run-time) 18.3."
        );
        // sqrt (8) and a reciprocal (8 with its add): 16 against 8.
        assert!(text(&found, "instr-inverse-sqrt").starts_with(
            "Write inversesqrt(x), not 1.0 / sqrt(x): 8.0 FMAs against 16.0 (8.0 for the sqrt, 8.0"
        ));
        assert!(text(&found, "instr-division")
            .contains("costs 18.3 FMAs and waits 95.0 clocks against 4.0, a shift 2.0"));
        assert!(text(&found, "instr-half").starts_with("Pack half precision: an f16vec2 FMA does 2.0"));
        assert_eq!(text(&found, "instr-double"), "fp64 is fast here: an fp64 FMA costs 2.0 fp32 FMAs.");
        // 5 steps of a shuffle (4) and an add (1) over 32 lanes: 25, against subgroupAdd's 8.
        assert!(text(&found, "instr-reduction").contains("costs 8.0 FMAs (with an add), 5 steps"));
        assert!(text(&found, "instr-reduction").ends_with("over 32 lanes 25.0: use subgroupAdd."));
        assert!(text(&found, "instr-in-flight").contains("waits 4.0 clocks (counted by the shader clock)"));
        assert!(text(&found, "instr-in-flight").contains("each SM needs about 512 independent FMAs"));
        let evidence = &found.iter().find(|f| f.id == "instr-costs").unwrap().evidence;
        assert_eq!(evidence[0].0, "Instr fp32 fma throughput");
    }

    #[test]
    fn a_table_without_the_cases_a_rule_reads_says_nothing_of_it() {
        assert!(findings(&h100(&[("fp32 sin", 16.0, 23.0)])).is_empty(), "no FMA, no cost");
        let only_fma = findings(&h100(&[("fp32 fma", 128.0, 4.0)]));
        assert_eq!(only_fma.iter().map(|f| f.id).collect::<Vec<_>>(), ["instr-in-flight"]);
        let slow_fp64 = findings(&h100(&[("fp32 fma", 128.0, 4.0), ("fp64 fma", 2.0, 8.0)]));
        assert_eq!(
            text(&slow_fp64, "instr-double"),
            "An fp64 FMA costs 64.0 fp32 FMAs: keep doubles out of inner loops."
        );
    }
}
