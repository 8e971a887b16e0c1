//! `perftest plot A.json [B.json ...] --output chart.svg`: one SVG with a panel per group of cases.
//!
//! A group swept over an axis (the branch cases over N) is a line chart: x is the axis (log
//! scale for bytes), one line per variant and run. Every other group is a bar chart: a row per
//! case, a bar per run. Each panel has its own scale and fits on a screen.

use std::path::Path;

use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::write::rate_text;
use crate::analysis::levels::LATENCY;
use crate::analysis::matching::{match_runs, Matched};
use crate::error::{Error, Result};
use crate::format::{printable, ratio_text, si};
use crate::registry::{self, AxisUnit, Unit};
use crate::results::model::{Amount, CaseResult, Run};

/// What the charts show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Metric {
    /// Each case's headline rate (loads/s, FLOPS, ...).
    Rate,
    /// Each case's ratio to its baseline.
    Ratio,
}

const WIDTH: u32 = 1200;
const NAME_WIDTH: i32 = 360;
const BAR_SPACE: i32 = 640;
const BAR: i32 = 11;
const TITLE: i32 = 34;
const HEADING: i32 = 30;
const ROW_GAP: i32 = 5;
/// Height of a line-chart panel (its heading included).
const LINE_PANEL: i32 = 420;
/// The most legend rows a line panel leaves room for above its data.
const LEGEND_ROWS: usize = 12;
/// The most octaves a log-scale value axis spans.
const LOG_OCTAVES: i32 = 40;

/// One group's cases, in matched order.
struct Panel<'a> {
    group: String,
    rows: Vec<Matched<'a>>,
    /// The metric the panel shows (ratio mode falls back to rates where a group has no ratios).
    metric: Metric,
}

impl Panel<'_> {
    /// The axis the group is swept over, if its cases carry one: of several (the convolution's
    /// size and mask), the first whose value changes within the group.
    fn axis(&self) -> Option<String> {
        let axes = &self.rows.first()?.any().axes;
        let varies = |name: &String| self.rows.iter().any(|m| m.any().axes.get(name) != axes.get(name));
        axes.keys().find(|name| varies(name)).or_else(|| axes.keys().next()).cloned()
    }

    fn height(&self, runs: usize) -> i32 {
        match self.axis() {
            Some(_) => LINE_PANEL,
            None => HEADING + (BAR * runs as i32 + ROW_GAP) * self.rows.len() as i32 + 10,
        }
    }
}

fn value(case: &CaseResult, metric: Metric) -> Option<f64> {
    match metric {
        Metric::Rate => case.rate.as_ref().map(|a| a.value),
        Metric::Ratio => case.ratio,
    }
}

/// The panels, a group each, in order of first appearance.
fn panels(runs: &[Run], metric: Metric) -> Vec<Panel<'_>> {
    let mut panels: Vec<Panel<'_>> = Vec::new();
    let mut by_group: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for m in match_runs(runs) {
        let group = m.any().group.clone();
        match by_group.get(&group) {
            Some(&at) => panels[at].rows.push(m),
            None => {
                by_group.insert(group.clone(), panels.len());
                panels.push(Panel { group, rows: vec![m], metric });
            }
        }
    }
    for panel in &mut panels {
        let has_ratio = panel.rows.iter().any(|m| m.found.iter().flatten().any(|c| c.ratio.is_some()));
        if metric == Metric::Ratio && !has_ratio {
            panel.metric = Metric::Rate;
        }
    }
    panels
}

/// Draws the runs into an SVG written (atomically) to `path`.
pub fn plot(labels: &[String], runs: &[Run], metric: Metric, path: &Path) -> Result<()> {
    let svg = render(labels, runs, metric)
        .map_err(|detail| Error::Output { path: path.display().to_string(), detail })?;
    super::write::write_atomic(path, &svg)
}

fn fail(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn font(size: u32) -> FontDesc<'static> {
    ("sans-serif", size).into_font()
}

/// The SVG text of `perftest plot` of `runs` (labelled by `labels`): for the report's charts.
pub fn svg(labels: &[String], runs: &[Run], metric: Metric) -> Result<String, String> {
    render(labels, runs, metric)
}

/// The SVG text of [`plot`].
fn render(labels: &[String], runs: &[Run], metric: Metric) -> Result<String, String> {
    let summary = super::spread::summarize(runs, metric);
    let (labels, runs) = match &summary {
        Some((labels, runs)) => (labels.as_slice(), runs.as_slice()),
        None => (labels, runs),
    };
    let panels = panels(runs, metric);
    let legend = 18 * runs.len() as i32;
    let height = TITLE + legend + panels.iter().map(|p| p.height(runs.len()) + 8).sum::<i32>() + 10;
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (WIDTH, height.max(100) as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(fail)?;
    let title = match metric {
        Metric::Rate => "perftest: rate per case (higher is faster; each panel on its own scale)",
        Metric::Ratio => {
            "perftest: ratio to each case's baseline, rates where a group has none (higher is faster)"
        }
    };
    root.draw(&Text::new(title, (10, 8), font(18))).map_err(fail)?;
    let mut y = TITLE;
    for (i, label) in labels.iter().enumerate() {
        let device = runs.get(i).map_or(String::new(), |r| format!("{}{}", r.device.name, r.ending.mark()));
        let color = Palette99::pick(i).to_rgba();
        root.draw(&Rectangle::new([(10, y + 3), (24, y + 13)], color.filled())).map_err(fail)?;
        let marker = if runs.len() > 1 { format!(" (lines: {})", marker_name(i)) } else { String::new() };
        let legend = printable(&format!("run {}: {label}: {device}{marker}", i + 1)).into_owned();
        root.draw(&Text::new(legend, (30, y + 2), font(13))).map_err(fail)?;
        y += 18;
    }
    for panel in &panels {
        y += 8;
        let h = panel.height(runs.len());
        match panel.axis() {
            Some(axis) => {
                let area = root.clone().shrink((0, y), (WIDTH, h as u32));
                lines(&area, panel, &axis, labels.len())?;
            }
            None => bars(&root, panel, y)?,
        }
        y += h;
    }
    root.present().map_err(fail)?;
    drop(root);
    Ok(svg)
}

/// The bar panel of `panel` at height `y` of `root`.
fn bars(root: &DrawingArea<SVGBackend<'_>, Shift>, panel: &Panel<'_>, mut y: i32) -> Result<(), String> {
    root.draw(&Text::new(printable(&panel.group).into_owned(), (10, y), font(16))).map_err(fail)?;
    y += HEADING - 8;
    let max = panel
        .rows
        .iter()
        .flat_map(|m| m.found.iter().flatten().filter_map(|c| value(c, panel.metric)))
        .fold(0.0, f64::max);
    let runs = panel.rows.first().map_or(0, |m| m.found.len());
    for m in &panel.rows {
        root.draw(&Text::new(printable(m.name).into_owned(), (10, y + 1), font(12))).map_err(fail)?;
        for (r, found) in m.found.iter().enumerate() {
            let top = y + BAR * r as i32;
            let v = found.and_then(|c| value(c, panel.metric));
            let length = match v {
                Some(v) if max > 0.0 => ((v / max) * f64::from(BAR_SPACE)).round() as i32,
                _ => 0,
            };
            let label = match (found, v) {
                (None, _) => "missing".to_owned(),
                (Some(c), Some(v)) if panel.metric == Metric::Rate => match &c.rate {
                    Some(rate) => Amount { value: v, unit: rate.unit.clone() }.text(),
                    None => si(v, ""),
                },
                (Some(c), Some(v)) if c.baseline_flagged() => format!("{} (baseline flagged)", ratio_text(v)),
                (_, Some(v)) => ratio_text(v),
                (Some(c), None) => rate_text(c),
            };
            let color = Palette99::pick(r).to_rgba();
            let rect = [(NAME_WIDTH, top), (NAME_WIDTH + length.max(1), top + BAR - 2)];
            root.draw(&Rectangle::new(rect, color.filled())).map_err(fail)?;
            let label = printable(&label).into_owned();
            root.draw(&Text::new(label, (NAME_WIDTH + length + 6, top), font(10))).map_err(fail)?;
        }
        y += BAR * runs as i32 + ROW_GAP;
    }
    Ok(())
}

/// How a run's lines look in the line panels.
fn marker_name(run: usize) -> &'static str {
    ["solid, circles", "light, triangles", "light, squares", "light, crosses"][run % 4]
}

/// One line: a variant in one run, as (axis value, metric value) points in axis order.
struct Line {
    label: String,
    variant: usize,
    run: usize,
    points: Vec<(f64, f64)>,
}

/// The line panel of `panel`, drawn into `area`: x = `axis`, one line per variant and run.
fn lines(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    panel: &Panel<'_>,
    axis: &str,
    runs: usize,
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
            let rate = rate.map(|a| match a.rate_unit() {
                Some(Unit::DependentLoad) => Amount { value: 1e9 / a.value, unit: LATENCY.into() },
                _ => a,
            });
            let v = match panel.metric {
                Metric::Rate => rate.as_ref().map(|a| a.value),
                Metric::Ratio => value(case, panel.metric),
            };
            let Some(v) = v else { continue };
            if unit.is_empty() {
                unit = rate.map(|a| a.unit).unwrap_or_default();
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
    let x_label = axis_label(family, axis);
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

/// The x label of `family`'s axis `axis`: its name and what it counts, as the registry declares
/// it (`n (iterations)` for the branch family, `n (rows)` for GEMM); just the name for a bytes
/// axis or one the registry does not know (a results file from another version).
fn axis_label(family: &str, axis: &str) -> String {
    let declared = registry::families().into_iter().find(|f| f.name == family);
    match declared.and_then(|f| f.axes.iter().find(|a| a.name == axis)).map(|a| a.unit) {
        Some(AxisUnit::Count(what)) => format!("{axis} ({what})"),
        _ => axis.to_owned(),
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
        // A colour per variant; later runs are lighter and thinner, and differ in marker.
        let base = Palette99::pick(line.variant).to_rgba();
        let (color, stroke_width) = if line.run == 0 { (base, 2) } else { (base.mix(0.45), 1) };
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
    fn byte_labels_are_readable() {
        assert_eq!(bytes_label(65536.0), "64 KiB");
        assert_eq!(bytes_label(100000.0), "97.7 KiB");
        assert_eq!(bytes_label(1e9), "954 MiB");
        assert_eq!(bytes_label(1e10), "9.31 GiB");
        assert_eq!(bytes_label(100.0), "100 B");
    }
    use crate::results::model::tests::sample_run;
    use crate::results::model::CaseResult;

    fn svg(labels: &[&str], runs: &[Run], metric: Metric) -> String {
        let labels: Vec<String> = labels.iter().map(|l| (*l).to_owned()).collect();
        render(&labels, runs, metric).unwrap()
    }

    #[test]
    fn writes_an_svg_with_a_panel_per_group_a_legend_and_labels() {
        let mut second = sample_run();
        second.device.name = "llvmpipe".into();
        second.cases.truncate(1);
        let runs = vec![sample_run(), second];
        let path = std::env::temp_dir().join(format!("perftest-plot-{}.svg", std::process::id()));
        plot(&["a.json".into(), "b.json".into()], &runs, Metric::Rate, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert!(svg.contains("\nload raw\n</text>"), "the group heading");
        assert!(svg.contains("5.63 Tloads/s"), "the rate label");
        assert!(
            svg.contains("a.json: NVIDIA H100 80GB HBM3") && svg.contains("b.json: llvmpipe"),
            "the legend"
        );
        assert!(svg.contains("\nmissing\n</text>"), "run 2 lacks a case");
    }

    #[test]
    fn ratio_bars_are_labelled_with_ratios_and_skips_with_reasons() {
        let text = svg(&["a"], &[sample_run()], Metric::Ratio);
        assert!(text.contains("\n2.985x\n</text>"), "{text}");
        assert!(text.contains("skipped (the device lacks shaderFloat64)"));
    }

    #[test]
    fn ratio_mode_falls_back_to_rates_for_groups_without_ratios() {
        let mut run = sample_run();
        run.cases.iter_mut().for_each(|c| c.ratio = None);
        let panels = panels(std::slice::from_ref(&run), Metric::Ratio);
        assert_eq!(panels[0].metric, Metric::Rate);
        assert!(svg(&["a"], &[run], Metric::Ratio).contains("5.63 Tloads/s"));
    }

    /// A run of a group swept over `n`: three variants at n = 0, 8, ..., 56.
    pub(super) fn swept_run() -> Run {
        let mut run = sample_run();
        let template = run.cases[0].clone();
        run.cases = (0..8u64)
            .flat_map(|k| {
                let template = template.clone();
                ["baseline", "long", "short"].into_iter().map(move |variant| {
                    let mut case = template.clone();
                    case.name = format!("{}X Divergent branch {variant}", k * 8);
                    case.variant = format!("Divergent branch {variant}");
                    case.group = "branch Divergent".into();
                    case.family = "branch".into();
                    case.axes = [("n".to_owned(), k * 8)].into_iter().collect();
                    case.ratio = Some(1.0 + k as f64 / 10.0);
                    case
                })
            })
            .collect();
        run
    }

    #[test]
    fn a_group_with_two_axes_is_drawn_along_the_one_that_changes() {
        // The convolution's groups hold one size each; the mask size M changes within them.
        let mut run = swept_run();
        for case in &mut run.cases {
            case.family = "conv".into();
            let n = case.axes.remove("n").unwrap();
            case.axes.insert("bytes".into(), 16 << 20);
            case.axes.insert("m".into(), 2 * n + 3);
        }
        let panels = panels(std::slice::from_ref(&run), Metric::Ratio);
        assert_eq!(panels[0].axis().as_deref(), Some("m"));
        let text = svg(&["a"], &[run], Metric::Ratio);
        assert_eq!(data_lines(&text), 3, "a line per variant, over M");
        assert!(text.contains("m (taps)"), "the axis is named");
    }

    /// The drawn data lines: polylines through all 8 points of the sweep.
    fn data_lines(svg: &str) -> usize {
        let points = |p: &str| {
            let list = p.split("points=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or("");
            list.split(' ').filter(|x| x.contains(',')).count()
        };
        svg.split("<polyline").skip(1).filter(|p| points(p) == 8).count()
    }

    #[test]
    fn a_swept_group_is_one_line_chart_with_a_line_per_variant() {
        let run = swept_run();
        let panels = panels(std::slice::from_ref(&run), Metric::Ratio);
        assert_eq!(panels.len(), 1);
        assert_eq!(panels[0].axis().as_deref(), Some("n"));
        let text = svg(&["a"], &[run], Metric::Ratio);
        assert_eq!(data_lines(&text), 3, "a line per variant");
        for variant in ["Divergent branch baseline", "Divergent branch long", "Divergent branch short"] {
            assert!(text.contains(variant), "the legend names {variant}");
        }
        assert!(text.contains("n (iterations)"), "the axis is named");
        // The label is the family's own: GEMM's n counts rows; a family this version does not
        // know (a results file from another) gets the bare name.
        assert_eq!(axis_label("gemm", "n"), "n (rows)");
        assert_eq!(axis_label("no such family", "n"), "n");
        // 24 cases as bars would need over 24 rows; as lines they take one panel.
        let height: i32 = text.split("height=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        assert!(height < 600, "{height} px");
    }

    #[test]
    fn two_runs_draw_a_line_per_variant_and_run() {
        let text = svg(&["a", "b"], &[swept_run(), swept_run()], Metric::Rate);
        assert_eq!(data_lines(&text), 6, "{text}");
        assert!(text.contains("Divergent branch long (run 2)"));
    }

    #[test]
    fn a_third_run_has_visible_square_markers_and_counts_are_not_bytes() {
        let mut wide = swept_run();
        wide.cases.iter_mut().for_each(|c| *c.axes.get_mut("n").unwrap() *= 512);
        let text = svg(&["a", "b", "c"], &[wide.clone(), wide.clone(), wide], Metric::Rate);
        assert_eq!(data_lines(&text), 9);
        assert!(text.contains("width=\"6\" height=\"6\""), "squares of 6 px for run 3");
        assert!(!text.contains("KiB"), "n up to 28672 is a count, not a size");
    }

    #[test]
    fn names_with_control_characters_still_make_well_formed_xml() {
        let mut run = sample_run();
        run.cases[0].name = "evil \u{1b}[31m \0 \u{FFFE}".into();
        run.cases[0].group = "group \u{7}".into();
        let text = svg(&["a\u{1b}"], &[run], Metric::Rate);
        let bad = |c: char| (c.is_control() && !matches!(c, '\n' | '\t' | '\r')) || c == '\u{FFFE}';
        assert!(!text.chars().any(bad), "no character XML 1.0 forbids");
        assert!(text.contains("evil \\u{1b}[31m"), "shown as an escape");
    }

    #[test]
    fn grouping_is_linear_in_the_number_of_cases() {
        let mut run = sample_run();
        let template = run.cases[0].clone();
        run.cases = (0..100_000)
            .map(|i| CaseResult {
                name: format!("case {i}"),
                group: format!("group {}", i % 5_000),
                ..template.clone()
            })
            .collect();
        let started = std::time::Instant::now();
        let panels = panels(std::slice::from_ref(&run), Metric::Rate);
        assert_eq!(panels.len(), 5_000);
        assert!(panels.iter().all(|p| p.rows.len() == 20));
        eprintln!("plot panels of 100,000 cases: {:?}", started.elapsed());
    }

    #[test]
    fn a_missing_folder_is_an_error_not_a_panic() {
        let runs = vec![sample_run()];
        let error =
            plot(&["a".into()], &runs, Metric::Rate, Path::new("/nonexistent-perftest/x.svg")).unwrap_err();
        assert!(error.to_string().starts_with("could not write /nonexistent-perftest/x.svg"), "{error}");
    }
}
