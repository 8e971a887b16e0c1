//! The energy table as a chart: a row per level, the arithmetic (picojoules per FLOP) then the
//! memory hierarchy from the nearest level out (picojoules per byte), a bar per run on one log
//! scale: the pale bar ends at the board's energy, the dark bar over it at the energy above the
//! idle board, so what the work itself adds and what the whole board costs read apart.

use plotters::prelude::*;

use super::instructions::Scale;
use super::style::Hovers;
use super::{fail, font, BAR, ROW_GAP, TITLE, WIDTH};
use crate::analysis::energy::{side_by_side, Level};
use crate::format::{printable, sig4};
use crate::results::model::Run;

/// Where the level names end and the bars start.
const NAMES: i32 = 200;

/// The chart of the runs' energy tables (labelled by `labels`), or `None` where no run has one.
pub fn svg(labels: &[String], runs: &[Run]) -> Option<Result<String, String>> {
    let rows = side_by_side(runs);
    (!rows.is_empty()).then(|| render(labels, &rows))
}

fn render(labels: &[String], rows: &[(String, Vec<Option<Level>>)]) -> Result<String, String> {
    let runs = labels.len();
    let row_height = BAR * runs as i32 + ROW_GAP;
    let top = TITLE + 18 * runs as i32 + 40;
    let height = top + row_height * rows.len() as i32 + 10;
    let mut svg = String::new();
    let mut hovers = Hovers::default();
    let root = SVGBackend::with_string(&mut svg, (WIDTH, height as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(fail)?;
    let legend: Vec<String> =
        labels.iter().enumerate().map(|(i, label)| format!("run {}: {label}", i + 1)).collect();
    let y = super::head(
        &root,
        "perftest: energy per unit of work, from the ALUs down the memory hierarchy",
        &legend,
    )?;
    let note =
        "picojoules per FLOP or per byte (log scale): the pale bar for the board, the dark bar above the \
                idle board";
    root.draw(&Text::new(note, (NAMES, y + 8), font(13))).map_err(fail)?;
    let values = rows.iter().flat_map(|(_, each)| each.iter().flatten().map(|r| r.board));
    let (low, high) = values.fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(v), h.max(v)));
    let scale = Scale::new(low, high);
    for (r, (level, each)) in rows.iter().enumerate() {
        let row_top = top + r as i32 * row_height;
        root.draw(&Text::new(printable(level).into_owned(), (10, row_top), font(12))).map_err(fail)?;
        for (i, found) in each.iter().enumerate() {
            let y = row_top + BAR * i as i32;
            let Some(row) = found else {
                root.draw(&Text::new("not measured", (NAMES, y), font(11))).map_err(fail)?;
                continue;
            };
            let colour = super::style::colour(i);
            let length = scale.length(row.board);
            let pale = colour.mix(0.35);
            root.draw(&Rectangle::new([(NAMES, y), (NAMES + length, y + BAR - 2)], pale.filled()))
                .map_err(fail)?;
            if let Some(above) = row.above {
                // The energy above idle on the same scale, over the board's.
                let part = scale.length(above.min(row.board));
                root.draw(&Rectangle::new([(NAMES, y), (NAMES + part, y + BAR - 2)], colour.filled()))
                    .map_err(fail)?;
            }
            let unit = row.unit.amount_name();
            let above = row.above.map_or(String::new(), |a| format!(" ({} above idle)", sig4(a)));
            let label = format!("{} pJ/{unit}{above}", sig4(row.board));
            root.draw(&Text::new(label.clone(), (NAMES + length + 4, y), font(11))).map_err(fail)?;
            let hover = format!("{level}, run {}: {label}; {}", i + 1, row.case.name);
            hovers.push((NAMES, y), (NAMES + length, y + BAR - 2), hover);
        }
    }
    root.present().map_err(fail)?;
    drop(root);
    Ok(hovers.over(&svg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::energy::tests::run_with_energy;

    #[test]
    fn draws_a_row_per_level_with_its_picojoules_and_says_what_is_missing() {
        let a = run_with_energy();
        let mut b = a.clone();
        b.cases.retain(|c| c.name != "Shared vec4");
        let chart = svg(&["a".into(), "b".into()], &[a.clone(), b]).unwrap().unwrap();
        for level in ["fp32 FMA", "shared memory", "L1", "L2", "DRAM"] {
            assert!(chart.contains(&format!("\n{level}\n")), "{level}");
        }
        assert!(chart.contains("\n130.0 pJ/B (90.00 above idle)\n"), "DRAM's label");
        assert!(chart.contains("\nnot measured\n"), "run b has no shared memory");
        assert!(chart.contains("<title>DRAM, run 1: 130.0 pJ/B"), "a hover per bar");
        let mut none = a;
        none.cases.iter_mut().for_each(|c| c.energy = None);
        assert!(svg(&["a".into()], &[none]).is_none());
    }
}
