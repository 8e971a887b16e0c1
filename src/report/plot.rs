//! `perftest plot A.json [B.json ...] --output chart.svg`: one SVG with a panel per group of cases.
//!
//! A group swept over an axis (the branch cases over N) is a line chart: x is the axis (log
//! scale for bytes), one line per variant and run. Every other group is a bar chart: a row per
//! case, a bar per run. Each panel has its own scale and fits on a screen.

use crate::results::family::FamilyFacts;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

pub mod instructions;
mod lines;
pub mod units;

use self::lines::{lines, marker_name};
use super::text::rate_text;
use crate::analysis::matching::{match_runs, Matched};
use crate::error::{Error, Result};
use crate::format::{printable, ratio_text, si};
use crate::results::model::{Amount, Run};

use super::metric::value;
pub use super::metric::Metric;

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
    super::output::write_atomic(path, &svg)
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
    let families: Vec<FamilyFacts> = runs.iter().flat_map(|r| r.families.iter().cloned()).collect();
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
                lines(&area, panel, &axis, labels.len(), &families)?;
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

#[cfg(test)]
mod tests {
    use super::*;

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
        run.families = FamilyFacts::of_names(["branch"]);
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
        run.families = FamilyFacts::of_names(["conv"]);
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
