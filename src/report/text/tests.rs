//! Tests of the text lines: per-clock figures, levels, summaries.

use super::*;
use crate::analysis::trust::tests::{bytes_for, h100, timed as judged_timed};
use crate::analysis::trust::Judgement;
use crate::analysis::trust::Trust;
use crate::caps::Ceiling;
use crate::record::outcome::{Outcome, TIME_FOR};
use crate::registry::{Unit, Work};
use crate::results::measure::Measure;
use crate::results::model::CaseResult;

/// What the line of `outcome` says after its rates, judged by `trust`.
fn per_clock_of(outcome: &Outcome, trust: Trust) -> String {
    let record = crate::results::model::CaseResult::of("x", outcome, &trust, None);
    per_clock(&record)
}

#[test]
fn a_flagged_baseline_is_named_after_the_cases_with_its_ratios() {
    use crate::results::flag::Flag;
    let mut run = crate::results::model::tests::sample_run();
    let baseline = "Buffer<RGBA8>.Load random";
    let template = run.cases[0].clone();
    let ratio = |name: &str| crate::results::model::CaseResult {
        name: name.into(),
        ratio: Some(0.9),
        baseline: Some(baseline.into()),
        flags: vec![Flag::Baseline(vec!["throttled".into()])],
        ..template.clone()
    };
    let throttled = Flag::Throttled { mhz: 473.0, median_mhz: 1980.0 };
    let base = crate::results::model::CaseResult {
        name: baseline.into(),
        flags: vec![throttled],
        ..template.clone()
    };
    run.cases = vec![ratio("Buffer<R8>.Load random"), base, ratio("Buffer<RGBA8>.Load linear")];
    assert_eq!(
        crate::report::sections::baselines::baseline_lines(&run),
        ["baseline \"Buffer<RGBA8>.Load random\" flagged (throttled: ran at 473 MHz, run median 1980 MHz): 2 ratios \
         against it are doubtful"]
    );
}

#[test]
fn levels_read_as_one_line_per_variant() {
    use crate::results::levels::{Level, Levels};
    let level = |name: &str, rate: f64, from_bytes: u64, to_bytes: u64| Level {
        name: name.into(),
        rate,
        from_bytes,
        to_bytes,
    };
    let found = vec![
        level("L1", 32.0e12, 16 << 10, 192 << 10),
        level("L2", 9.1e12, 256 << 10, 32 << 20),
        level("DRAM", 3.13e12, 128 << 20, 2 << 30),
    ];
    let line = crate::report::sections::levels::level_lines(&[Levels {
        variant: "Sweep SSBO vec4 linear".into(),
        unit: "B/s".into(),
        levels: found,
    }]);
    assert_eq!(
        line,
        ["levels: Sweep SSBO vec4 linear: L1 32.0 TB/s up to 192 KiB; L2 9.10 TB/s up to 32 MiB; DRAM 3.13 TB/s \
         (from 128 MiB)"]
    );
}
use crate::record::measurement::Measurement;
use crate::record::outcome::Counted;

/// The line of case `name` that ended as `outcome`, on a device with nothing known.
fn line_of(name: &str, outcome: &Outcome, baseline: Option<&Outcome>) -> String {
    line(&CaseResult::of(name, outcome, &Trust::default(), baseline))
}

fn timed(samples: &[f64], settled: bool) -> Outcome {
    let measurement = Measurement { warmup_runs: 6, settled, ..Measurement::of_samples(4000, samples) };
    let work = Work::new(16384.0, Unit::Flop);
    Outcome::Timed {
        measurement,
        work: vec![(1.3e12, work)],
        ratio: None,
        with_time: false,
        counted: Counted::Workgroups,
    }
}

#[test]
fn a_timed_line_gives_rate_median_min_and_spread() {
    let text = line_of("ALU fp32 FMA", &timed(&[20.0, 20.1, 19.9], true), None);
    assert_eq!(
        text,
        "ALU fp32 FMA: 65.0 TFLOPS, per clock and peak unknown  (median 20.000 ms, min 19.900 ms, cv 0.5%, 3 samples \
         of 4000 workgroups)"
    );
}

#[test]
fn noisy_and_unsettled_results_are_marked() {
    let text = line_of("x", &timed(&[20.0, 25.0, 15.0], false), None);
    assert!(text.contains("[noisy: cv above 3%]"), "{text}");
    assert!(text.contains("[unsettled"), "{text}");
}

#[test]
fn a_case_over_the_submission_cap_says_so() {
    let mut outcome = timed(&[501.0, 501.0, 501.0], true);
    if let Outcome::Timed { measurement, .. } = &mut outcome {
        measurement.groups = 1;
    }
    let text = line_of("65535X Coherent branch baseline", &outcome, None);
    assert!(text.contains("[over the submission cap: 501 ms per measurement at 1 workgroups"), "{text}");
    assert!(!line_of("x", &timed(&[20.0, 20.0, 20.0], true), None).contains("cap"));
}

#[test]
fn ratio_lines_have_the_original_shape() {
    let measurement = Measurement::of_samples(100, &[20.0; 3]);
    // 2^32 loads in 20 ms: the time for 2^32 loads is 20 ms.
    let loads = Work::new(256.0, Unit::Load);
    let bytes = Work::new(1024.0, Unit::Byte);
    let outcome = Outcome::Timed {
        measurement,
        work: vec![(TIME_FOR, loads), (4.0 * TIME_FOR, bytes)],
        ratio: Some(3.907),
        with_time: true,
        counted: Counted::Workgroups,
    };
    let text = line_of("Buffer<R8>.Load uniform", &outcome, None);
    assert!(
        text.starts_with(
            "Buffer<R8>.Load uniform: 20.000ms 3.907x  215 Gloads/s, 859 GB/s, per clock and peak unknown  (median \
             20.000 ms"
        ),
        "{text}"
    );
}

#[test]
fn a_ratio_against_a_noisy_baseline_says_so_and_a_good_retry_is_a_note() {
    let baseline = timed(&[20.0, 25.0, 15.0], true);
    let text = line_of("Buffer<R8>.Load random", &timed(&[20.0, 20.0, 20.0], true), Some(&baseline));
    assert!(text.ends_with("  [ratio against a flagged baseline (noisy)]"), "{text}");
    let steady = timed(&[20.0, 20.0, 20.0], true);
    let text = line_of("Buffer<R8>.Load random", &steady, Some(&steady));
    assert!(!text.contains('['), "{text}");
    let mut retried = timed(&[20.0, 20.0, 20.0], true);
    if let Outcome::Timed { measurement, .. } = &mut retried {
        measurement.retries = vec!["it ran at 345 MHz, the warm-up reached 1980 MHz".into()];
    }
    assert_eq!(
        retry_note(&retried).unwrap(),
        "re-measured once: it ran at 345 MHz, the warm-up reached 1980 MHz"
    );
    assert_eq!(retry_note(&steady), None);
    if let Outcome::Timed { measurement, .. } = &mut retried {
        measurement.gave_up = true;
    }
    assert_eq!(retry_note(&retried), None, "a retry that did not help is a flag, not a note");
}

#[test]
fn a_record_missing_its_spread_says_unknown_never_nan() {
    let mut record = CaseResult::of("x", &timed(&[20.0, 20.0, 20.0], true), &Trust::default(), None);
    (record.min_ms, record.cv) = (None, None);
    let text = line(&record);
    assert!(text.contains("min unknown, cv unknown") && !text.contains("NaN"), "{text}");
}

#[test]
fn skips_say_why() {
    let text = line_of("ALU fp64 FMA", &Outcome::Skipped("the device lacks shaderFloat64".into()), None);
    assert_eq!(text, "ALU fp64 FMA: skipped (the device lacks shaderFloat64)");
}

#[test]
fn a_transfer_has_no_rate_per_compute_unit() {
    let bytes = Work::new(1e9, Unit::Byte);
    let Outcome::Timed { measurement, work, .. } = judged_timed(vec![(4e9, bytes)], vec![1980.0]) else {
        panic!()
    };
    let copy = Outcome::Timed { measurement, work, ratio: None, with_time: false, counted: Counted::Copies };
    let judged = h100().judge(&copy);
    assert!(judged.per_clock.is_empty() && judged.peak.is_none());
    assert_eq!(judged.clock_mhz, Some(1980.0), "the clock is still recorded");
    assert_eq!(per_clock_of(&copy, h100()), ", a transfer: no rate per clock or compute unit");
}

#[test]
fn dispatches_take_clocks_and_round_trips_take_none() {
    let dispatch = Work::new(1.0, Unit::Dispatch);
    // 6.14 M dispatches per second at 1982 MHz: 322.8 clocks each.
    let outcome = judged_timed(vec![(6.14e6 * 0.010, dispatch)], vec![1982.0]);
    let judged = h100().judge(&outcome);
    assert_eq!(judged.per_clock.len(), 1);
    assert_eq!(judged.per_clock[0].1, Measure::from("clk/dispatch"));
    assert!((judged.per_clock[0].0 - 1982e6 / 6.14e6).abs() < 1e-6);
    let Outcome::Timed { measurement, .. } = judged_timed(vec![], vec![1982.0]) else { unreachable!() };
    let work = vec![(318.0, Work::new(1.0, Unit::Submission))];
    let trips =
        Outcome::Timed { measurement, work, ratio: None, with_time: false, counted: Counted::Submissions };
    assert!(h100().judge(&trips).per_clock.is_empty(), "a CPU-timed round trip has no clocks");
    assert_eq!(
        per_clock_of(&trips, h100()),
        ", round trips timed by the CPU: no rate per clock or compute unit"
    );
}

#[test]
fn host_transfers_are_a_share_of_the_link_with_or_without_a_clock() {
    let link = Work::new(1.0, Unit::Byte).bounded_by(Ceiling::HostLink);
    // 50.7 GB/s for 10 ms, timed by a transfer without a clock reading.
    let Outcome::Timed { measurement, work, .. } = judged_timed(vec![(50.7e9 * 0.010, link)], vec![]) else {
        unreachable!()
    };
    let copy = Outcome::Timed { measurement, work, ratio: None, with_time: false, counted: Counted::Copies };
    let judged = h100().judge(&copy);
    let peak = judged.peak.clone().unwrap();
    assert!((peak.percent - 50.7 / 63.015_384_6 * 100.0).abs() < 1e-3, "{}", peak.percent);
    assert_eq!(peak.peak.value_text(), "63.02 GB/s each way, PCIe Gen5 x16");
    assert_eq!(
        per_clock_of(&copy, h100()),
        ", a transfer: no rate per clock or compute unit, 80.5% of host link peak"
    );
    // The L2 answering a repeated host read: 3.93 TB/s across a 63 GB/s link.
    let served = h100().judge(&judged_timed(vec![(3.93e12 * 0.010, link)], vec![1980.0]));
    assert_eq!(
        served.implausible().unwrap(),
        "implausible: 6237% of the host link peak (63.02 GB/s each way, PCIe Gen5 x16): a cache on \
         the GPU's side of the link served the bytes"
    );
    let unknown = Trust { host_link: None, ..h100() };
    assert_eq!(unknown.judge(&copy).peak, None, "no link, no share");
    assert_eq!(per_clock_of(&copy, unknown), ", a transfer: no rate per clock or compute unit");
}

#[test]
fn rates_become_per_clock_per_sm_and_a_share_of_the_peak() {
    let bytes = Work::new(4096.0, Unit::Byte).bounded_by(Ceiling::L1Bytes);
    let loads = Work::new(256.0, Unit::Load);
    let outcome =
        judged_timed(vec![(bytes_for(124.7) / 16.0, loads), (bytes_for(124.7), bytes)], vec![1980.0, 1980.0]);
    let judged = h100().judge(&outcome);
    assert_eq!(judged.clock_mhz, Some(1980.0));
    assert_eq!(judged.per_clock[1].1, Measure::from("B/clk/SM"));
    assert!((judged.per_clock[1].0 - 124.7).abs() < 1e-9, "{:?}", judged.per_clock);
    let peak = judged.peak.clone().unwrap();
    assert!((peak.percent - 124.7 / 128.0 * 100.0).abs() < 1e-9);
    assert_eq!(peak.peak.value_text(), "128.0 B/clk/SM");
    assert_eq!(judged.implausible(), None);
    assert_eq!(
        per_clock_of(&outcome, h100()),
        " = 7.794 loads/clk/SM, 124.7 B/clk/SM at 1980 MHz, 97.4% of L1 peak"
    );
}

#[test]
fn what_is_not_known_says_unknown() {
    let flop = Work::new(2048.0, Unit::Flop).bounded_by(Ceiling::Fp32Fma);
    // No clock (lavapipe): nothing per clock, no peak.
    let no_clock = h100().judge(&judged_timed(vec![(1e12, flop)], vec![]));
    assert_eq!(no_clock, Judgement::default());
    assert_eq!(
        per_clock_of(&judged_timed(vec![(1e12, flop)], vec![]), h100()),
        ", per clock and peak unknown"
    );
    // A clock, but no compute-unit count and no architecture.
    let unknown = Trust::default().judge(&judged_timed(vec![(1e12, flop)], vec![1500.0]));
    assert_eq!(unknown.clock_mhz, Some(1500.0));
    assert!(unknown.per_clock.is_empty() && unknown.peak.is_none());
    assert_eq!(
        per_clock_of(&judged_timed(vec![(1e12, flop)], vec![1500.0]), Trust::default()),
        " at 1500 MHz, per compute unit unknown, peak unknown"
    );
    // Known device, but a work unit with no ceiling (branch invocations).
    let invocations = Work::new(1.0, Unit::Invocation);
    let text = per_clock_of(&judged_timed(vec![(1e12, invocations)], vec![1980.0]), h100());
    assert!(text.ends_with("invocations/clk/SM at 1980 MHz, peak unknown"), "{text}");
}

#[test]
fn a_compiled_case_reads_compiled_in_every_format() {
    use crate::results::model::{CaseResult, Status};
    let mut run = crate::results::model::tests::sample_run();
    run.settings.compile_only = true;
    let template = run.cases[0].clone();
    let compiled = CaseResult {
        status: Status::Compiled,
        executables: Some(2),
        rate: None,
        rates: vec![],
        median_ms: None,
        min_ms: None,
        cv: None,
        ..template.clone()
    };
    let verified =
        CaseResult { name: "v".into(), status: Status::Verified, checked: Some(512), ..compiled.clone() };
    run.cases = vec![compiled, verified];
    let text = crate::report::render(&run, crate::report::Format::Text, true).unwrap();
    assert!(text.contains("ByteAddressBuffer.Load uniform: compiled (2 pipeline executables"), "{text}");
    assert!(text.contains("v: verified (512 results match the CPU reference)"), "{text}");
    let markdown = crate::report::to_markdown(&run);
    assert!(markdown.contains("| ByteAddressBuffer.Load uniform | compiled |"), "{markdown}");
    assert!(markdown.contains("| v | verified |"), "{markdown}");
    let csv = crate::report::to_csv(&run).unwrap();
    assert!(csv.contains(",compiled,") && csv.contains(",verified,"), "{csv}");
    let labels = ["a".to_owned(), "b".to_owned()];
    let compared = crate::report::sections::compare::to_markdown(&crate::report::compare::compare(
        &labels,
        &[run.clone(), run],
    ));
    assert!(
        compared.contains("| compiled | compiled |") && !compared.contains("| verified | verified |\n| v"),
        "{compared}"
    );
}
