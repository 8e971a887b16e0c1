//! The tests of `report::plot`.

use super::*;

use crate::results::model::tests::sample_run;
use crate::results::model::{Amount, CaseResult};

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
    assert!(svg.contains("a.json: NVIDIA H100 80GB HBM3") && svg.contains("b.json: llvmpipe"), "the legend");
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

/// The stroke colours of the drawn data lines, in order.
fn line_colours(svg: &str) -> Vec<&str> {
    let lines =
        svg.split("<polyline").skip(1).filter(|p| p.contains("points=\"") && p.split(',').count() > 8);
    lines.map(|p| p.split("stroke=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or("")).collect()
}

#[test]
fn two_runs_draw_a_line_per_variant_and_run_in_the_runs_colours() {
    let text = svg(&["a", "b"], &[swept_run(), swept_run()], Metric::Rate);
    assert_eq!(data_lines(&text), 6, "{text}");
    assert!(text.contains("Divergent branch long (run 2)"));
    // The legend at the top gives run 1 the first colour and run 2 the second: so do the lines
    // (variant by variant, run 1 then run 2), whatever their variant.
    let (first, second) = (colour(0), colour(1));
    let hex = |c: RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
    let expected: Vec<String> = (0..6).map(|i| hex(if i % 2 == 0 { first } else { second })).collect();
    assert_eq!(line_colours(&text), expected, "{text}");
    assert!(!text.contains("(lines:"), "the legend says nothing of line widths");
    // One run: its variants apart by colour, and no colour swatch in the legend for the run.
    let one = svg(&["a"], &[swept_run()], Metric::Rate);
    assert_eq!(line_colours(&one), [hex(colour(0)), hex(colour(1)), hex(colour(2))]);
}

#[test]
fn value_ticks_have_no_trailing_zeros_and_the_axis_ends_near_the_data() {
    let text = svg(&["a"], &[swept_run()], Metric::Ratio);
    let ticks: Vec<&str> = text
        .split("</text>")
        .filter_map(|t| t.rsplit('>').next())
        .map(str::trim)
        .filter(|t| t.parse::<f64>().is_ok())
        .collect();
    let decimal_zero = |t: &&str| t.contains('.') && t.ends_with('0');
    assert!(!ticks.is_empty() && !ticks.iter().any(decimal_zero), "{ticks:?}");
    // The ratios reach 1.7: the y axis ends at 1.7 x 1.08, no empty gridlines above.
    assert!(ticks.contains(&"1.6") && ticks.contains(&"1.8") && !ticks.contains(&"2"), "{ticks:?}");
}

#[test]
fn chart_text_is_at_least_eleven_pixels() {
    let text = svg(&["a", "b"], &[swept_run(), sample_run()], Metric::Rate);
    let sizes: Vec<f64> = text
        .split("font-size=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().parse().unwrap())
        .collect();
    assert!(!sizes.is_empty() && sizes.iter().all(|&px| px >= 10.99), "{sizes:?}");
}

#[test]
fn latency_bars_are_times_on_an_axis_of_times_and_say_shorter_is_faster() {
    let mut run = sample_run();
    run.cases.truncate(1);
    let case = &mut run.cases[0];
    case.group = "instr latency".into();
    case.rate = Some(Amount { value: 5e8, unit: "dependent ops/s".into() });
    let text = svg(&["a"], &[run], Metric::Rate);
    assert!(text.contains("\ninstr latency (ns per op; shorter is faster)\n</text>"), "{text}");
    assert!(text.contains("\n2.000 ns per op\n</text>"), "the bar's label");
    assert!(text.contains("\n1.00 ns per op\n</text>") && text.contains("\n2.00 ns per op\n</text>"));
    assert!(!text.contains("ops/s"), "no rate axis under a time");
    assert!(text.contains("time per dependent operation, shorter is faster"), "the title says so");
}

#[test]
fn a_third_run_has_visible_square_markers_and_counts_are_not_bytes() {
    let mut wide = swept_run();
    wide.cases.iter_mut().for_each(|c| *c.axes.get_mut("n").unwrap() *= 512);
    let text = svg(&["a", "b", "c"], &[wide.clone(), wide.clone(), wide], Metric::Rate);
    assert_eq!(data_lines(&text), 9);
    assert!(text.contains("width=\"6\" height=\"6\""), "squares of 6 px for the third variant");
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

#[test]
fn a_long_name_widens_the_name_column_for_every_panel_and_is_drawn_whole() {
    let short = svg(&["a"], &[sample_run()], Metric::Rate);
    assert!(short.contains("<rect x=\"360\""), "names that fit keep the 360 px column");
    let mut run = sample_run();
    let long = "GEMM f16*f16+f32 8192^3 workgroup tiles 128x256x64 (256 invocations) on random data";
    run.cases[0].name = long.into();
    let text = svg(&["a"], &[run], Metric::Rate);
    assert!(text.contains(&format!("\n{long}\n</text>")), "drawn whole, not cut");
    // 85 characters: at 13 px wider than the widest column, so drawn smaller, never under 11 px.
    let size = text.split(long).next().unwrap().rsplit("font-size=\"").next().unwrap();
    let size: f64 = size.split('"').next().unwrap().parse().unwrap();
    assert!((11.0..13.0).contains(&size), "{size}");
    // Every name in the chart at that one size.
    let size_of = |name: &str| -> f64 {
        let before = text.split(&format!("\n{name}\n</text>")).next().unwrap();
        before.rsplit("font-size=\"").next().unwrap().split('"').next().unwrap().parse().unwrap()
    };
    let names: Vec<String> = sample_run().cases.iter().skip(1).map(|c| c.name.clone()).collect();
    assert!(!names.is_empty() && names.iter().all(|n| size_of(n) == size), "{names:?}");
    // Every bar panel starts its bars at the one wider column.
    let starts: Vec<&str> = text
        .split("<rect x=\"")
        .skip(2)
        .map(|r| r.split('"').next().unwrap())
        .filter(|x| *x != "0")
        .collect();
    assert!(!starts.is_empty() && starts.iter().all(|x| *x == "560"), "{starts:?}");
}
