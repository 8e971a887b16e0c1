//! GPU integration tests: every case verified and a short timed run under the validation layer,
//! and leak detection, here; the command line in cli.rs, fleet --confirm in confirm.rs, energy in
//! energy.rs, health in health.rs, the staging buffer kept between uploads in staging.rs, a
//! command buffer recorded once in recorded.rs. Needs a Vulkan device (lavapipe in CI).

use ash::vk;
use common::{perftest, temp_dir, text};
use harness::{of, Gpu};
use perftest::caps::Feature;
use perftest::record::outcome::Outcome;
use perftest::registry::{CaseSpec, Selection};
use perftest::runner::open::check_validation;
use perftest::runner::run::{prepare, RunSettings};
use perftest::vk::Context;

mod cli;
#[path = "../tests/common/mod.rs"]
mod common;
mod confirm;
mod energy;
mod harness;
mod health;
mod isolation;
mod plumbing;
mod recorded;
mod sdc;
mod simulate;
mod staging;
mod trust;

/// Every case, with the branch cases swept over N = 0 and 8 only (each builds two 16 MB textures)
/// and the bandwidth and latency sweeps over 16, 64 and 256 KiB (lavapipe streams its gigabytes
/// slowly), and three shared-memory strides.
const SHORT_AXES: [&str; 10] = [
    "branch.n=0:8:8",
    "sweep.bytes=16K..256K*4",
    "latency.bytes=16K..256K*4",
    "shared.stride=1,2,32",
    "host.bytes=1M",
    "copy.bytes=1M",
    "conv.m=3,63",
    "conv.bytes=64K",
    "store.bytes=16K,1M",
    "atomic.addresses=1,32,1M",
];

/// Every case (see [`SHORT_AXES`]) run as `settings` say, with the cases; every skip is checked
/// against the driver's expectations, and the validation layer must stay silent.
fn run_all(settings: RunSettings) -> (Vec<CaseSpec>, Vec<(String, Outcome)>) {
    let gpu = Gpu::open(&SHORT_AXES, Selection::default());
    let results = gpu.run(&settings, |_| {});
    check_lacks(&gpu.ctx, &results);
    check_skips(&gpu.ctx.info.driver, &results);
    let cases = gpu.cases.clone();
    gpu.close();
    (cases, results)
}

/// Fails where a skip says "the device lacks F" of a feature F the device offers (a case needing
/// features it has and others it has not must name only the others).
fn check_lacks(ctx: &Context, results: &[(String, Outcome)]) {
    for (name, outcome) in results {
        let Outcome::Skipped(reason) = outcome else { continue };
        for part in reason.split("; ") {
            let Some(missing) = part.strip_prefix("the device lacks ") else { continue };
            let feature = Feature::ALL.iter().find(|f| f.vk_name() == missing);
            let feature = feature.unwrap_or_else(|| panic!("{name}: \"{part}\" names no feature"));
            assert!(
                !ctx.caps.features.get(*feature),
                "{name}: says the device lacks {missing}, which it offers"
            );
        }
    }
}

/// The expectations file in ci/expectations/ of the driver named `driver` (`perftest check`'s
/// data: the reasons it is known to skip for), if there is one.
fn expectations_of(driver: &str) -> Option<perftest::analysis::expect::Expectations> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ci/expectations");
    let files = std::fs::read_dir(dir).expect("ci/expectations/ exists");
    files
        .filter_map(|f| perftest::analysis::expect::Expectations::load(&f.ok()?.path()).ok())
        .find(|e| driver.contains(&e.driver))
}

/// Fails on a skip whose reason the driver's expectations file does not list (drivers without a
/// file only print their skips).
fn check_skips(driver: &str, results: &[(String, Outcome)]) {
    let expected = expectations_of(driver);
    for (name, outcome) in results {
        if let Outcome::Skipped(reason) = outcome {
            eprintln!("{name}: skipped ({reason})");
            assert!(
                expected.as_ref().is_none_or(|e| e.expects_skip(reason)),
                "{name}: skipped for a reason ci/expectations/ does not list for {driver}: {reason}"
            );
        }
    }
}

#[test]
fn every_case_verifies_against_its_cpu_reference() {
    let (_, results) = run_all(RunSettings {
        target_ms: 2.0,
        samples: Some(3),
        verify: true,
        compile_only: false,
        shader_stats: true,
        fence_timing: false,
        fixed_samples: false,
        energy: None,
    });
    for (name, outcome) in &results {
        match outcome {
            // A latency case is one chain per workgroup: each result is the end of 1024 loads.
            Outcome::Verified { checked } if name.starts_with("Latency") => assert_eq!(*checked, 2, "{name}"),
            // An instruction latency case, and a subgroup operation's throughput case, is one
            // subgroup per workgroup (4 to 16 invocations here).
            Outcome::Verified { checked }
                if name.starts_with("Instr")
                    && (name.ends_with(" latency") || name.starts_with("Instr subgroup")) =>
            {
                assert!(*checked >= 4, "{name}: only {checked} results")
            }
            // A dispatch-family case checks its counter's 16 bytes: the count of dispatches, then zeros.
            Outcome::Verified { checked } if name.starts_with("Dispatch") || name == "Submit round trip" => {
                assert_eq!(*checked, 4, "{name}")
            }
            Outcome::Verified { checked } => assert!(*checked >= 256, "{name}: only {checked} results"),
            Outcome::Skipped(_) => {}
            Outcome::Timed { .. } | Outcome::Compiled { .. } => panic!("{name}: not verified: {outcome:?}"),
            Outcome::Failed { detail, .. } => panic!("{name}: {detail}"),
        }
    }
    // The cases without requirements run on every device.
    for name in ["ALU fp32 FMA", "ALU int32 multiply-add"] {
        let (_, outcome) = results.iter().find(|(n, _)| n == name).unwrap();
        assert!(matches!(outcome, Outcome::Verified { .. }), "{name}: {outcome:?}");
    }
}

#[test]
fn a_short_timed_run_gives_finite_positive_rates() {
    let (cases, results) = run_all(short(2.0));
    for (case, (name, outcome)) in cases.iter().zip(&results) {
        let Outcome::Timed { measurement, work, ratio, .. } = outcome else {
            continue;
        };
        let s = &measurement.summary;
        assert!(s.min > 0.0 && s.min <= s.median && s.median <= s.max && s.max.is_finite(), "{name}: {s:?}");
        assert_eq!(s.count, 3, "{name}");
        assert!(measurement.groups >= 1);
        let rates = outcome.rates();
        assert_eq!(rates.len(), work.len(), "{name}: a rate per work unit");
        for (rate, w) in rates {
            // Positive and finite only: how fast is the benchmark's business, not a test's (a
            // loaded CI machine once ran a divergent-branch case at 0.5M invocations/s).
            assert!(rate.is_finite() && rate > 0.0, "{name}: {rate} {}", w.unit.rate_name());
        }
        // A case with a baseline (timed in this run) has a ratio to it; the baseline is 1.0x itself.
        match &case.baseline {
            None => assert_eq!(*ratio, None, "{name}"),
            Some(baseline) => {
                let ratio = ratio.unwrap_or_else(|| panic!("{name}: no ratio"));
                assert!(ratio.is_finite() && ratio > 0.0, "{name}: {ratio}");
                if baseline == name {
                    assert_eq!(ratio, 1.0);
                }
            }
        }
    }
}

#[test]
fn each_case_says_where_its_time_went_its_freeing_included() {
    let gpu = Gpu::open(&["sweep.bytes=16K,1M"], of("sweep", "Sweep SSBO vec4 linear"));
    let mut phases = Vec::new();
    gpu.run(&short(1.0), |done| phases.push(done.record.phases));
    gpu.close();
    assert_eq!(phases.len(), 2);
    for p in phases {
        assert!(p.setup_ms > 0.0 && p.samples_ms > 0.0 && p.free_ms > 0.0, "{p:?}");
        let named: f64 = p.named().iter().map(|(_, ms)| ms).sum();
        assert!(named <= p.total_ms, "each phase is a part of the case's whole: {p:?}");
    }
}

#[test]
fn without_the_baseline_load_lines_say_why_there_is_no_ratio() {
    // The read-only cases only (the RWBuffer and broadcast twins have the same baseline).
    let gpu = Gpu::open(&["load.type=typed", "load.format=R8"], of("load", ""));
    let mut notes_seen = Vec::new();
    let results = gpu.run(&short(1.0), |done| notes_seen.extend_from_slice(&done.record.notes));
    gpu.close();
    assert_eq!(results.len(), 3);
    for (name, outcome) in &results {
        assert!(
            matches!(outcome, Outcome::Timed { ratio: None, with_time: true, .. }),
            "{name}: {outcome:?}"
        );
    }
    assert_eq!(
        notes_seen,
        ["no ratios: the baseline \"Buffer<RGBA8>.Load random\" was not timed (filtered out, skipped or failed)"]
    );
}

#[test]
fn cases_that_differ_only_in_push_constants_share_a_pipeline() {
    let gpu = Gpu::open(&["branch.n=0:24:8"], of("branch", ""));
    let prepared = prepare(&gpu.ctx, &gpu.cases, 2, true, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(gpu.cases.len(), 4 * 12);
    assert_eq!(prepared.pipelines.len(), 3, "baseline, long, short: one shader each");
}

#[test]
fn the_first_familys_pipelines_come_first_and_the_others_when_the_run_reaches_them() {
    let selection = Selection {
        families: vec!["alu".into(), "shared".into()],
        filter: Some("a".into()),
        ..Default::default()
    };
    let gpu = Gpu::open(&[], selection);
    let first = gpu.cases[0].family;
    assert!(gpu.cases.iter().any(|c| c.family != first), "two families selected");
    let prepared = prepare(&gpu.ctx, &gpu.cases, 2, false, false).unwrap_or_else(|e| panic!("{e}"));
    // lavapipe is a CPU driver: the later families' are built here, when the run reaches them.
    assert!(prepared.later.pipelines > 0 && !prepared.later.beside() && prepared.first_family == Some(first));
    let firsts = gpu.cases.iter().filter(|c| c.family == first).count();
    assert!(prepared.pipelines.len() <= firsts, "only the first family's: {}", prepared.pipelines.len());
    drop(prepared);
    // Run through, every case of both families verifies: the later family's were built on the way.
    let mut settings = short(2.0);
    settings.verify = true;
    let results = gpu.run(&settings, |_| {});
    assert_eq!(results.len(), gpu.cases.len());
    for (name, outcome) in &results {
        assert!(matches!(outcome, Outcome::Verified { .. } | Outcome::Skipped(_)), "{name}: {outcome:?}");
    }
    assert!(results.iter().any(|(n, o)| matches!(o, Outcome::Verified { .. }) && n.starts_with("Shared")));
    gpu.close();
}

// The harness starts tests in name order, one a core. With Mesa's shader cache empty this is the
// longest after `a_short_timed_run_gives_finite_positive_rates`; named `simulate::...`, it started
// late and ran alone at the end (results/half-the-time-22/).
#[test]
fn a_simulated_android_baseline_verifies_or_skips_with_reasons() {
    simulate::verifies_or_skips_with_reasons("android-baseline-2022");
}

#[test]
fn a_leaked_object_is_reported_by_the_validation_layer() {
    let Gpu { ctx, .. } = Gpu::open(&[], of("alu", "ALU fp32"));
    let sink = ctx.validation_sink();
    // SAFETY: a valid device; the fence is deliberately never destroyed.
    let leaked = unsafe { ctx.device.create_fence(&vk::FenceCreateInfo::default(), None) }.unwrap();
    assert_ne!(leaked, vk::Fence::null());
    drop(ctx);
    let error = check_validation(&sink).expect_err("a leaked VkFence must fail the run");
    assert_eq!(error.exit_code(), perftest::ExitCode::Validation);
    assert!(error.to_string().contains("VkFence"), "{error}");
}

/// A complete run with no cases, to fill in.
fn empty_run() -> perftest::results::Run {
    let text = r#"{"format_version": 3, "perftest_version": "0.1.0", "date": "2026-11-21T02:00:00Z",
      "settings": {"target_ms": 20.0, "samples": 3, "verify": false, "filter": null, "skip": []},
      "device": {"name": "H100", "type": "DiscreteGpu", "vendor_id": 4318, "device_id": 9008, "driver": "NVIDIA",
                 "vulkan_version": "1.4.312", "queue_family": 0, "subgroup_size": 32, "timestamp_period_ns": 1.0},
      "interrupted": false, "cases": []}"#;
    serde_json::from_str(text).unwrap()
}

/// A short timed run: `target_ms` per measurement, 3 samples.
fn short(target_ms: f64) -> RunSettings {
    RunSettings {
        target_ms,
        samples: Some(3),
        verify: false,
        compile_only: false,
        shader_stats: false,
        fence_timing: false,
        fixed_samples: false,
        energy: None,
    }
}
