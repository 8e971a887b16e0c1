//! `perftest plot A.json [B.json ...] --output chart.svg`: bar charts per family, one SVG with panels.

use std::path::Path;

use plotters::prelude::*;

use crate::error::{Error, Result};
use crate::results::Run;
use crate::runner::report::si;

/// What the bars show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Metric {
    /// Each case's headline rate (loads/s, FLOPS, ...).
    Rate,
    /// Each case's ratio to its family's baseline.
    Ratio,
}

const WIDTH: u32 = 1200;
const NAME_WIDTH: i32 = 360;
const BAR_SPACE: i32 = 640;
const BAR: i32 = 11;
const TITLE: i32 = 34;
const HEADING: i32 = 30;
const ROW_GAP: i32 = 5;

/// One bar: its length in value units and its label.
struct Bar {
    value: Option<f64>,
    label: String,
}

/// A family's panel: case names and, per case, a bar per run.
struct Panel {
    family: String,
    cases: Vec<(String, Vec<Bar>)>,
}

/// The panels for `metric`; in ratio mode a family without ratios (no baseline) shows its rates.
fn panels(runs: &[Run], metric: Metric) -> Vec<Panel> {
    let mut chosen = panels_of(runs, metric);
    if metric == Metric::Ratio {
        let rates = panels_of(runs, Metric::Rate);
        for (panel, rate_panel) in chosen.iter_mut().zip(rates) {
            if panel.cases.iter().all(|(_, bars)| bars.iter().all(|b| b.value.is_none())) {
                *panel = rate_panel;
            }
        }
    }
    chosen
}

fn panels_of(runs: &[Run], metric: Metric) -> Vec<Panel> {
    let mut panels: Vec<Panel> = Vec::new();
    for run in runs {
        for case in &run.cases {
            let index = match panels.iter().position(|p| p.family == case.family) {
                Some(i) => i,
                None => {
                    panels.push(Panel { family: case.family.clone(), cases: Vec::new() });
                    panels.len() - 1
                }
            };
            let panel = &mut panels[index];
            if panel.cases.iter().any(|(name, _)| *name == case.name) {
                continue;
            }
            let bars = runs
                .iter()
                .map(|r| {
                    let found = r.cases.iter().find(|c| c.name == case.name);
                    let value = found.and_then(|c| match metric {
                        Metric::Rate => c.rate.as_ref().map(|a| a.value),
                        Metric::Ratio => c.ratio,
                    });
                    let label = match (found, value, metric) {
                        (None, ..) => "missing".to_owned(),
                        (Some(c), Some(v), Metric::Rate) => si(v, c.rate.as_ref().map_or("", |a| &a.unit)),
                        (_, Some(v), Metric::Ratio) => format!("{v:.3}x"),
                        (Some(c), None, _) => crate::results::rate_text(c),
                    };
                    Bar { value, label }
                })
                .collect();
            panel.cases.push((case.name.clone(), bars));
        }
    }
    panels
}

/// Draws the runs into an SVG written (atomically) to `path`: a panel per family, a row per case,
/// a bar per run, each panel scaled to its own largest value.
pub fn plot(labels: &[String], runs: &[Run], metric: Metric, path: &Path) -> Result<()> {
    let svg = render(labels, runs, metric)
        .map_err(|detail| Error::Output { path: path.display().to_string(), detail })?;
    crate::results::write_atomic(path, &svg)
}

/// The SVG text of [`plot`].
fn render(labels: &[String], runs: &[Run], metric: Metric) -> Result<String, String> {
    let panels = panels(runs, metric);
    let row = BAR * runs.len() as i32 + ROW_GAP;
    let legend = 18 * runs.len() as i32;
    let height: i32 =
        TITLE + legend + panels.iter().map(|p| HEADING + row * p.cases.len() as i32 + 10).sum::<i32>() + 10;
    let fail = |e: &dyn std::fmt::Display| e.to_string();
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (WIDTH, height.max(100) as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let text = |size: u32| ("sans-serif", size).into_font();
    let title = match metric {
        Metric::Rate => "perftest: rate per case (longer is faster; each family on its own scale)",
        Metric::Ratio => {
            "perftest: ratio to the family's baseline, rates where a family has none (longer is faster)"
        }
    };
    root.draw(&Text::new(title, (10, 8), text(18))).map_err(|e| fail(&e))?;
    let mut y = TITLE;
    for (i, label) in labels.iter().enumerate() {
        let device = runs.get(i).map_or("", |r| r.device.name.as_str());
        let color = Palette99::pick(i).to_rgba();
        root.draw(&Rectangle::new([(10, y + 3), (24, y + 13)], color.filled())).map_err(|e| fail(&e))?;
        root.draw(&Text::new(format!("{label}: {device}"), (30, y + 2), text(13))).map_err(|e| fail(&e))?;
        y += 18;
    }
    for panel in &panels {
        y += 8;
        root.draw(&Text::new(panel.family.clone(), (10, y), text(16))).map_err(|e| fail(&e))?;
        y += HEADING - 8;
        let max =
            panel.cases.iter().flat_map(|(_, bars)| bars.iter().filter_map(|b| b.value)).fold(0.0, f64::max);
        for (name, bars) in &panel.cases {
            root.draw(&Text::new(name.clone(), (10, y + 1), text(12))).map_err(|e| fail(&e))?;
            for (r, bar) in bars.iter().enumerate() {
                let top = y + BAR * r as i32;
                let length = match bar.value {
                    Some(v) if max > 0.0 => ((v / max) * f64::from(BAR_SPACE)).round() as i32,
                    _ => 0,
                };
                let color = Palette99::pick(r).to_rgba();
                let rect = [(NAME_WIDTH, top), (NAME_WIDTH + length.max(1), top + BAR - 2)];
                root.draw(&Rectangle::new(rect, color.filled())).map_err(|e| fail(&e))?;
                let at = (NAME_WIDTH + length + 6, top);
                root.draw(&Text::new(bar.label.clone(), at, text(10))).map_err(|e| fail(&e))?;
            }
            y += row;
        }
        y += 10;
    }
    root.present().map_err(|e| fail(&e))?;
    drop(root);
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_an_svg_with_a_panel_per_family_a_legend_and_labels() {
        let mut second = crate::results::tests::sample_run();
        second.device.name = "llvmpipe".into();
        second.cases.truncate(1);
        let runs = vec![crate::results::tests::sample_run(), second];
        let path = std::env::temp_dir().join(format!("perftest-plot-{}.svg", std::process::id()));
        plot(&["a.json".into(), "b.json".into()], &runs, Metric::Rate, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert!(svg.contains("\nload raw\n</text>"), "the family heading");
        assert!(svg.contains("5.63 Tloads/s"), "the rate label");
        assert!(
            svg.contains("a.json: NVIDIA H100 80GB HBM3") && svg.contains("b.json: llvmpipe"),
            "the legend"
        );
        assert!(svg.contains("\nmissing\n</text>"), "run 2 lacks a case");
    }

    #[test]
    fn ratio_panels_label_bars_with_ratios() {
        let runs = vec![crate::results::tests::sample_run()];
        let panels = panels(&runs, Metric::Ratio);
        assert_eq!(panels.len(), 1);
        assert_eq!(panels[0].cases[0].1[0].label, "2.985x");
        assert_eq!(panels[0].cases[1].1[0].label, "skipped (the device lacks shaderFloat64)");
    }

    #[test]
    fn ratio_mode_falls_back_to_rates_for_families_without_ratios() {
        let mut run = crate::results::tests::sample_run();
        run.cases.iter_mut().for_each(|c| c.ratio = None);
        let panels = panels(&[run], Metric::Ratio);
        assert_eq!(panels[0].cases[0].1[0].value, Some(5.63e12));
        assert_eq!(panels[0].cases[0].1[0].label, "5.63 Tloads/s");
    }

    #[test]
    fn a_missing_folder_is_an_error_not_a_panic() {
        let runs = vec![crate::results::tests::sample_run()];
        let error =
            plot(&["a".into()], &runs, Metric::Rate, Path::new("/nonexistent-perftest/x.svg")).unwrap_err();
        assert!(error.to_string().starts_with("could not write /nonexistent-perftest/x.svg"), "{error}");
    }
}
