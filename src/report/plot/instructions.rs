//! The instruction table as a chart: a row per operation, its cost in fp32 FMAs on the left and
//! its latency in clocks on the right, a bar per run, both on log scales (a cost of 1 and of 64
//! must both be seen), so the cheap and the dear operations stand out by eye.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{fail, font, BAR, ROW_GAP, TITLE, WIDTH};
use crate::analysis::instructions::{side_by_side, Across, Row};
use crate::format::printable;
use crate::results::model::Run;

/// Where the operation names end and each panel's bars start.
const NAMES: i32 = 260;
/// Each panel's width, its value labels included.
const PANEL: i32 = 460;
/// The longest bar of a panel.
const LONGEST: i32 = 360;
/// Where the right panel starts.
const RIGHT: i32 = NAMES + PANEL;

/// One panel's quantity: a row's value and the label beside its bar.
struct Quantity {
    title: &'static str,
    value: fn(&Row) -> Option<f64>,
    unit: &'static str,
}

const COST: Quantity =
    Quantity { title: "cost in fp32 FMAs (log scale; lower is cheaper)", value: |r| r.fma_cost(), unit: "" };
const CLOCKS: Quantity = Quantity {
    title: "latency, clocks per dependent operation (log scale)",
    value: |r| r.latency_clk(),
    unit: " clk",
};
/// Where no run knows its clock.
const TIME: Quantity = Quantity {
    title: "latency, ns per dependent operation (log scale; the clock is unknown)",
    value: |r| r.latency_ns(),
    unit: " ns",
};

/// The chart of the runs' tables (labelled by `labels`), or `None` where no run timed the family.
pub fn svg(labels: &[String], runs: &[Run]) -> Option<Result<String, String>> {
    let rows = side_by_side(runs);
    (!rows.is_empty()).then(|| render(labels, &rows))
}

/// Every row of every run in `rows`.
fn all<'r, 'a>(rows: &'r [Across<'a>]) -> impl Iterator<Item = &'r Row<'a>> {
    rows.iter().flat_map(|across| across.rows.iter().flatten())
}

fn render(labels: &[String], rows: &[Across]) -> Result<String, String> {
    let runs = labels.len();
    let row_height = BAR * runs as i32 + ROW_GAP;
    let top = TITLE + 18 * runs as i32 + 24;
    let height = top + row_height * rows.len() as i32 + 10;
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (WIDTH, height as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(fail)?;
    let legend: Vec<String> =
        labels.iter().enumerate().map(|(i, label)| format!("run {}: {label}", i + 1)).collect();
    let y =
        super::head(&root, "perftest: the instruction table (each operation's cost and latency)", &legend)?;
    let clocks = all(rows).any(|r| r.latency_clk().is_some());
    let latency = if clocks { CLOCKS } else { TIME };
    for (q, left) in [COST, latency].iter().zip([NAMES, RIGHT]) {
        root.draw(&Text::new(q.title, (left, y + 4), font(13))).map_err(fail)?;
        let values = all(rows).filter_map(q.value);
        let (low, high) = values.fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(v), h.max(v)));
        panel(&root, rows, q, left, top, Scale::new(low, high))?;
    }
    for (r, across) in rows.iter().enumerate() {
        let at = (10, top + r as i32 * row_height);
        root.draw(&Text::new(printable(across.operation).into_owned(), at, font(12))).map_err(fail)?;
    }
    root.present().map_err(fail)?;
    drop(root);
    Ok(svg)
}

/// A log scale from the lowest value (a bar of a few pixels) to the highest (the longest bar).
pub(super) struct Scale {
    low: f64,
    octaves: f64,
}

impl Scale {
    pub(super) fn new(low: f64, high: f64) -> Self {
        let low = (low.max(f64::MIN_POSITIVE) / 2.0).log2().floor().exp2();
        let octaves = (high.max(low * 2.0) / low).log2();
        Scale { low, octaves }
    }

    pub(super) fn length(&self, value: f64) -> i32 {
        ((value / self.low).log2() / self.octaves * f64::from(LONGEST)).round().clamp(1.0, f64::from(LONGEST))
            as i32
    }
}

/// One quantity's bars, a group of one per run on each operation's row.
fn panel(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    rows: &[Across],
    quantity: &Quantity,
    left: i32,
    top: i32,
    scale: Scale,
) -> Result<(), String> {
    let row_height = BAR * rows.first().map_or(1, |across| across.rows.len()) as i32 + ROW_GAP;
    for (r, across) in rows.iter().enumerate() {
        for (i, found) in across.rows.iter().enumerate() {
            let y = top + r as i32 * row_height + BAR * i as i32;
            let Some(value) = found.as_ref().and_then(quantity.value) else {
                let why = match found {
                    None => "missing",
                    Some(row) if row.throughput.is_none() && quantity.title == COST.title => "latency only",
                    Some(_) => "not timed",
                };
                root.draw(&Text::new(why, (left, y), font(11))).map_err(fail)?;
                continue;
            };
            let length = scale.length(value);
            let color = super::style::colour(i).to_rgba();
            root.draw(&Rectangle::new([(left, y), (left + length, y + BAR - 2)], color.filled()))
                .map_err(fail)?;
            let label = format!("{}{}", crate::format::sig4(value), quantity.unit);
            root.draw(&Text::new(label, (left + length + 4, y), font(11))).map_err(fail)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::instructions::tests::{case, run_of};

    #[test]
    fn draws_a_row_per_operation_and_says_what_is_missing() {
        let a = run_of(vec![
            case("Instr fp32 fma throughput", 32e12, 128.0, Some(1.0)),
            case("Instr fp32 fma latency", 480e6, 4.1, None),
            case("Instr fp32 sin throughput", 4e12, 16.0, Some(0.125)),
        ]);
        let b = run_of(vec![case("Instr fp32 fma throughput", 16e12, 64.0, Some(1.0))]);
        let chart = svg(&["a".into(), "b".into()], &[a, b]).unwrap().unwrap();
        assert!(chart.contains("fp32 fma") && chart.contains("fp32 sin"), "a row per operation");
        assert!(chart.contains("\n8.000\n"), "sin's cost beside its bar");
        assert!(chart.contains("\n4.100 clk\n"), "the FMA's latency beside its bar");
        assert!(chart.contains("\nmissing\n"), "run b has no sin");
        assert!(chart.contains("\nnot timed\n"), "run b's FMA has no latency case");
        assert!(svg(&["a".into()], &[run_of(Vec::new())]).is_none());
    }

    #[test]
    fn the_log_scale_keeps_every_bar_visible_and_in_order() {
        let scale = Scale::new(1.0, 64.0);
        let lengths: Vec<i32> = [1.0, 2.0, 8.0, 64.0].iter().map(|v| scale.length(*v)).collect();
        assert!(lengths.windows(2).all(|w| w[0] < w[1]), "{lengths:?}");
        assert!(lengths[0] >= 1 && lengths[3] == LONGEST, "{lengths:?}");
    }
}
