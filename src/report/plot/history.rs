//! A device's history as a chart: x its runs in date order, y each changed case's rate against
//! its level before its first change (percent), a line per case; a dot where a change starts
//! (filled: confirmed), a dashed vertical line where the driver changed. A device without a
//! change shows the cases that drifted most, against the median of their first third of runs.

use plotters::prelude::*;

use super::style::{colour, Hovers};
use super::{fail, font, WIDTH};
use crate::analysis::history::Device;
use crate::format::printable;

/// The most cases drawn (the largest changes): more lines would not read apart.
pub const MOST_LINES: usize = 7;
const HEIGHT: u32 = 420;

/// The chart of `device`'s changed cases (else its drifts), or `None` where it has neither.
pub fn svg(device: &Device) -> Option<Result<String, String>> {
    (!device.series.is_empty()).then(|| render(device))
}

/// Each drawn case with its points in percent against its level before its first change; of a
/// device without a change, each drift against the median of its first third of runs.
fn lines(device: &Device) -> Vec<(&str, Vec<(f64, f64)>)> {
    let mut drawn: Vec<&str> = Vec::new();
    let cases: Vec<&str> = match device.changes.is_empty() {
        true => device.drifts.iter().map(|d| d.case.as_str()).collect(),
        false => device.changes.iter().map(|c| c.case.as_str()).collect(),
    };
    for case in cases {
        if !drawn.contains(&case) && drawn.len() < MOST_LINES {
            drawn.push(case);
        }
    }
    drawn
        .into_iter()
        .filter_map(|case| {
            let series = device.series.iter().find(|s| s.case == case)?;
            let before: Vec<f64> = match device.changes.iter().filter(|c| c.case == case).map(|c| c.run).min()
            {
                Some(first) => series.points.iter().filter(|(i, _)| *i < first).map(|(_, r)| *r).collect(),
                None => {
                    let third = (series.points.len() / 3).max(1);
                    let median = crate::record::stats::median(series.points[..third].iter().map(|(_, r)| *r));
                    median.into_iter().collect()
                }
            };
            let level = before.iter().sum::<f64>() / before.len().max(1) as f64;
            (level > 0.0).then(|| {
                let points =
                    series.points.iter().map(|(i, r)| (*i as f64, (r / level - 1.0) * 100.0)).collect();
                (case, points)
            })
        })
        .collect()
}

fn render(device: &Device) -> Result<String, String> {
    let lines = lines(device);
    let mut svg = String::new();
    let mut hovers = Hovers::default();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let ys = lines.iter().flat_map(|(_, p)| p.iter().map(|(_, y)| *y));
        let (low, high) = ys.fold((0.0f64, 0.0f64), |(l, h), y| (l.min(y), h.max(y)));
        let pad = ((high - low) * 0.15).max(0.5);
        // Room above the data for the legend.
        let (bottom, top) = (low - pad, high + 3.0 * pad);
        let runs = device.dates.len().max(2) as f64;
        let title = match device.changes.is_empty() {
            true => format!("perftest history: {}: no change; the cases that drifted most", device.name()),
            false => format!("perftest history: {}", device.name()),
        };
        let mut chart = ChartBuilder::on(&root)
            .caption(printable(&title), font(16))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5..runs - 0.5, bottom..top)
            .map_err(fail)?;
        chart
            .configure_mesh()
            .x_desc("run, in date order")
            .y_desc(match device.changes.is_empty() {
                true => "% against the median of its first third of runs",
                false => "% against the level before its first change",
            })
            .x_label_formatter(&|x| format!("{}", x.round() as i64 + 1))
            .y_label_formatter(&|y| format!("{y:+.1}%"))
            .label_style(font(11))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(fail)?;
        for d in &device.drivers {
            let x = d.run as f64 - 0.5;
            let dashes = (0..40).map(|k| {
                let y0 = bottom + (top - bottom) * f64::from(k) / 40.0;
                PathElement::new(vec![(x, y0), (x, y0 + (top - bottom) / 80.0)], BLACK.mix(0.6))
            });
            chart.draw_series(dashes).map_err(fail)?;
            let label = format!("driver {}", d.to);
            chart
                .draw_series([Text::new(printable(&label).into_owned(), (x, top), font(11))])
                .map_err(fail)?;
        }
        for (n, (case, points)) in lines.iter().enumerate() {
            let style = colour(n);
            chart
                .draw_series(LineSeries::new(points.iter().copied(), style.stroke_width(2)))
                .map_err(fail)?
                .label(printable(case).into_owned())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style.stroke_width(2)));
            for c in device.changes.iter().filter(|c| c.case == *case) {
                let Some(&(x, y)) = points.iter().find(|(x, _)| *x as usize == c.run) else { continue };
                let dot = match c.confirmed {
                    true => Circle::new((x, y), 5, style.filled()),
                    false => Circle::new((x, y), 5, style.stroke_width(2)),
                };
                chart.draw_series([dot]).map_err(fail)?;
                let (px, py) = chart.backend_coord(&(x, y));
                let state = if c.confirmed { "confirmed" } else { "to confirm" };
                let hover = format!(
                    "{case}: {:+.1}% from run {} ({}), p {:.1e}, {state}",
                    c.change * 100.0,
                    c.run + 1,
                    device.dates[c.run],
                    c.p
                );
                hovers.push((px - 6, py - 6), (px + 6, py + 6), hover);
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(font(11))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .draw()
            .map_err(fail)?;
        root.present().map_err(fail)?;
    }
    Ok(hovers.over(&svg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::history::{Change, DriverChange, Series};

    #[test]
    fn draws_a_line_per_changed_case_a_dot_per_change_and_the_driver_update() {
        let points: Vec<(usize, f64)> = (0..8).map(|i| (i, if i < 4 { 100.0 } else { 98.0 })).collect();
        let device = Device {
            model: "NVIDIA H100".into(),
            uuid: Some("53e8".into()),
            settings: String::new(),
            dates: (1..=8).map(|d| format!("2026-11-0{d}T00:00:00Z")).collect(),
            hosts: Vec::new(),
            drivers: vec![DriverChange { run: 4, from: "NVIDIA 580".into(), to: "NVIDIA 590".into() }],
            tested: 1,
            short: 0,
            drifts: Vec::new(),
            changes: vec![Change {
                case: "Load R32f".into(),
                unit: "loads/s".into(),
                run: 4,
                before: 100.0,
                after: 98.0,
                change: -0.02,
                p: 1e-6,
                runs_after: 4,
                confirmed: true,
                driver: Some("NVIDIA 590".into()),
            }],
            series: vec![Series { case: "Load R32f".into(), unit: "loads/s".into(), points }],
            wrong_bits: Vec::new(),
            clean_since: 0,
        };
        let chart = svg(&device).unwrap().unwrap();
        assert!(chart.contains("Load R32f"), "the legend names the case");
        assert!(chart.contains("driver NVIDIA 590"), "the driver update is marked");
        assert!(
            chart.contains("<title>Load R32f: -2.0% from run 5 (2026-11-05T00:00:00Z)"),
            "a hover per change"
        );
        // No change: the drifts are drawn, against their first third of runs.
        let mut quiet = device;
        quiet.changes.clear();
        quiet.drifts = vec![crate::analysis::history::Drift { case: "Load R32f".into(), change: -0.02 }];
        let chart = svg(&quiet).unwrap().unwrap();
        assert!(chart.contains("no change; the cases that drifted most"), "the title says what is drawn");
        assert!(chart.contains("Load R32f") && chart.contains("first third of runs"));
        quiet.series.clear();
        quiet.drifts.clear();
        assert!(svg(&quiet).is_none());
    }
}
