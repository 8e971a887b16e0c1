//! The trust layer on the H100 as perftest sees it: per clock, % of peak, and each flag's bound.

use super::*;
use crate::record::measurement::Measurement;
use crate::registry::Work;

/// The H100 as perftest sees it: 132 SMs, Hopper.
pub(crate) fn h100() -> Trust {
    Trust {
        compute_units: Some(ComputeUnits { count: 132, name: "SM", source: "VK_NV_shader_sm_builtins" }),
        architecture: peaks::architecture(0x10de, 0x2330),
        host_link: Some(Lanes { gts: 32.0, width: 16 }),
    }
}

/// A timed outcome of `work` (amount per measurement) in 10 ms at `clocks` MHz.
pub(crate) fn timed(work: Vec<(f64, Work)>, clocks: Vec<f64>) -> Outcome {
    let measurement =
        Measurement { warmup_runs: 4, clocks_mhz: clocks, ..Measurement::of_samples(1000, &[10.0; 3]) };
    Outcome::Timed { measurement, work, ratio: None, with_time: false, counted: Counted::Workgroups }
}

/// Bytes per 10 ms that make `per_clock` B/clk/SM on 132 SMs at 1980 MHz.
pub(crate) fn bytes_for(per_clock: f64) -> f64 {
    per_clock * 132.0 * 1980e6 * 0.010
}

/// [`timed`], with its clock read by the witness to relative `uncertainty`.
pub(crate) fn witnessed(work: Vec<(f64, Work)>, clocks: Vec<f64>, uncertainty: f64) -> Outcome {
    let mut outcome = timed(work, clocks);
    if let Outcome::Timed { measurement, .. } = &mut outcome {
        measurement.clock.source = crate::record::measurement::ClockSource::Witness;
        measurement.clock.uncertainty = Some(uncertainty);
    }
    outcome
}

#[test]
fn a_clock_above_the_boards_listed_highest_is_taken_as_measured_and_not_flagged() {
    // The H100 lists 1980 MHz; beside one workgroup's chain its SMs run faster.
    let bytes = Work::new(4096.0, Unit::Byte).bounded_by(Ceiling::L1Bytes);
    let outcome = witnessed(vec![(bytes_for(100.0), bytes)], vec![2080.0, 2086.0], 1e-4);
    let judged = h100().judge(&outcome);
    assert_eq!(judged.clock_mhz, Some(2083.0));
    let expected = 100.0 * 1980.0 / 2083.0;
    assert!((judged.per_clock[0].0 - expected).abs() < 1e-9, "per clock at 2083 MHz: {:?}", judged.per_clock);
    assert!(
        flags(&outcome, &judged, Some(1980.0)).is_empty(),
        "neither above a listed maximum nor throttled"
    );
}

#[test]
fn a_share_of_a_peak_is_implausible_only_beyond_its_uncertainty() {
    // fp32 adds at 129.9 per clock per SM by a clock read to 0.01% (the samples agree to
    // 0.001%): 101.5%, far beyond the 100.03% the uncertainty allows.
    let adds = Work::new(1.0, Unit::Op).bounded_by(Ceiling::Issue);
    let amount = |per_clock: f64| per_clock * 132.0 * 1980e6 * 0.010;
    let judged = h100().judge(&witnessed(vec![(amount(129.9), adds)], vec![1980.0], 1e-4));
    let flag = judged.implausible().expect("beyond the uncertainty");
    assert!(flag.to_string().starts_with("implausible: 101.5% of the instruction issue peak (128.0 ops/clk/SM), beyond the 100.0% its uncertainty allows"), "{flag}");
    // The same rate by a clock known only to 1%: allowed 103%, so not flagged.
    let loose = h100().judge(&witnessed(vec![(amount(129.9), adds)], vec![1980.0], 0.01));
    assert_eq!(loose.implausible(), None);
    assert!((loose.peak.unwrap().allowed.unwrap() - 103.0).abs() < 1e-6);
    // At the peak exactly: never.
    assert_eq!(h100().judge(&witnessed(vec![(amount(128.0), adds)], vec![1980.0], 1e-5)).implausible(), None);
    assert!((allowed_percent(Some(0.001)) - 100.3).abs() < 1e-9);
    assert_eq!(allowed_percent(None), IMPLAUSIBLE_PERCENT, "the probe's reading: the fixed margin");
    assert!((median_error(0.01, 4) - 0.0062665).abs() < 1e-9);
}

#[test]
fn work_above_the_peak_is_implausible() {
    // A shader that dropped its loads: 40x the bytes the L1 can deliver.
    let bytes = Work::new(4096.0, Unit::Byte).bounded_by(Ceiling::L1Bytes);
    let judged = h100().judge(&timed(vec![(bytes_for(5120.0), bytes)], vec![1980.0]));
    let flag = judged.implausible().unwrap();
    assert_eq!(
        flag,
        "implausible: 4000% of the L1 peak (128.0 B/clk/SM): the compiler may have removed work"
    );
    // Just under the margin is not flagged; just over is.
    let near = |per_clock: f64| h100().judge(&timed(vec![(bytes_for(per_clock), bytes)], vec![1980.0]));
    assert_eq!(near(128.0 * 1.019).implausible(), None);
    assert!(near(128.0 * 1.021).implausible().is_some());
}

#[test]
fn per_clock_figures_keep_four_significant_digits_and_never_read_zero() {
    let cases = [
        (124.75, "124.8"),
        (15.5, "15.50"),
        (7.794, "7.794"),
        (0.086, "0.08600"),
        (3.0e-4, "0.0003000"),
        (3.0e-7, "3.000e-7"),
        (2048.4, "2048"),
    ];
    for (value, text) in cases {
        assert_eq!(crate::format::sig4(value), text, "{value}");
    }
}

#[test]
fn a_clock_five_percent_below_the_median_is_throttling() {
    assert_eq!(throttled(1980.0, 1980.0, None), None);
    assert_eq!(throttled(1890.0, 1980.0, None), None, "4.5% below");
    assert_eq!(throttled(1395.0, 1980.0, None).unwrap(), "throttled: ran at 1395 MHz, run median 1980 MHz");
    assert_eq!(throttled(2100.0, 1980.0, None), None, "above: the case's own light load");
    assert!(throttled(1880.0, 1980.0, None).is_some(), "5.05% below");
    assert_eq!(throttled(1880.0, 1980.0, Some(0.01)), None, "within 5% and the clock's 1%");
    assert_eq!(median_clock([1980.0, 1395.0, 1980.0, 1965.0]), Some(1972.5));
    assert_eq!(median_clock([]), None);
}

#[test]
fn a_clock_that_changes_during_the_samples_is_flagged() {
    let flop = Work::new(2048.0, Unit::Flop).bounded_by(Ceiling::Fp32Fma);
    let outcome = timed(vec![(1e11, flop)], vec![1980.0, 1755.0]);
    let judged = h100().judge(&outcome);
    assert_eq!(judged.clock_mhz, Some(1867.5), "the mean of the readings");
    let all = flags(&outcome, &judged, Some(1867.5));
    assert_eq!(all, ["unsteady clock: 1980 MHz before the samples, 1755 MHz after"]);
    let steady = timed(vec![(1e11, flop)], vec![1980.0, 1975.0]);
    assert!(flags(&steady, &h100().judge(&steady), Some(1980.0)).is_empty());
}

#[test]
fn a_case_off_the_warm_up_clock_after_its_retries_says_so() {
    let flop = Work::new(2048.0, Unit::Flop).bounded_by(Ceiling::Fp32Fma);
    let mut outcome = timed(vec![(1e11, flop)], vec![1700.0, 1702.0]);
    if let Outcome::Timed { measurement, .. } = &mut outcome {
        measurement.reference_mhz = Some(1980.0);
        measurement.retries = vec!["it ran at 1690 MHz, the warm-up reached 1980 MHz".into(); 2];
        measurement.gave_up = true;
    }
    let all = flags(&outcome, &h100().judge(&outcome), None);
    assert_eq!(
        all,
        [
            "below the warm-up clock: ran at 1701 MHz, the warm-up reached 1980 MHz",
            "re-measured 2 times: it ran at 1690 MHz, the warm-up reached 1980 MHz; then it ran at 1690 MHz, the \
             warm-up reached 1980 MHz"
        ]
    );
    // Its ratio lines name the flags, not their detail.
    let line_flags = h100().flags(&timed(vec![(1e11, flop)], vec![]), &Judgement::default(), Some(&outcome));
    assert_eq!(
        line_flags.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["ratio against a flagged baseline (below the warm-up clock, re-measured 2 times)"]
    );
    let clean = timed(vec![(1e11, flop)], vec![1980.0, 1980.0]);
    assert!(h100().flags(&clean, &h100().judge(&clean), Some(&clean)).is_empty());
}

#[test]
fn a_latency_is_the_shader_clocks_count_where_the_chain_read_it() {
    // 1e6 dependent operations in 10 ms: 10 ns each, 19.8 clocks at 1980 MHz.
    let op = Work::new(1.0, Unit::DependentOp);
    let by_time = h100().judge(&timed(vec![(1e6, op)], vec![1980.0, 1980.0]));
    assert!((by_time.per_clock[0].0 - 19.8).abs() < 1e-9, "{:?}", by_time.per_clock);
    assert!(!by_time.shader_clocked);
    // The shader counted 20.5 M clocks over the same operations: 20.5 clocks each, whatever
    // the clock read around the samples (here above the board's highest).
    let mut counted = timed(vec![(1e6, op)], vec![2080.0, 2086.0]);
    if let Outcome::Timed { measurement, .. } = &mut counted {
        measurement.shader.chain_clocks = Some(20.5e6);
    }
    let judged = h100().judge(&counted);
    assert!((judged.per_clock[0].0 - 20.5).abs() < 1e-9, "{:?}", judged.per_clock);
    assert_eq!(judged.per_clock[0].1.to_string(), "clk/op");
    assert!(judged.shader_clocked);
}
