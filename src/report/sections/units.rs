//! The compute units' own rates after a run's cases: a line per case of the `units` family, as one
//! preformatted block; on the report page, the units as strips.

use super::{Block, FamilySection, RunSection};
use crate::analysis::units::{spread, UnitChange, UNIT_FLOOR};
use crate::format::sig4;
use crate::results::model::Run;

inventory::submit! { RunSection { name: "units", order: 30, blocks } }
inventory::submit! { FamilySection { family: "units", charts: &["units-strips.svg"], blocks: page } }

/// The report page's part of the family: the first run's units as strips (one device's units are
/// its own).
fn page(_: &[String], runs: &[Run]) -> Vec<Block> {
    match crate::report::plot::units::svg(&runs[0]) {
        Some(Ok(svg)) => vec![Block::Chart { file: "units-strips.svg".into(), svg }],
        _ => Vec::new(),
    }
}

/// The lines as a block, or none.
fn blocks(run: &Run) -> Vec<Block> {
    let text = units(run);
    match text.is_empty() {
        true => Vec::new(),
        false => vec![Block::Pre(text)],
    }
}

/// `SM 41 (-0.30%)`.
fn unit(name: &str, c: &UnitChange) -> String {
    format!("{name} {} ({:+.2}%)", c.unit, c.change * 100.0)
}

/// The lines, or nothing where no case kept per-unit rates:
/// `  Units fp32 FMA: 132 of 132 SM; median 251.2 FLOP/clk, spread 0.08%; slowest SM 41 (-0.30%), ...`.
pub fn units(run: &Run) -> String {
    let name = run.device.compute_unit.as_deref().unwrap_or("unit");
    let mut lines = Vec::new();
    for case in run.cases.iter().filter(|c| !c.units.is_empty()) {
        let Some(s) = spread(case, run.device.compute_units) else { continue };
        let of = s.expected.map_or(String::new(), |n| format!(" of {n}"));
        let unit_of_rate = case
            .rate
            .as_ref()
            .and_then(|r| r.unit.unit())
            .map_or(String::new(), |u| format!(" {}", u.amount_name()));
        let verdict = match s.slow.as_slice() {
            [] => format!("none slower than the others beyond their spread and {:.0}%", UNIT_FLOOR * 100.0),
            slow => {
                let list: Vec<String> = slow.iter().map(|c| unit(name, c)).collect();
                format!("slower than the others: {}", list.join(", "))
            }
        };
        let missing =
            if s.all_seen() { "" } else { " (not every unit ran: the grid's work is not all accounted for)" };
        lines.push(format!(
            "  {}: {}{of} {name}{missing}; median {}{unit_of_rate}/clk, spread {:.2}%; slowest {}, fastest {}; {verdict}",
            case.name,
            s.seen,
            sig4(s.median),
            s.spread * 100.0,
            unit(name, &s.slowest),
            unit(name, &s.fastest),
        ));
    }
    match lines.is_empty() {
        true => String::new(),
        false => format!(
            "\nunits: each compute unit's own rate of the same work, per its own clock\n{}\n",
            lines.join("\n")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::units::tests::units_case;
    use crate::results::model::tests::sample_run;

    #[test]
    fn a_line_per_case_with_its_slowest_and_fastest_unit() {
        let mut run = sample_run();
        run.cases = vec![units_case(17, 0.05)];
        let text = units(&run);
        assert!(text.starts_with("\nunits: each compute unit's own rate"), "{text}");
        assert!(text.contains("  Units fp32 FMA: 132 of 132 SM; median 250.0 FLOP/clk, spread "), "{text}");
        assert!(text.contains("slowest SM 17 (-4.9"), "{text}");
        assert!(text.contains("; slower than the others: SM 17 (-4.9"), "{text}");
        run.cases.clear();
        assert_eq!(units(&run), "");
    }
}
