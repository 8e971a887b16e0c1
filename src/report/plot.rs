//! `perftest plot A.json [B.json ...] --output chart.svg`: one SVG with a panel per group of cases.
//!
//! A group swept over an axis (the branch cases over N) is a line chart: x is the axis (log
//! scale for bytes), one line per variant and run. Every other group is a bar chart: a row per
//! case, a bar per run; a family's groups of one case share one panel. Bars of one family and
//! unit share one scale, so that their lengths compare across panels; each bar panel has a value
//! axis, and each bar says its value under the pointer.

use crate::results::family::FamilyFacts;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub mod energy;
pub mod history;
pub mod instructions;
mod lines;
pub mod style;
pub mod units;

use self::lines::lines;
use self::style::{colour, Hovers};
use super::text::rate_text;
use crate::analysis::matching::{match_runs, Matched};
use crate::error::{Error, Result};
use crate::format::{printable, ratio_text, si};
use crate::results::model::Run;
use std::collections::HashMap;

use super::metric::value;
pub use super::metric::Metric;

const WIDTH: u32 = 1200;
/// The name column's width, at least: the bars take the rest of [`NAMES_AND_BARS`].
const NAME_WIDTH: i32 = 360;
/// The name column's width, at most (the bars keep 440 px).
const NAME_WIDTH_MOST: i32 = 560;
/// The names' and the bars' width together; the values beside the bars take the rest.
const NAMES_AND_BARS: i32 = 1000;
/// A row name's size, pixels.
const NAME_SIZE: u32 = 13;
/// The space before a row name and between it and its bars, pixels.
const NAME_PAD: i32 = 10;
const BAR: i32 = 13;
const TITLE: i32 = 34;
const HEADING: i32 = 30;
const ROW_GAP: i32 = 5;
/// Height of a line-chart panel (its heading included).
const LINE_PANEL: i32 = 420;
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
    /// The axis the group is swept over, if its cases carry one whose value changes within the
    /// group: of several (the convolution's size and mask), the first. A group at one point of
    /// its axes is drawn as bars, not as a line chart of one point.
    fn axis(&self) -> Option<String> {
        let axes = &self.rows.first()?.any().axes;
        let varies = |name: &String| self.rows.iter().any(|m| m.any().axes.get(name) != axes.get(name));
        axes.keys().find(|name| varies(name)).cloned()
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
    gather_lone_rows(panels)
}

/// `panels` with each family's bar panels of one case gathered into one panel, named for the
/// family, where the family has two or more: no panel of a single bar where it can be helped.
fn gather_lone_rows(panels: Vec<Panel<'_>>) -> Vec<Panel<'_>> {
    let lone = |p: &Panel| p.rows.len() == 1 && p.axis().is_none();
    let family = |p: &Panel| p.rows[0].any().family.clone();
    let mut count: HashMap<(String, Metric), usize> = HashMap::new();
    for panel in panels.iter().filter(|p| lone(p)) {
        *count.entry((family(panel), panel.metric)).or_default() += 1;
    }
    let mut out: Vec<Panel<'_>> = Vec::new();
    let mut gathered: HashMap<(String, Metric), usize> = HashMap::new();
    for panel in panels {
        let key = (family(&panel), panel.metric);
        if !lone(&panel) || count[&key] < 2 {
            out.push(panel);
            continue;
        }
        match gathered.get(&key) {
            Some(&at) => out[at].rows.extend(panel.rows),
            None => {
                gathered.insert(key.clone(), out.len());
                out.push(Panel { group: key.0, ..panel });
            }
        }
    }
    out
}

/// What a bar of `case` draws: its rate (a rate of one operation at a time as the time each
/// takes, `ns per op`, lower faster), or its ratio (unit `x`).
fn drawn(case: &crate::results::model::CaseResult, metric: Metric) -> Option<(f64, String)> {
    match (metric, &case.rate) {
        (Metric::Rate, Some(rate)) => match rate.latency() {
            Some((ns, each)) => Some((ns, format!("ns per {each}"))),
            None => Some((rate.value, rate.unit.to_string())),
        },
        (Metric::Rate, None) => None,
        (Metric::Ratio, _) => case.ratio.map(|r| (r, "x".to_owned())),
    }
    .filter(|(v, _)| v.is_finite())
}

/// Whether a bar in `unit` is a time (shorter is faster).
fn is_time(unit: &str) -> bool {
    unit.starts_with("ns per ")
}

/// The longest bar of each family and unit, over every bar panel: one scale per family and unit.
fn scales(panels: &[Panel<'_>]) -> HashMap<(String, String), f64> {
    let mut scales: HashMap<(String, String), f64> = HashMap::new();
    for panel in panels.iter().filter(|p| p.axis().is_none()) {
        for case in panel.rows.iter().flat_map(|m| m.found.iter().flatten()) {
            if let Some((v, unit)) = drawn(case, panel.metric) {
                let max = scales.entry((case.family.clone(), unit)).or_default();
                *max = max.max(v);
            }
        }
    }
    scales
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

/// The SVG backend writes a font's size divided by 1.24 (plotters' points to pixels).
const POINTS_PER_PIXEL: f64 = 1.24;

/// A sans-serif font of `size` pixels, as the SVG says it.
fn font(size: u32) -> FontDesc<'static> {
    ("sans-serif", f64::from(size) * POINTS_PER_PIXEL).into_font()
}

/// Draws a chart's `title` and a legend line per entry of `legend` (run `i`, in its colour where
/// there are several), and returns where the legend ends.
fn head(root: &DrawingArea<SVGBackend<'_>, Shift>, title: &str, legend: &[String]) -> Result<i32, String> {
    root.draw(&Text::new(title, (10, 8), font(18))).map_err(fail)?;
    let mut y = TITLE;
    for (i, line) in legend.iter().enumerate() {
        if legend.len() > 1 {
            root.draw(&Rectangle::new([(10, y + 3), (24, y + 13)], colour(i).filled())).map_err(fail)?;
        }
        root.draw(&Text::new(printable(line).into_owned(), (30, y + 1), font(13))).map_err(fail)?;
        y += 18;
    }
    Ok(y)
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
    let times =
        runs.iter().flat_map(|r| &r.cases).any(|c| drawn(c, metric).is_some_and(|(_, u)| is_time(&u)));
    let title = match (metric, times) {
        (Metric::Rate, false) => "perftest: rate per case (higher is faster; one scale per family and unit)",
        (Metric::Rate, true) => {
            "perftest: rate per case, higher is faster, or time per dependent operation, shorter is faster \
             (one scale per family and unit)"
        }
        (Metric::Ratio, _) => {
            "perftest: ratio to each case's baseline, rates where a group has none (higher is faster)"
        }
    };
    let legend: Vec<String> = labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let device =
                runs.get(i).map_or(String::new(), |r| format!("{}{}", r.device.name, r.ending.mark()));
            format!("run {}: {label}: {device}", i + 1)
        })
        .collect();
    let mut y = head(&root, title, &legend)?;
    let scales = scales(&panels);
    let names = name_column(&panels);
    let mut hovers = Hovers::default();
    for panel in &panels {
        y += 8;
        let h = panel.height(runs.len());
        match panel.axis() {
            Some(axis) => {
                let area = root.clone().shrink((0, y), (WIDTH, h as u32));
                lines(&area, panel, &axis, labels.len(), &families)?;
            }
            None => bars(&root, panel, y, &scales, names, &mut hovers)?,
        }
        y += h;
    }
    root.present().map_err(fail)?;
    drop(root);
    Ok(hovers.over(&svg))
}

/// The name column of every bar panel of a chart and the names' size: as wide as its longest row
/// name needs, from [`NAME_WIDTH`] to [`NAME_WIDTH_MOST`], the names [`NAME_SIZE`] or as much
/// smaller as the longest needs, down to [`style::LEAST_LABEL`] (past that it is cut,
/// [`style::fitted`]). One width for the chart, so that bars of one scale compare across panels.
fn name_column(panels: &[Panel<'_>]) -> (i32, u32) {
    let rows = panels.iter().filter(|p| p.axis().is_none()).flat_map(|p| &p.rows);
    let longest = rows.map(|m| printable(m.name).into_owned()).max_by_key(|name| name.chars().count());
    let longest = longest.unwrap_or_default();
    let width = (style::label_px(&longest, NAME_SIZE).ceil() as i32 + 2 * NAME_PAD)
        .clamp(NAME_WIDTH, NAME_WIDTH_MOST);
    // One size for every name: the one the longest is drawn at in that width.
    (width, style::fitted(&longest, NAME_SIZE, width - 2 * NAME_PAD).1)
}

/// The bar panel of `panel` at height `y` of `root`: its heading with a value axis (0, half and
/// the whole of its scale, `scales` of its family and unit), then a row per case, a bar per run,
/// each bar's value beside it and under the pointer (`hovers`). A panel of times says that a
/// shorter bar is faster.
fn bars(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    panel: &Panel<'_>,
    mut y: i32,
    scales: &HashMap<(String, String), f64>,
    (name_width, name_size): (i32, u32),
    hovers: &mut Hovers,
) -> Result<(), String> {
    let bar_space = NAMES_AND_BARS - name_width;
    let scale = |case: &crate::results::model::CaseResult| {
        let unit = drawn(case, panel.metric).map(|(_, unit)| unit);
        unit.and_then(|unit| scales.get(&(case.family.clone(), unit)).copied()).unwrap_or(0.0)
    };
    let first = panel.rows.iter().flat_map(|m| m.found.iter().flatten()).find_map(|c| {
        let (_, unit) = drawn(c, panel.metric)?;
        Some((scale(c), unit))
    });
    let heading = match &first {
        Some((_, unit)) if is_time(unit) => format!("{} ({unit}; shorter is faster)", panel.group),
        _ => panel.group.clone(),
    };
    root.draw(&Text::new(printable(&heading).into_owned(), (10, y), font(16))).map_err(fail)?;
    let runs = panel.rows.first().map_or(0, |m| m.found.len());
    let bottom = y + HEADING - 8 + (BAR * runs as i32 + ROW_GAP) * panel.rows.len() as i32;
    if let Some((max, unit)) = first {
        for fraction in [0.0, 0.5, 1.0] {
            let x = name_width + (fraction * f64::from(bar_space)).round() as i32;
            let tick = match (unit.as_str(), fraction) {
                (_, 0.0) => "0".to_owned(),
                ("x", _) => ratio_text(max * fraction),
                (unit, _) => si(max * fraction, unit),
            };
            let grid = [(x, y + HEADING - 10), (x, bottom)];
            root.draw(&PathElement::new(grid, RGBColor(215, 215, 215).stroke_width(1))).map_err(fail)?;
            let anchor = match fraction {
                0.0 => Pos::new(HPos::Left, VPos::Top),
                0.5 => Pos::new(HPos::Center, VPos::Top),
                _ => Pos::new(HPos::Right, VPos::Top),
            };
            let style = font(11).color(&RGBColor(90, 90, 90)).pos(anchor);
            root.draw(&Text::new(tick, (x, y + 4), style)).map_err(fail)?;
        }
    }
    y += HEADING - 8;
    for m in &panel.rows {
        let (name, size) = style::fitted(&printable(m.name), name_size, name_width - 2 * NAME_PAD);
        let top = y + 1 + (NAME_SIZE - size) as i32 / 2;
        root.draw(&Text::new(name, (NAME_PAD, top), font(size))).map_err(fail)?;
        for (r, found) in m.found.iter().enumerate() {
            let top = y + BAR * r as i32;
            let v = found.and_then(|c| drawn(c, panel.metric));
            let max = found.map_or(0.0, scale);
            let length = match &v {
                Some((v, _)) if max > 0.0 => ((v / max) * f64::from(bar_space)).round() as i32,
                _ => 0,
            };
            let label = match (found, v) {
                (None, _) => "missing".to_owned(),
                (Some(c), Some((_, _))) if panel.metric == Metric::Rate => match &c.rate {
                    Some(rate) => rate.text(),
                    None => rate_text(c),
                },
                (Some(c), Some((v, _))) if c.baseline_flagged() => {
                    format!("{} (baseline flagged)", ratio_text(v))
                }
                (_, Some((v, _))) => ratio_text(v),
                (Some(c), None) => rate_text(c),
            };
            let rect = [(name_width, top), (name_width + length.max(1), top + BAR - 2)];
            root.draw(&Rectangle::new(rect, colour(r).filled())).map_err(fail)?;
            let label = printable(&label).into_owned();
            hovers.push(
                (name_width, top),
                (name_width + bar_space, top + BAR - 2),
                format!("{}, run {}: {label}", m.name, r + 1),
            );
            root.draw(&Text::new(label, (name_width + length + 6, top), font(11))).map_err(fail)?;
        }
        y += BAR * runs as i32 + ROW_GAP;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
