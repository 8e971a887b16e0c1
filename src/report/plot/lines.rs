//! A line panel of `perftest plot`: a group swept over an axis, x the axis (log scale for
//! bytes and wide ranges), one line per variant and run, its legend to the right of the data.
//! Where several runs are drawn, a line has its run's colour (the chart's legend at the top says
//! which) and its variant's marker; a single run's variants are told apart by colour.

use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{fail, font, value, Metric, Panel, LOG_OCTAVES};
use crate::analysis::levels::LATENCY;
use crate::format::{printable, si};
use crate::registry::Unit;
use crate::results::family::FamilyFacts;
use crate::results::model::{Amount, CaseResult};

/// The legend's width, to the right of the data.
const LEGEND: i32 = 330;
/// The most characters of a legend entry (a longer one ends in `...`).
const LEGEND_CHARS: usize = 44;
/// The markers a line can have, in order.
const MARKERS: usize = 6;

/// One line: a variant in one run, as (axis value, metric value) points in axis order.
struct Line {
    label: String,
    variant: usize,
    run: usize,
    points: Vec<(f64, f64)>,
}

/// The line panel of `panel`, drawn into `area`: x = `axis`, one line per variant and run.
pub(super) fn lines(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    panel: &Panel<'_>,
    axis: &str,
    runs: usize,
    families: &[FamilyFacts],
) -> Result<(), String> {
    let mut variants: Vec<String> = Vec::new();
    let mut series: Vec<Line> = Vec::new();
    let mut unit = String::new();
    // Against a working-set size, bandwidth (B/s) is what compares across load widths.
    let bytes = axis.contains("bytes");
    let bandwidth =
        |case: &CaseResult| case.rates.iter().find(|a| a.rate_unit() == Some(Unit::Byte)).cloned();
    for m in &panel.rows {
        for (run, case) in m.found.iter().enumerate() {
            let (Some(case), Some(&x)) = (case, m.any().axes.get(axis)) else { continue };
            let rate = match (bytes, panel.metric) {
                (true, Metric::Rate) => bandwidth(case).or_else(|| case.rate.clone()),
                _ => case.rate.clone(),
            };
            // A pointer chase's rate is drawn as the latency it is.
            let rate = rate.map(|a| match a.latency() {
                Some((ns, _)) => Amount { value: ns, unit: LATENCY.into() },
                None => a,
            });
            let v = match panel.metric {
                Metric::Rate => rate.as_ref().map(|a| a.value),
                Metric::Ratio => value(case, panel.metric),
            };
            let Some(v) = v else { continue };
            if unit.is_empty() {
                unit = rate.map(|a| a.unit.to_string()).unwrap_or_default();
            }
            let variant = match variants.iter().position(|v| *v == case.variant) {
                Some(i) => i,
                None => {
                    variants.push(case.variant.clone());
                    variants.len() - 1
                }
            };
            match series.iter_mut().find(|l| l.variant == variant && l.run == run) {
                Some(line) => line.points.push((x as f64, v)),
                None => {
                    let label = if runs > 1 {
                        format!("{} (run {})", case.variant, run + 1)
                    } else {
                        case.variant.clone()
                    };
                    series.push(Line { label, variant, run, points: vec![(x as f64, v)] });
                }
            }
        }
    }
    for line in &mut series {
        line.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let xs = series.iter().flat_map(|l| l.points.iter().map(|p| p.0));
    let (x_min, x_max) = xs.fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let y_max = series.iter().flat_map(|l| l.points.iter().map(|p| p.1)).fold(0.0, f64::max);
    let y_min = series.iter().flat_map(|l| l.points.iter().map(|p| p.1)).fold(f64::MAX, f64::min);
    if series.is_empty() || y_max <= 0.0 {
        return area
            .draw(&Text::new(
                printable(&format!("{}: nothing to draw", panel.group)).into_owned(),
                (10, 8),
                font(16),
            ))
            .map_err(fail);
    }
    let y_label = match panel.metric {
        Metric::Rate => printable(&unit).into_owned(),
        Metric::Ratio => "ratio to the baseline".to_owned(),
    };
    let family = panel.rows.first().map(|m| m.any().family.as_str()).unwrap_or_default();
    let x_label = axis_label(families, family, axis);
    let lower_is_faster = if unit == LATENCY { ", lower is faster" } else { "" };
    let caption = format!("{} (x: {x_label}{lower_is_faster})", panel.group);
    let x_range = (x_min, x_max.max(x_min + 1.0));
    // Bytes axes (a test keeps them named so) are drawn on a log scale and labelled in KiB, MiB, ...;
    // their bandwidth spans decades (L1 to DRAM), so it is drawn log too. Other axes spanning
    // 16x or more (mask sizes 3 to 255) are drawn log along x, and along y where the values
    // span 100x or more (atomics from one address to a million).
    let log = x_min > 0.0 && (bytes || x_max / x_min >= 16.0);
    let log_y = log && y_min > 0.0 && (bytes || y_max / y_min >= 100.0);
    let y_top = y_max * 1.08;
    let (width, height) = area.dim_in_pixel();
    let (data, key) = area.split_horizontally(width as i32 - LEGEND);
    legend(&key, &series, runs, height as i32)?;
    let mut chart = ChartBuilder::on(&data);
    chart.caption(printable(&caption), font(16)).margin(10).x_label_area_size(36).y_label_area_size(74);
    if log_y {
        // At most 40 octaves below the top: a tiny value is drawn at the bottom, not given an
        // axis of a thousand octaves (plotters' tick loop would not end).
        let y_low = (y_min / 1.3).max(y_max / 2f64.powi(LOG_OCTAVES));
        for point in series.iter_mut().flat_map(|line| line.points.iter_mut()) {
            point.1 = point.1.max(y_low);
        }
        let y_range = (y_low..y_max * 1.3).log_scale().base(2.0);
        let mut chart =
            chart.build_cartesian_2d((x_range.0..x_range.1).log_scale().base(2.0), y_range).map_err(fail)?;
        draw_series(&mut chart, &series, runs, &y_label, &x_label, bytes)
    } else if log {
        let mut chart = chart
            .build_cartesian_2d((x_range.0..x_range.1).log_scale().base(2.0), 0.0..y_top)
            .map_err(fail)?;
        draw_series(&mut chart, &series, runs, &y_label, &x_label, bytes)
    } else {
        let mut chart = chart.build_cartesian_2d(x_range.0..x_range.1, 0.0..y_top).map_err(fail)?;
        draw_series(&mut chart, &series, runs, &y_label, &x_label, bytes)
    }
}

/// The x label of `family`'s axis `axis`: its name and what it counts, as the run's `families`
/// declare it (`n (iterations)` for the branch family, `n (rows)` for GEMM); just the name for a
/// bytes axis or one they do not name.
fn axis_label(families: &[FamilyFacts], family: &str, axis: &str) -> String {
    let declared = families.iter().find(|f| f.name == family);
    match declared.and_then(|f| f.axes.iter().find(|a| a.name == axis)).and_then(|a| a.counts.as_deref()) {
        Some(what) => format!("{axis} ({what})"),
        None => axis.to_owned(),
    }
}

/// A byte count as an axis label: exact binary sizes as such (`64 MiB`), others to three digits
/// in the largest binary unit below them (`97.7 KiB` for a log scale's 100000).
fn bytes_label(bytes: f64) -> String {
    if bytes.fract() == 0.0 && (bytes as u64).is_power_of_two() {
        return crate::format::format_bytes(bytes as u64);
    }
    let units = [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")];
    let (shift, name) = units.into_iter().find(|(shift, _)| bytes >= 2f64.powi(*shift)).unwrap_or((0, "B"));
    let value = bytes / 2f64.powi(shift);
    let text = if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    };
    format!("{text} {name}")
}

/// The colour and stroke of `line` where `runs` runs are drawn: its run's colour where there are
/// several, else its variant's.
fn style_of(line: &Line, runs: usize) -> ShapeStyle {
    let by = if runs > 1 { line.run } else { line.variant };
    ShapeStyle { color: super::style::colour(by).to_rgba(), filled: true, stroke_width: 2 }
}

/// Which marker `line` has: its variant's where several runs are drawn (the colour says the run),
/// else a circle.
fn marker_of(line: &Line, runs: usize) -> usize {
    if runs > 1 {
        line.variant % MARKERS
    } else {
        0
    }
}

/// Draws marker `kind` (circle, triangle, square, cross, open circle, open square) at each of
/// `points` of `area`, in `style`.
fn markers<DB, CT>(
    area: &DrawingArea<DB, CT>,
    points: impl Iterator<Item = CT::From>,
    kind: usize,
    style: ShapeStyle,
) -> Result<(), String>
where
    DB: DrawingBackend,
    CT: CoordTranslate,
    CT::From: Clone,
{
    let open = ShapeStyle { filled: false, stroke_width: 2, ..style };
    for p in points {
        let drawn = match kind {
            0 => area.draw(&Circle::new(p, 3, style)),
            1 => area.draw(&TriangleMarker::new(p, 4, style)),
            2 => area.draw(&(EmptyElement::at(p) + Rectangle::new([(-3, -3), (3, 3)], style))),
            3 => area.draw(&Cross::new(p, 4, style)),
            4 => area.draw(&Circle::new(p, 4, open)),
            _ => area.draw(&(EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], open))),
        };
        drawn.map_err(fail)?;
    }
    Ok(())
}

/// The legend of `series` in `area` (to the right of the data, `height` pixels): an entry per
/// line, its stroke and marker then its name; entries that do not fit are counted on a last line.
fn legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    series: &[Line],
    runs: usize,
    height: i32,
) -> Result<(), String> {
    const ROW: i32 = 17;
    let fits = ((height - 60) / ROW).max(1) as usize;
    let shown = if series.len() > fits { fits - 1 } else { series.len() };
    let mut y = 48;
    let at = font(12).color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
    for line in &series[..shown] {
        let style = style_of(line, runs);
        area.draw(&PathElement::new(vec![(4, y), (28, y)], style)).map_err(fail)?;
        markers(area, std::iter::once((16, y)), marker_of(line, runs), style)?;
        let mut text = printable(&line.label).into_owned();
        if text.chars().count() > LEGEND_CHARS {
            text = text.chars().take(LEGEND_CHARS - 3).chain("...".chars()).collect();
        }
        area.draw(&Text::new(text, (36, y), at.clone())).map_err(fail)?;
        y += ROW;
    }
    if shown < series.len() {
        let more = format!("and {} more lines (the table has them)", series.len() - shown);
        area.draw(&Text::new(more, (36, y), at)).map_err(fail)?;
    }
    Ok(())
}

/// A value axis's tick: SI-prefixed from a thousand, else at most three significant digits with
/// no trailing zeros (`512`, `0.25`).
fn tick(value: f64) -> String {
    if value.abs() >= 1e3 {
        return si(value, "");
    }
    let digits = if value == 0.0 { 0 } else { (2 - value.abs().log10().floor() as i32).clamp(0, 6) as usize };
    let text = format!("{value:.digits$}");
    match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.').to_owned(),
        false => text,
    }
}

fn draw_series<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    series: &[Line],
    runs: usize,
    y_label: &str,
    x_label: &str,
    bytes: bool,
) -> Result<(), String>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .y_desc(y_label)
        .x_desc(x_label)
        .label_style(font(12))
        .axis_desc_style(font(13))
        .y_label_formatter(&|v| tick(*v))
        .x_label_formatter(&|v| if bytes && *v >= 1.0 { bytes_label(*v) } else { tick(*v) })
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(fail)?;
    for line in series {
        let style = style_of(line, runs);
        chart.draw_series(LineSeries::new(line.points.iter().copied(), style)).map_err(fail)?;
        markers(chart.plotting_area(), line.points.iter().copied(), marker_of(line, runs), style)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels_are_the_familys_own() {
        // GEMM's n counts rows; a family this version does not know (a results file from
        // another) gets the bare name.
        let families = FamilyFacts::of_names(["gemm"]);
        assert_eq!(axis_label(&families, "gemm", "n"), "n (rows)");
        assert_eq!(axis_label(&families, "no such family", "n"), "n");
    }

    #[test]
    fn byte_labels_are_readable() {
        assert_eq!(bytes_label(65536.0), "64 KiB");
        assert_eq!(bytes_label(100000.0), "97.7 KiB");
        assert_eq!(bytes_label(1e9), "954 MiB");
        assert_eq!(bytes_label(1e10), "9.31 GiB");
        assert_eq!(bytes_label(100.0), "100 B");
    }
}
