//! The compute units as a strip per case: each unit a dot at its id, its height its rate against
//! the median unit's (percent), with the line below which a unit counts as slow.

use plotters::prelude::*;

use super::{fail, font, WIDTH};
use crate::analysis::fleet::MAD_SCALE;
use crate::analysis::units::spread;
use crate::format::printable;
use crate::results::model::Run;

/// Height of one case's strip.
const STRIP: u32 = 190;

/// The strips of `run`'s cases with per-unit rates, or `None` where it has none.
pub fn svg(run: &Run) -> Option<Result<String, String>> {
    let cases: Vec<_> = run.cases.iter().filter(|c| !c.units.is_empty()).collect();
    (!cases.is_empty()).then(|| render(run, &cases))
}

fn render(run: &Run, cases: &[&crate::results::model::CaseResult]) -> Result<String, String> {
    let name = run.device.compute_unit.as_deref().unwrap_or("unit");
    let mut svg = String::new();
    let height = 40 + STRIP * cases.len() as u32;
    let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE).map_err(fail)?;
    let title =
        format!("perftest: each {name}'s own rate against the median {name}'s (percent), one dot per {name}");
    root.draw(&Text::new(printable(&title).into_owned(), (10, 8), font(16))).map_err(fail)?;
    let areas = root.margin(36, 0, 0, 0).split_evenly((cases.len(), 1));
    for (case, area) in cases.iter().zip(areas) {
        let Some(s) = spread(case, run.device.compute_units) else { continue };
        let changes: Vec<(u32, f64)> =
            case.units.iter().map(|u| (u.unit, (u.per_clock / s.median - 1.0) * 100.0)).collect();
        let line = s.slow_below * 100.0;
        let low = changes.iter().map(|c| c.1).fold(line, f64::min).min(-0.5) * 1.2;
        let high = changes.iter().map(|c| c.1).fold(0.5, f64::max) * 1.2;
        let last = changes.iter().map(|c| c.0).max().unwrap_or(0) + 1;
        let caption = format!(
            "{}: median {:.4} per clock, spread {:.2}% ({MAD_SCALE} x the MAD), {} slow",
            case.name,
            s.median,
            s.spread * 100.0,
            s.slow.len()
        );
        let mut chart = ChartBuilder::on(&area)
            .caption(printable(&caption), font(13))
            .margin(8)
            .x_label_area_size(24)
            .y_label_area_size(48)
            .build_cartesian_2d(0u32..last, low..high)
            .map_err(fail)?;
        chart
            .configure_mesh()
            .x_desc(format!("{name} id"))
            .y_desc("% against the median")
            .label_style(font(11))
            .draw()
            .map_err(fail)?;
        chart.draw_series(LineSeries::new([(0, line), (last, line)], RED.stroke_width(1))).map_err(fail)?;
        chart
            .draw_series(LineSeries::new([(0, 0.0), (last, 0.0)], BLACK.mix(0.3).stroke_width(1)))
            .map_err(fail)?;
        let dots = changes.iter().map(|&(unit, change)| {
            let color = if change < line { RED.filled() } else { BLUE.filled() };
            Circle::new((unit, change), 3, color)
        });
        chart.draw_series(dots).map_err(fail)?;
    }
    root.present().map_err(fail)?;
    drop(root);
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::units::tests::units_case;
    use crate::results::model::tests::sample_run;

    #[test]
    fn a_strip_per_case_with_a_dot_per_unit() {
        let mut run = sample_run();
        run.cases = vec![units_case(17, 0.05), units_case(17, 0.05)];
        let chart = svg(&run).unwrap().unwrap();
        assert_eq!(chart.matches("<circle").count(), 2 * 132, "a dot per unit per case");
        assert!(chart.contains("Units fp32 FMA: median"), "{}", &chart[..400]);
        run.cases.clear();
        assert!(svg(&run).is_none());
    }
}
