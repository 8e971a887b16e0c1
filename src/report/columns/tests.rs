//! The tests of `report::columns`.

use super::*;
use crate::results::model::Amount;

fn timed(family: &str, name: &str, original: bool) -> CaseResult {
    let mut case = CaseResult::of(
        name,
        &crate::record::outcome::Outcome::Skipped(String::new()),
        &Default::default(),
        None,
    );
    case.family = family.into();
    case.status = Status::Ok;
    case.reason = None;
    case.median_ms = Some(20.0);
    case.original_time = original;
    case.ratio = original.then_some(1.25);
    case.rates = vec![
        Amount { value: 1.92e12, unit: "loads/s".into() },
        Amount { value: 15.4e12, unit: "B/s".into() },
    ];
    case.clock_mhz = Some(1980.0);
    case.per_clock = vec![Amount { value: 7.349, unit: "loads/clk/SM".into() }];
    case.peak_percent = Some(45.9);
    case.peak = crate::results::model::Peak::parse("L1: 128.0 B/clk/SM");
    case
}

#[test]
fn a_line_leads_with_its_rate_then_the_original_columns_under_their_labels() {
    let short = timed("load", "Buffer<R8>.Load uniform", true);
    let long = timed("load", "ByteAddressBuffer.Load4 unaligned random", true);
    let names = [&short, &long].map(|c| (c.family.as_str(), c.name.as_str(), true));
    let families = FamilyFacts::of_names(["load"]);
    let layouts = Layouts::of(names, &families, Known::default());
    let (a, b) = (layouts.line(&short), layouts.line(&long));
    let time = format!("{:.3}", crate::record::outcome::TIME_FOR / 1.92e12 * 1e3);
    assert!(a.starts_with("Buffer<R8>.Load uniform   "), "{a}");
    let (rate, ms, ratio) = (a.find("1.92 Tloads/s"), a.find(&time), a.find("1.250x"));
    assert!(rate < ms && ms < ratio, "the rate first, then the original's time and ratio: {a}");
    assert_eq!(rate, b.find("1.92 Tloads/s"), "aligned:\n{a}\n{b}");
    assert!(a.contains("7.349 loads/clk/SM") && a.contains("45.9% L1"), "{a}");
    assert!(a.chars().count() <= WIDTH && b.chars().count() <= WIDTH, "\n{a}\n{b}");
    let heading = layouts.heading("load");
    let (title, labels) = heading.split_once('\n').unwrap();
    assert!(title.starts_with("load: buffer loads as sebbbi/perftest (ratio: the rate over"), "{title}");
    // Each label ends where its column's cells end.
    let end = |line: &str, word: &str| line.find(word).map(|at| at + word.len());
    assert_eq!(end(labels, "rate"), end(&a, "Tloads/s"), "\n{labels}\n{a}");
    assert_eq!(end(labels, "ms for 2^32"), end(&a, &time), "\n{labels}\n{a}");
    assert_eq!(end(labels, "ratio"), end(&a, "1.250x"), "\n{labels}\n{a}");
}

#[test]
fn an_instruction_costs_fp32_fmas_and_a_heading_comes_with_each_family() {
    let mut sin = timed(instructions::FAMILY, "Instr fp32 sin throughput", true);
    sin.ratio = Some(0.129);
    let load = timed("load", "Buffer<R8>.Load uniform", true);
    let families = FamilyFacts::of_names([instructions::FAMILY, "load"]);
    let names = [&sin, &load].map(|c| (c.family.as_str(), c.name.as_str(), true));
    let layouts = Layouts::of(names, &families, Known::default());
    let first = layouts.line_after(None, &load);
    assert!(first.starts_with("load: ") && first.lines().count() == 3, "{first}");
    assert_eq!(layouts.line_after(Some("load"), &load), layouts.line(&load));
    let next = layouts.line_after(Some("load"), &sin);
    assert!(next.starts_with("\ninstr: each shader operation's throughput and latency"), "{next}");
    assert!(next.lines().nth(1).unwrap().contains("(cost: fp32 FMAs"), "{next}");
    assert!(next.contains("   cost") && next.contains("7.752 FMAs") && !next.contains("0.129x"), "{next}");
}

#[test]
fn a_long_name_drops_the_last_columns_and_flags_that_do_not_fit_go_below() {
    let name = "GEMM bf16*bf16+f32 8192^3 workgroup tiles 128x256x64 (256 invocations)";
    let mut case = timed("gemm", name, false);
    case.flags = vec![crate::results::flag::Flag::Noisy, crate::results::flag::Flag::Unsettled];
    let line = Layouts::default().line(&case);
    let first = line.lines().next().unwrap();
    assert!(first.starts_with(&format!("{name}  ")) && first.contains("1.92 Tloads/s"), "{line}");
    assert!(first.contains("45.9% L1"), "the peak comes before the per-clock rate: {line}");
    assert!(!first.contains("loads/clk/SM"), "the rate per clock does not fit: {line}");
    assert!(line.lines().all(|l| l.chars().count() <= WIDTH), "{line}");
    assert!(line.contains("[noisy] [unsettled]"), "{line}");
}

#[test]
fn unknowns_say_unknown_and_skips_wrap() {
    let mut case = timed("load", "Buffer<R8>.Load uniform", true);
    (case.clock_mhz, case.per_clock, case.peak_percent) = (None, Vec::new(), None);
    let line = Layouts::default().line(&case);
    assert!(line.contains("per clk unknown") && line.contains("peak unknown"), "{line}");
    let reason = "the device lacks ".to_owned() + &"shaderFloat64 and more, ".repeat(8);
    let skipped = CaseResult::of(
        "ALU fp64 FMA",
        &crate::record::outcome::Outcome::Skipped(reason),
        &Default::default(),
        None,
    );
    let text = Layouts::default().line(&skipped);
    assert!(text.starts_with("ALU fp64 FMA  skipped (the device lacks") && text.ends_with('…'), "{text}");
    assert!(text.lines().count() == 1 && text.chars().count() <= WIDTH, "{text}");
}

#[test]
fn a_device_without_clocks_or_peaks_shows_neither_column() {
    let case = timed("load", "Buffer<R8>.Load uniform", true);
    let names = [(case.family.as_str(), case.name.as_str(), true)];
    let layouts = Layouts::of(names, &[], Known { clock: false, peaks: false });
    let line = layouts.line(&case);
    assert!(line.contains("1.92 Tloads/s") && line.contains("15.4 TB/s"), "{line}");
    assert!(!line.contains("loads/clk") && !line.contains("L1"), "{line}");
}

#[test]
fn every_line_of_the_kept_runs_fits_and_keeps_the_original_columns() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/report");
    for file in ["h100/parta.json", "h100/partb.json", "h200/parta.json", "lavapipe/run.json"] {
        let run = crate::results::load(&root.join(file)).unwrap();
        let text = crate::report::text::document(&run, false);
        let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > WIDTH).collect();
        assert!(long.is_empty(), "{file}: {long:#?}");
        let original = run.cases.iter().find(|c| c.original_time && c.ratio.is_some()).unwrap();
        let lead = text::original_lead(original).unwrap();
        let (ms, ratio) = lead.split_once(' ').unwrap();
        let ms = ms.trim_end_matches("ms");
        let line = text.lines().find(|l| l.starts_with(&format!("{} ", original.name))).unwrap();
        assert!(
            line.contains(&format!("  {ms}  ")) && line.contains(&format!("  {ratio}")),
            "{file}: {line}"
        );
    }
}

#[test]
fn a_family_without_a_peak_has_no_peak_column() {
    let mut case = timed("latency", "Latency pointer 16 KiB", false);
    case.peak_percent = None;
    let families = FamilyFacts::of_names(["latency", "load"]);
    let layouts = Layouts::of([("latency", case.name.as_str(), false)], &families, Known::default());
    assert!(!layouts.line(&case).contains("peak unknown"), "{}", layouts.line(&case));
    let loads = Layouts::of([("load", case.name.as_str(), false)], &families, Known::default());
    assert!(loads.line(&case).contains("peak unknown"));
}

#[test]
fn fit_wraps_a_header_line_under_its_value() {
    let line = format!("peaks:      {}", "fp32 FMA 256.0 FLOP/clk/SM, ".repeat(8));
    let text = fit(&line);
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("peaks:      fp32"));
    let hangs = |l: &str| l.starts_with(&" ".repeat(12)) && !l.starts_with(&" ".repeat(13));
    assert!(lines.all(|l| hangs(l) && l.chars().count() <= WIDTH), "{text}");
    assert_eq!(fit("short\nlines"), "short\nlines");
    // A numbered item continues under its text, not under a word and colon in it (no label).
    let item = format!("  2. RGBA8: {}", "a bilinear sample runs at 0.324x of a texel load; ".repeat(4));
    let text = fit(&item);
    let five = |l: &str| l.starts_with(&" ".repeat(5)) && !l.starts_with(&" ".repeat(6));
    assert!(text.lines().count() > 1 && text.lines().skip(1).all(five), "{text}");
    let twelfth = fit(&format!("  12. {}", "a finding ".repeat(20)));
    let six = |l: &str| l.starts_with(&" ".repeat(6)) && !l.starts_with(&" ".repeat(7));
    assert!(twelfth.lines().count() > 1 && twelfth.lines().skip(1).all(six), "{twelfth}");
    // Never between a number and its unit.
    for pad in 0..12 {
        let sizes = fit(&format!("  6. {} {}", "w".repeat(pad), "reuse 1 MiB, ".repeat(12)));
        assert!(sizes.lines().all(|l| !l.ends_with(" 1") && !l.trim_start().starts_with("MiB")), "{sizes}");
    }
    // Never broken at a hyphen.
    let hyphens = format!("note: {}", "a 16-bit value from libnvidia-ml.so.1 ".repeat(6));
    assert!(fit(&hyphens).lines().all(|l| !l.ends_with('-')), "{}", fit(&hyphens));
}

#[test]
fn show_of_an_interrupted_run_prints_the_columns_the_live_run_printed() {
    // The run stopped after the short name; the long one was selected but never ran.
    let short = timed("load", "Buffer<R8>.Load uniform", true);
    let long = timed("load", "ByteAddressBuffer.Load4 unaligned random", true);
    let selected = [&short, &long].map(|c| (c.family.as_str(), c.name.as_str(), true));
    let mut run = crate::results::model::tests::sample_run();
    run.device.clock = Some(crate::results::model::CLOCK_MEASURED.into());
    let live = Layouts::of(selected, &[], Known::of(&run.device)).line(&short);
    assert!(live.contains("7.349 loads/clk/SM") && live.contains("45.9% L1"), "{live}");
    let not_run =
        crate::results::model::NotRun { family: "load".into(), name: long.name.clone(), original_time: true };
    (run.interrupted, run.not_run, run.cases) = (true, vec![not_run], vec![short.clone()]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.json");
    std::fs::write(&path, crate::report::write::to_json(&run).unwrap()).unwrap();
    let saved = crate::results::load(&path).unwrap();
    let shown = Layouts::of_run(&saved).line(&short);
    assert_eq!(shown, live);
    // Without the cases not reached, the finished cases alone would decide, and the columns move.
    let finished =
        Layouts::of([("load", short.name.as_str(), true)], &[], Known::of(&run.device)).line(&short);
    assert_ne!(shown.find("1.92 Tloads/s"), finished.find("1.92 Tloads/s"), "\n{shown}\n{finished}");
}
