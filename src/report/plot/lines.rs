//! A line panel of `perftest plot`: a group swept over an axis, x the axis (log scale for
//! bytes and wide ranges), one line per variant and run, its legend in the upper right.

use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::{fail, font, value, Metric, Panel, LEGEND_ROWS, LOG_OCTAVES};
use crate::analysis::levels::LATENCY;
use crate::format::{printable, si};
use crate::registry::Unit;
use crate::results::family::FamilyFacts;
use crate::results::model::{Amount, CaseResult};

/// How a run's lines look in the line panels.
pub(super) fn marker_name(run: usize) -> &'static str {
    ["thick, circles", "thin, triangles", "thin, squares", "thin, crosses"][run % 4]
}

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
            let rate = rate.map(|a| match a.rate_unit().and_then(Unit::latency_of) {
                Some(_) => Amount { value: 1e9 / a.value, unit: LATENCY.into() },
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
    // A linear y axis leaves room above the data for the legend (upper right), a row per line
    // up to a dozen (more rows would squash the data; the legend then covers some of it).
    let rows = series.len().min(LEGEND_ROWS) as f64;
    let y_top = y_max * (1.1 + 0.07 * rows);
    let mut chart = ChartBuilder::on(area);
    chart.caption(printable(&caption), font(16)).margin(10).x_label_area_size(32).y_label_area_size(70);
    if log_y {
        // Half an octave per legend row above the data.
        // At most 40 octaves below the top: a tiny value is drawn at the bottom, not given an
        // axis of a thousand octaves (plotters' tick loop would not end).
        let y_low = (y_min / 1.3).max(y_max / 2f64.powi(LOG_OCTAVES));
        for point in series.iter_mut().flat_map(|line| line.points.iter_mut()) {
            point.1 = point.1.max(y_low);
        }
        let y_range = (y_low..y_max * 1.3 * 2f64.powf(0.5 * rows)).log_scale().base(2.0);
        let mut chart =
            chart.build_cartesian_2d((x_range.0..x_range.1).log_scale().base(2.0), y_range).map_err(fail)?;
        draw_series(&mut chart, &series, &y_label, &x_label, bytes)
    } else if log {
        let mut chart = chart
            .build_cartesian_2d((x_range.0..x_range.1).log_scale().base(2.0), 0.0..y_top)
            .map_err(fail)?;
        draw_series(&mut chart, &series, &y_label, &x_label, bytes)
    } else {
        let mut chart = chart.build_cartesian_2d(x_range.0..x_range.1, 0.0..y_top).map_err(fail)?;
        draw_series(&mut chart, &series, &y_label, &x_label, bytes)
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

fn draw_series<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    series: &[Line],
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
        .y_label_formatter(&|v| if *v >= 1e3 { si(*v, "") } else { format!("{v:.2}") })
        .x_label_formatter(&|v| if bytes && *v >= 1.0 { bytes_label(*v) } else { format!("{v}") })
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(fail)?;
    for line in series {
        // A colour per variant; later runs are dashed-looking by their markers, as strong.
        let color = super::style::colour(line.variant).to_rgba();
        let stroke_width = if line.run == 0 { 2 } else { 1 };
        let style = ShapeStyle { color, filled: true, stroke_width };
        chart
            .draw_series(LineSeries::new(line.points.iter().copied(), style))
            .map_err(fail)?
            .label(printable(&line.label).into_owned())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
        let points = line.points.iter().copied();
        match line.run % 4 {
            0 => chart.draw_series(points.map(|p| Circle::new(p, 3, style))).map(|_| ()),
            1 => chart.draw_series(points.map(|p| TriangleMarker::new(p, 4, style))).map(|_| ()),
            2 => chart
                .draw_series(points.map(|p| EmptyElement::at(p) + Rectangle::new([(-3, -3), (3, 3)], style)))
                .map(|_| ()),
            _ => chart.draw_series(points.map(|p| Cross::new(p, 3, style))).map(|_| ()),
        }
        .map_err(fail)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(font(12))
        .draw()
        .map_err(fail)
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
