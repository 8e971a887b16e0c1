//! The trust layer on a real device: a case whose shader drops its loads (built only here) is
//! flagged implausible where the clock, the compute units and the peak are known, and everything
//! says "unknown" where they are not (lavapipe: no VK_KHR_shader_clock, no SM count).

use perftest::analysis::trust::Trust;
use perftest::caps::Ceiling;
use perftest::record::outcome::Outcome;
use perftest::registry::{CaseSpec, Glsl, Resource, Unit, Work};
use perftest::report::text;
use perftest::results::model::{CaseResult, Run};

use super::{perftest, temp_dir, text as utf8};
use crate::harness::Gpu;

/// Sums 256 vec4 loads and writes the sum; with DROP (the bug) it writes a constant instead, so
/// the compiler removes every load, but the case still counts 4096 bytes per invocation.
const DROPS_ITS_LOADS: &str = r#"
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(set = 0, binding = 1, std430) readonly buffer Data { vec4 data[]; };

void main() {
    vec4 sum = vec4(0.0);
    for (uint i = 0u; i < 256u; i++) {
        sum += data[(gl_LocalInvocationIndex + i) & 511u];
    }
#if DROP
    write_result(global_index(), 7u);
#else
    write_result(global_index(), floatBitsToUint(sum.x + sum.y + sum.z + sum.w));
#endif
}
"#;

/// The case, with its loads dropped by the compiler (`drop`) or kept.
fn case(drop: bool) -> CaseSpec {
    let glsl = Glsl { file: "drops-its-loads.glsl", source: DROPS_ITS_LOADS };
    let name = if drop { "float4 loads (dropped by the compiler)" } else { "float4 loads (kept)" };
    CaseSpec::new(name, glsl, [256, 1, 1])
        .defines([("DROP", if drop { "1" } else { "0" })])
        .resource(Resource::storage_buffer(512 * 16, |b| b.fill(1)))
        .work([Work::new(256.0, Unit::Load), Work::new(4096.0, Unit::Byte).bounded_by(Ceiling::L1Bytes)])
}

#[test]
fn a_shader_that_drops_its_loads_is_flagged_implausible_where_the_peak_is_known() {
    let gpu = Gpu::with_cases(vec![case(true), case(false)]);
    let trust = Trust::of(&gpu.ctx.info);
    let results = gpu.run(&super::short(2.0), |_| {});
    let cases = gpu.cases.clone();
    gpu.close();
    let outcome: &Outcome = &results[0].1;
    // Where the peak is known, the dropped loads show as work done impossibly fast; how much
    // faster they run on a CPU driver is the machine's load (10 times slower under two busy
    // loops beside it), not the code's, and is not asserted.
    let (dropped, kept) = (outcome.rate().unwrap(), results[1].1.rate().unwrap());
    assert!(dropped > 0.0 && kept > 0.0);
    let kept_record = CaseResult::new(&cases[1], &results[1].1, &trust, None);
    assert_eq!(kept_record.implausible(), None, "the honest twin is never flagged: {kept_record:?}");
    let record = CaseResult::new(&cases[0], outcome, &trust, None);
    let has_clock = record.clock_mhz.is_some();
    let line = text::line(&record);
    eprintln!("{line}");
    let known = has_clock && trust.compute_units.is_some() && trust.architecture.is_some();
    if known {
        // The H100: 4096 counted bytes per invocation that the GPU never loads.
        assert!(
            dropped > 3.0 * kept,
            "dropped {dropped:e} loads/s against {kept:e} kept: were the loads dropped?"
        );
        let flag = record.implausible().unwrap_or_else(|| panic!("not flagged: {line}")).to_string();
        assert!(
            flag.contains("% of the L1 peak") && flag.contains("the compiler may have removed work"),
            "{flag}"
        );
        assert!(line.contains("[implausible: "), "{line}");
        assert!(record.peak_percent.unwrap() > 200.0, "{record:?}");
        let run = Run { cases: vec![record], ..super::empty_run() };
        assert_eq!(run.strict().unwrap_err().exit_code(), perftest::ExitCode::Implausible);
    } else {
        // Lavapipe: nothing to hold the rate against, and the line says so instead of 0 or inf.
        assert_eq!((record.peak_percent, record.implausible()), (None, None), "{record:?}");
        assert!(
            line.contains(if has_clock { "peak unknown" } else { "per clock and peak unknown" }),
            "{line}"
        );
        if !has_clock {
            assert_eq!(record.clock_mhz, None);
            assert!(record.per_clock.is_empty());
        }
    }
}

#[test]
fn cli_rates_per_clock_say_unknown_where_the_device_cannot_tell() {
    let dir = temp_dir("trust");
    let json = dir.join("fp32.json");
    let args = ["--filter", "ALU fp32", "--target-ms", "1", "--samples", "3", "--format", "json", "--output"];
    let out = perftest(&[&args[..], &[json.to_str().unwrap()]].concat(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", utf8(&out.stderr));
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let case = &run["cases"][0];
    let clock = run["device"]["clock"].as_str().unwrap();
    if clock.starts_with("unknown") {
        assert!(clock.ends_with("so rates per clock are unknown"), "{clock}");
        assert!(case["clock_mhz"].is_null() && case["peak_percent"].is_null(), "{case}");
        assert!(case.get("per_clock").is_none(), "{case}");
    } else {
        let mhz = case["clock_mhz"].as_f64().unwrap();
        assert!(mhz.is_finite() && mhz > 10.0, "{case}");
        if !run["device"]["compute_units"].is_null() {
            let per_clock = case["per_clock"][0]["value"].as_f64().unwrap();
            assert!(
                per_clock > 0.0 && case["per_clock"][0]["unit"].as_str().unwrap().starts_with("FLOP/clk/")
            );
        }
        if let Some(percent) = case["peak_percent"].as_f64() {
            assert!(percent > 1.0 && percent <= 102.0, "fp32 FMA: {percent}% of peak");
        }
    }
    // Text says the same, in the whole header and on the line.
    let out = perftest(&["--filter", "ALU fp32", "--target-ms", "1", "--samples", "3"], &[]);
    let whole = perftest(&["--filter", "ALU fp32", "--target-ms", "1", "--samples", "3", "--verbose"], &[]);
    let whole = utf8(&whole.stdout);
    assert!(whole.contains("\nunits:      ") && whole.contains("\npeaks:      "), "{whole}");
    let stdout = utf8(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", utf8(&out.stderr));
    assert!(stdout.contains("\nclock:      "), "the short header says the clock: {stdout}");
    assert!(stdout.contains("\nclock: "), "the summary line after the cases: {stdout}");
    assert!(!stdout.contains(" inf") && !stdout.contains("NaN") && !stdout.contains(" 0.000 "), "{stdout}");
    if clock.starts_with("unknown") {
        // The default line leaves out the columns the header says are unknown; --verbose says so.
        assert!(!stdout.contains("/clk/") && !stdout.contains("% fp32"), "{stdout}");
        let verbose =
            perftest(&["--filter", "ALU fp32", "--target-ms", "1", "--samples", "3", "--verbose"], &[]);
        assert!(
            utf8(&verbose.stdout).contains("FLOPS, per clock and peak unknown"),
            "{}",
            utf8(&verbose.stdout)
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_a_timed_run_warms_the_device_up_first_and_says_how() {
    let dir = temp_dir("warm-up");
    let json = dir.join("warm.json");
    let args =
        ["--filter", "ALU int32", "--target-ms", "1", "--samples", "3", "--format", "json", "--output"];
    let out = perftest(&[&args[..], &[json.to_str().unwrap()]].concat(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", utf8(&out.stderr));
    let run = perftest::results::load(&json).unwrap_or_else(|e| panic!("{e}"));
    let warm = run.warm_up.expect("a timed run records its warm-up");
    // A CPU implementation (lavapipe) gets a tenth of a GPU's fixed load.
    let plan = match run.device.kind.as_str() {
        "Cpu" => perftest::runner::warmup::CPU_PLAN,
        _ => perftest::runner::warmup::PLAN,
    };
    match run.device.clock.as_deref() {
        // Lavapipe: no clock to watch, so a fixed time of load and no readings.
        Some(clock) if clock.starts_with("unknown") => {
            assert!(!warm.watched, "{warm:?}");
            // The load stops at its first submission past the plan's time (a busy machine may
            // stretch that one): never before it, nor by half a GPU's plan (lavapipe's is a tenth).
            let slack = perftest::runner::warmup::PLAN.blind_ms / 2.0;
            assert!(warm.load_ms >= plan.blind_ms && warm.load_ms < plan.blind_ms + slack, "{warm:?}");
            assert!(warm.readings.is_empty() && warm.settled_mhz.is_none() && warm.reference_mhz.is_none());
            assert!(warm
                .text()
                .ends_with("a fixed time: no clock to watch (the device has no usable shader clock)"));
        }
        // A GPU: readings every slice of load, until they settled or the budget ran out.
        _ => {
            assert!(!warm.readings.is_empty() && warm.load_ms <= plan.budget_ms + 200.0, "{warm:?}");
            assert!(warm.readings.iter().all(|(_, mhz)| *mhz > 10.0), "{warm:?}");
        }
    }
    // Text says it in the header, before the settings.
    let out = perftest(&["--filter", "ALU int32", "--target-ms", "1", "--samples", "3", "--verbose"], &[]);
    let stdout = utf8(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("warm-up:    ")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(lines[at].contains(" s of load") && lines[at + 1].starts_with("settings:   "), "{stdout}");
    // Verify runs time nothing: no warm-up.
    let out = perftest(&["--filter", "ALU int32", "--verify"], &[]);
    let stdout = utf8(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", utf8(&out.stderr));
    assert!(stdout.contains("  verified (") && !stdout.contains("warm-up:"), "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_all_devices_writes_one_document_per_device_and_who_ran_where() {
    let dir = temp_dir("all-devices");
    let path = dir.join("gpus.json");
    let args =
        ["--all-devices", "--filter", "ALU int32", "--target-ms", "1", "--samples", "3", "--format", "json"];
    // The host's name given: any host's own may be no DNS label (and is then left out).
    let host = [("PERFTEST_HOST_NAME", "citest")];
    let out = perftest(&[&args[..], &["--output", path.to_str().unwrap()]].concat(), &host);
    assert_eq!(out.status.code(), Some(0), "{}", utf8(&out.stderr));
    let first = perftest::results::load(&dir.join("gpus-gpu1.json")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first.cases.len(), 1);
    assert!(!path.exists(), "devices get their own files, never the bare name");
    // Who ran where: the host and the device's UUIDs (lavapipe has no PCI address).
    assert_eq!(first.host.as_deref(), Some("citest"));
    assert!(first.device.uuid.as_deref().is_some_and(|u| u.len() == 36), "{:?}", first.device.uuid);
    assert!(first.together.is_empty(), "lavapipe alone ran alone");
    // --no-host-name leaves the host out.
    let out = perftest(&[&args[..], &["--output", path.to_str().unwrap(), "--no-host-name"]].concat(), &host);
    assert_eq!(out.status.code(), Some(0), "{}", utf8(&out.stderr));
    let anonymous = perftest::results::load(&dir.join("gpus-gpu1.json")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(anonymous.host, None);
    // Without --output a document per row has nowhere to go: a usage error that says what to do.
    let out = perftest(&args, &[]);
    let stderr = utf8(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("give --output FILE"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_fence_timing_times_by_the_cpu_and_says_so_on_every_line() {
    let args = [
        "--fence-timing",
        "--filter",
        "ALU fp32 FMA",
        "--target-ms",
        "2",
        "--samples",
        "3",
        "--format",
        "json",
    ];
    let out = perftest(&args, &[]);
    let stdout = utf8(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", utf8(&out.stderr));
    let run: Run = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(run.cases.len(), 2);
    for case in &run.cases {
        assert!(case.rate.as_ref().is_some_and(|r| r.value > 0.0), "{case:?}");
        assert_eq!(case.flags.first(), Some(&perftest::results::flag::Flag::Fenced), "{:?}", case.flags);
    }
    let clock = run.device.clock.unwrap_or_default();
    assert!(clock.contains("timed by CPU fences"), "no timestamps to read a clock against: {clock}");
}
