//! GPU integration tests: every case verified and a short timed run under the validation layer,
//! leak detection, and the CLI's error messages and exit codes. Needs a Vulkan device (lavapipe in CI).

use std::process::Command;

use ash::vk;
use common::{listed, perftest, temp_dir, text};
use harness::{of, Gpu};
use perftest::caps::Feature;
use perftest::record::outcome::Outcome;
use perftest::registry::{CaseSpec, Selection};
use perftest::runner::open::check_validation;
use perftest::runner::run::{prepare, RunSettings};
use perftest::vk::Context;

#[path = "../tests/common/mod.rs"]
mod common;
mod harness;
mod health;
mod isolation;
mod plumbing;
mod simulate;
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
        samples: 3,
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
    assert!(prepared.builds_later() && prepared.first_family == Some(first));
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
        samples: 3,
        verify: false,
        compile_only: false,
        shader_stats: false,
        fence_timing: false,
        fixed_samples: false,
        energy: None,
    }
}

#[test]
fn cli_verify_with_validation_passes_quietly() {
    let axes = SHORT_AXES.iter().flat_map(|a| ["--axis", a]).collect::<Vec<_>>();
    let out = perftest(&[&["--verify", "--validation", "--verbose"][..], &axes].concat(), &[]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.starts_with("perftest "), "{stdout}");
    assert!(stdout.contains("\npipelines:  "), "the header says what building the pipelines cost: {stdout}");
    assert!(stdout.contains("\ncompiler:   shaderc 0.10"), "the header names the shader compiler: {stdout}");
    assert!(stdout.starts_with("perftest 0.1.0 (git "), "and perftest's commit: {stdout}");
    assert!(stdout.contains("ALU fp32 FMA: verified ("), "{stdout}");
    assert!(stdout.trim_end().ends_with("\nrun: complete"), "the last line says how the run ended: {stdout}");
    assert!(stderr.is_empty(), "no progress bar when stderr is not a terminal: {stderr}");
}

#[test]
fn cli_shader_stats_print_a_line_per_case() {
    let out = perftest(&["--verify", "--verbose", "--shader-stats", "--filter", "int32"], &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (_, after) = stdout.split_once("ALU int32 multiply-add: verified").expect("the case line");
    let note = after.lines().nth(1).unwrap_or_default();
    assert!(note.starts_with("    shader "), "statistics or the reason there are none: {stdout}");
}

#[test]
fn cli_compile_only_builds_every_pipeline_and_runs_nothing() {
    let out = perftest(&["--compile-only", "--filter", "Store uint4 linear 16 KiB", "--format", "json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let run: perftest::results::model::Run = serde_json::from_slice(&out.stdout).unwrap();
    assert!(run.settings.compile_only && !run.settings.verify);
    assert_eq!(run.cases.len(), 1);
    let case = &run.cases[0];
    assert_eq!(case.status, perftest::results::model::Status::Compiled);
    // lavapipe 22.3 reports no statistics, and says so; nothing was timed or checked.
    assert!(case.reason.is_none() && case.executables.is_none(), "{case:?}");
    assert!(case.median_ms.is_none() && case.rate.is_none());
    assert_eq!(run.device.clock.as_deref(), Some("not read: --verify and --compile-only time nothing"));
    let both = perftest(&["--compile-only", "--verify"], &[]);
    assert_eq!(both.status.code(), Some(2), "a usage error: {}", text(&both.stderr));
}

#[test]
fn cli_a_closed_stdout_is_an_error_not_a_panic() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_perftest"))
        .args(["--verify", "--filter", "fp32"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    drop(child.stdout.take()); // the reader goes away, as `perftest | head -0` would
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("perftest: could not write the output"), "{stderr}");
}

#[test]
fn cli_json_output_then_compare() {
    let dir = temp_dir("compare");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    for (file, filter) in [(&a, "ALU fp32"), (&b, "ALU")] {
        let args = ["--filter", filter, "--target-ms", "1", "--samples", "3", "--format", "json", "--output"];
        let out = perftest(&[&args[..], &[file.to_str().unwrap()]].concat(), &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "the document goes to --output, not stdout");
    }
    let out = perftest(&["compare", a.to_str().unwrap(), b.to_str().unwrap(), "--format", "markdown"], &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(stdout.contains("| case | run 1 | run 2 |"), "{stdout}");
    assert!(stdout.contains("| ALU fp64 FMA | missing |"), "{stdout}");
    // The verdicts are what the code decides from the two files, whatever this machine's load
    // made of the rates: the summary the library computes from them is the one printed.
    let runs = [&a, &b].map(|f| perftest::results::load(f).unwrap_or_else(|e| panic!("{e}")));
    let labels = [&a, &b].map(|f| f.display().to_string());
    let comparison = perftest::report::compare::compare(&labels, &runs);
    let summary = &comparison.summaries[0];
    assert!(stdout.contains(summary.as_str()), "{summary} in: {stdout}");
    let (_, counts) = summary.split_once(": ").unwrap();
    let counts: usize =
        counts.split(", ").map(|p| p.split(' ').next().unwrap().parse::<usize>().unwrap()).sum();
    assert_eq!(counts, comparison.rows.len(), "every row counted once: {summary}");
    let chart = dir.join("chart.svg");
    let out = perftest(
        &["plot", a.to_str().unwrap(), b.to_str().unwrap(), "--output", chart.to_str().unwrap()],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(&chart).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("\nalu\n</text>"), "an SVG with the alu panel");
    // A file that is not perftest JSON: exit 10 and a sentence naming it.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "not json").unwrap();
    let out = perftest(&["compare", a.to_str().unwrap(), bad.to_str().unwrap()], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    assert!(stderr.contains("bad.json is not JSON"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_show_prints_a_saved_run_as_it_ran() {
    let dir = temp_dir("show");
    let file = dir.join("run.json");
    let file_arg = file.to_string_lossy().into_owned();
    // Timed lines with ratios, one without its baseline, and skips (no cooperative matrices here).
    for filter in ["<R8>.Load", "Coop"] {
        let args = ["--filter", filter, "--target-ms", "1", "--samples", "3", "--json", &file_arg];
        let live = perftest(&args, &[]);
        assert_eq!(live.status.code(), Some(0), "{}", text(&live.stderr));
        let shown = perftest(&["show", &file_arg], &[]);
        assert_eq!(shown.status.code(), Some(0), "{}", text(&shown.stderr));
        assert_eq!(text(&shown.stdout), text(&live.stdout), "byte for byte");
        assert!(text(&live.stdout).contains("  skipped (") || filter != "Coop", "{}", text(&live.stdout));
    }
    // Other formats of the same record.
    let csv = perftest(&["show", &file_arg, "--format", "csv"], &[]);
    assert!(text(&csv.stdout).starts_with("device,type,"), "{}", text(&csv.stdout));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_a_sweep_ends_with_its_levels() {
    let args = ["--filter", "Sweep SSBO vec4 linear", "--axis", "sweep.bytes=16K..1M*4", "--target-ms", "1"];
    let out = perftest(&[&args[..], &["--samples", "3"]].concat(), &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(stdout.matches("\nSweep SSBO vec4 linear ").count(), 4, "{stdout}");
    // Four sizes up to 1 MiB: no DRAM claimed, the levels only numbered.
    assert!(stdout.contains("\nlevels: Sweep SSBO vec4 linear: level 1 "), "{stdout}");
    let dir = temp_dir("levels");
    let json = dir.join("sweep.json");
    let out = perftest(
        &[&args[..], &["--samples", "3", "--format", "json", "--output", json.to_str().unwrap()]].concat(),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let run = perftest::results::load(&json).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.levels[0].variant, "Sweep SSBO vec4 linear");
    assert!(run.levels[0].levels.iter().all(|l| l.rate > 0.0 && l.from_bytes <= l.to_bytes));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_a_buffer_placed_by_memory_kind_names_its_memory_type() {
    let args = [
        "--filter",
        "Host-visible device-local",
        "--axis",
        "host.bytes=1M",
        "--target-ms",
        "1",
        "--samples",
        "3",
    ];
    let out = perftest(&args, &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // lavapipe (its only memory type) and the NVIDIA cards we run on all offer device-local,
    // host-visible memory of 1 MiB.
    assert!(stdout.contains("\n    the buffer in memory type "), "{stdout}");
    assert!(stdout.contains("DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT"), "{stdout}");
}

#[test]
fn cli_csv_and_markdown_formats() {
    let out = perftest(
        &["--verify", "--filter", "Buffer<R8>", "--skip", "RW", "--skip", "broadcast", "--format", "csv"],
        &[],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(stdout.lines().count(), 4, "a header and one row per case: {stdout}");
    assert!(
        stdout.lines().nth(1).unwrap().contains(",Buffer<R8>.Load uniform,load,load typed R8,,verified,,"),
        "{stdout}"
    );
    let out = perftest(
        &[
            "--verify",
            "--filter",
            "Buffer<R8>",
            "--skip",
            "RW",
            "--skip",
            "broadcast",
            "--format",
            "markdown",
        ],
        &[],
    );
    assert!(text(&out.stdout).contains("| Buffer&lt;R8>.Load random | verified |"), "{}", text(&out.stdout));
}

#[test]
fn cli_output_into_a_missing_folder_is_a_sentence() {
    let out = perftest(&["--verify", "--filter", "fp32", "--output", "/nonexistent-perftest/x.json"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("perftest: could not write /nonexistent-perftest/x.json"), "{stderr}");
}

/// A selection of a few hundred quick cases: the buffer, texture and ALU families.
const QUICK: [&str; 2] = ["--family", "load,texture,alu"];

#[test]
fn cli_ctrl_c_stops_after_the_current_case_and_writes_what_finished() {
    use std::io::BufRead;
    // Text on a pipe: wait for the first finished case (pipelines are built first, and how long
    // that takes depends on the machine's load), then interrupt.
    let mut child = Command::new(env!("CARGO_BIN_EXE_perftest"))
        .args(QUICK)
        .args(["--target-ms", "5", "--samples", "3"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut finished = 0;
    for line in lines.by_ref() {
        if line.unwrap().contains("loads/s") {
            finished += 1;
            break;
        }
    }
    assert_eq!(finished, 1, "a case finished before stdout ended");
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    finished += lines.map_while(Result::ok).filter(|l| l.contains("loads/s") || l.contains("FLOPS")).count();
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.starts_with("perftest: stopping after the case in progress (Ctrl-C again to stop it now)"),
        "{stderr}"
    );
    assert!(stderr.contains("\nperftest: interrupted (Ctrl-C or SIGTERM) after "), "{stderr}");
    let selected = listed(&QUICK);
    assert!(stderr.contains(&format!("after {finished} of {selected} cases")), "{finished} lines: {stderr}");
}

#[test]
fn cli_two_ctrl_cs_before_the_first_case_end_130_with_a_document() {
    // A user who sees nothing while pipelines build presses twice: once at once, once a moment later.
    let dir = temp_dir("two-signals");
    let file = dir.join("run.json");
    let child = Command::new(env!("CARGO_BIN_EXE_perftest"))
        .args(QUICK)
        .arg("--json")
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    for pause in [0.3, 0.2] {
        std::thread::sleep(std::time::Duration::from_secs_f64(pause));
        let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        assert!(killed.success());
    }
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("perftest: stopping now"), "{stderr}");
    assert!(stderr.contains("perftest: interrupted (Ctrl-C or SIGTERM) after 0 of "), "{stderr}");
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(run["interrupted"], true);
    assert_eq!(run["ending"]["exit_code"], 130);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_all_devices_writes_each_device_into_a_folder() {
    let dir = temp_dir("all-devices-folder");
    let folder = format!("{}/", dir.display());
    let out =
        perftest(&["--all-devices", "--filter", "ALU fp32 FMA", "--target-ms", "2", "--json", &folder], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let host = rustix::system::uname().nodename().to_string_lossy().into_owned();
    assert!(
        dir.join(format!("{host}-gpu1.json")).is_file(),
        "{:?}",
        std::fs::read_dir(&dir).unwrap().collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_sigterm_during_the_baseline_pass_keeps_the_measured_baselines() {
    // The branch baselines (one per N) are timed first; a stop during that pass used to drop them.
    let dir = temp_dir("sigterm");
    let file = dir.join("run.json");
    let child = Command::new(env!("CARGO_BIN_EXE_perftest"))
        .args(["--family", "branch", "--axis", "branch.n=0:1024:8", "--target-ms", "5", "--samples", "3"])
        .args(["--format", "json", "--output"])
        .arg(&file)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    std::thread::sleep(std::time::Duration::from_secs(8));
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "SIGTERM is a stop, like Ctrl-C: {stderr}");
    let run = perftest::results::load(&file).unwrap_or_else(|e| panic!("{e}"));
    assert!(run.interrupted);
    assert!(!run.cases.is_empty(), "the measured baselines are kept: {stderr}");
    let selected = listed(&["--family", "branch", "--axis", "branch.n=0:1024:8"]);
    assert!(run.cases.len() < selected, "{} of {selected} cases", run.cases.len());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_ctrl_c_writes_an_interrupted_document() {
    let dir = temp_dir("interrupt");
    let file = dir.join("run.json");
    let child = Command::new(env!("CARGO_BIN_EXE_perftest"))
        .args(QUICK)
        .args(["--target-ms", "5", "--samples", "3", "--format", "json", "--output"])
        .arg(&file)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    std::thread::sleep(std::time::Duration::from_secs(4));
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let run = perftest::results::load(&file).unwrap_or_else(|e| panic!("{e}"));
    assert!(run.interrupted);
    assert_eq!(run.ending.exit_code, 130);
    assert_eq!(run.ending.state, perftest::results::model::RunState::Interrupted);
    // However far it got (even no case, if the signal came while pipelines were built).
    assert!(run.cases.len() < listed(&QUICK), "{} cases", run.cases.len());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_lists_one_line_per_device() {
    let out = perftest(&["--devices"], &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(stdout.starts_with("1: "), "{stdout}");
    assert!(stdout.contains(", UUID ") && stdout.contains("compute queue famil"), "{stdout}");
    // `--queue` names a family of the device, or exit 4 says which it has.
    let out = perftest(&["--queue", "9", "--filter", "ALU fp32 FMA"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.starts_with("perftest: the device has no compute queue family 9: "), "{stderr}");
}

#[test]
fn cli_unknown_device_name_lists_the_rows() {
    let out = perftest(&["NoSuchGpu9000", "--filter", "fp32"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.starts_with("perftest: no device name contains \"NoSuchGpu9000\""), "{stderr}");
    assert!(stderr.contains("\n1: "), "the rows are listed: {stderr}");
    assert!(!stderr.contains("--filter NoSuchGpu9000"), "no case has the word: {stderr}");
    let out = perftest(&["sin"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("), but 2 case names do: run them with --filter sin; pick one of:"), "{stderr}");
}

#[test]
fn cli_row_out_of_range_lists_the_rows() {
    let out = perftest(&["-99", "--filter", "fp32"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.starts_with("perftest: device 99 does not exist"), "{stderr}");
}

#[test]
fn cli_filter_matching_nothing_exits_5() {
    let out = perftest(&["--filter", "fp128"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "perftest: no case matches --filter \"fp128\"; run `perftest --list` to see the case names"
    );
}

#[test]
fn cli_without_a_driver_names_lavapipe() {
    let out = perftest(
        &["--filter", "fp32"],
        &[("VK_DRIVER_FILES", "/nonexistent/icd.json"), ("VK_ICD_FILENAMES", "/nonexistent/icd.json")],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("apt-get install mesa-vulkan-drivers"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
}

#[test]
fn cli_under_an_address_space_limit_ends_with_a_sentence_never_hangs() {
    // glslang's initialiser fails (out of memory) holding its global lock; finalising the compiler
    // then deadlocked. Whatever the limit does, the process must end and say something.
    // One case: with two compiled on two threads, an out-of-memory glslang can still deadlock the
    // other thread (docs/design/faults.md, a known limitation).
    let script = format!("ulimit -v 700000; exec {} --verify --filter fp64", env!("CARGO_BIN_EXE_perftest"));
    let mut child = Command::new("sh")
        .args(["-c", &script])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sh runs");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(90) {
            let _ = child.kill();
            panic!("perftest hung under `ulimit -v 700000`");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_ne!(status.code(), Some(101), "a panic: {stderr}");
    if !status.success() {
        assert!(stderr.starts_with("perftest: "), "an error says what happened: {status} {stderr}");
    }
}

#[test]
fn cli_a_broken_driver_manifest_is_no_usable_vulkan() {
    let dir = temp_dir("icd");
    let manifest = dir.join("broken_icd.json");
    std::fs::write(&manifest, "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": ").unwrap();
    let path = manifest.to_str().unwrap();
    let out = perftest(&["--filter", "fp32"], &[("VK_DRIVER_FILES", path), ("VK_ICD_FILENAMES", path)]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
    assert!(stderr.contains("driver manifest") || stderr.contains("mesa-vulkan-drivers"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_a_portability_driver_is_listed_and_runs() {
    // The loader hides a driver whose manifest says it is a portability implementation (MoltenVK's
    // does) from instances that do not ask for portability devices; perftest asks.
    let dir = temp_dir("portability");
    let manifest = dir.join("lvp_portability.json");
    // The library of the lavapipe manifest the tests run with (tools/lavapipe-env.sh sets it).
    let system = std::env::var("VK_DRIVER_FILES").expect("tools/lavapipe-env.sh sets VK_DRIVER_FILES");
    let icd: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&system).unwrap()).unwrap();
    let library = icd["ICD"]["library_path"].as_str().expect("a manifest names its library");
    std::fs::write(
        &manifest,
        format!(
            r#"{{"file_format_version": "1.0.1",
                "ICD": {{"library_path": "{library}", "api_version": "1.3.230", "is_portability_driver": true}}}}"#
        ),
    )
    .unwrap();
    let env = [("VK_DRIVER_FILES", manifest.to_str().unwrap())];
    let devices = perftest(&["--devices"], &env);
    assert_eq!(devices.status.code(), Some(0), "{}", text(&devices.stderr));
    assert!(text(&devices.stdout).starts_with("1: llvmpipe"), "{}", text(&devices.stdout));
    let out = perftest(&["--verify", "--validation", "--filter", "ALU fp32 FMA"], &env);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_a_device_name_after_a_double_dash_reaches_the_worker() {
    // `perftest [OPTIONS] -- DEVICE` once failed every case: the worker's own flag came after the `--`.
    let devices = Command::new(env!("CARGO_BIN_EXE_perftest")).arg("--devices").output().unwrap();
    let rows = text(&devices.stdout);
    let name = rows.lines().next().and_then(|row| row.split_whitespace().nth(1)).expect("a device row");
    let out = Command::new(env!("CARGO_BIN_EXE_perftest"))
        .args(["--filter", "ALU fp32 FMA", "--target-ms", "2", "--samples", "3", "--", name])
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("ALU fp32 FMA"), "{stdout}");
}

#[test]
fn cli_fleet_confirm_measures_a_suspect_again_on_this_host() {
    // A run of this device, then a fleet of it: the device itself (its UUID, this host) with its
    // rates halved in the file, and two peers on another host at ten times them. Measured again here,
    // alone, against the fleet's medians (no peer of its model on this host), it is slow: exit 16.
    let dir = temp_dir("confirm");
    let base = dir.join("base.json");
    let out = perftest(&["--family", "alu", "--quick", "--json", base.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    std::fs::remove_file(&base).unwrap();
    for (n, scale) in [(0, 0.5), (1, 10.0), (2, 10.0)] {
        let mut copy = run.clone();
        if n > 0 {
            copy["host"] = "elsewhere".into();
            copy["device"]["uuid"] = format!("{n:08x}-0000-0000-0000-000000000000").into();
        }
        for case in copy["cases"].as_array_mut().unwrap() {
            if let Some(rate) = case["rate"]["value"].as_f64() {
                case["rate"]["value"] = (rate * scale).into();
                // Steady samples, whatever a busy machine gave: the fleet judges the edit.
                case["samples_ms"] = serde_json::json!([10.0, 10.0, 10.0]);
                case["cv"] = 0.0.into();
            }
        }
        std::fs::write(dir.join(format!("gpu{n}.json")), copy.to_string()).unwrap();
    }
    let out = perftest(&["fleet", dir.to_str().unwrap(), "--confirm"], &[]);
    // Words as a reader sees them, wherever the verdict's lines wrap.
    let stdout = text(&out.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(16), "{stdout}{stderr}");
    assert!(stderr.contains("slow cases alone"), "{stderr}");
    assert!(stdout.contains("confirmed: ") && stdout.contains(": slow (families alu); alone: "), "{stdout}");
    assert!(
        stdout.contains("slower than the fleet's medians (no other GPU of its model on this host)"),
        "{stdout}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_fleet_confirm_never_reads_a_device_in_a_run_as_an_option() {
    // A suspect of this host whose PCI address in its file is an option: measured again, the name
    // reaches perftest as a device to look for (none has it: no run, exit 10), never as --output.
    let dir = temp_dir("confirm-name");
    let base = dir.join("base.json");
    let cases = ["--case", "ALU fp32 FMA", "--case", "ALU int32 multiply-add"];
    let settings = ["--target-ms", "1", "--samples", "3", "--json", base.to_str().unwrap()];
    let out = perftest(&[&cases[..], &settings].concat(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    std::fs::remove_file(&base).unwrap();
    let planted = dir.join("planted");
    for (n, scale) in [(0, 0.5), (1, 10.0), (2, 10.0)] {
        let mut copy = run.clone();
        copy["device"]["uuid"] = format!("{n:08x}-0000-0000-0000-000000000000").into();
        match n {
            0 => copy["device"]["pci"] = format!("--output={}", planted.display()).into(),
            _ => copy["host"] = "elsewhere".into(),
        }
        for case in copy["cases"].as_array_mut().unwrap() {
            case["rate"]["value"] = (case["rate"]["value"].as_f64().unwrap() * scale).into();
            case["samples_ms"] = serde_json::json!([10.0, 10.0, 10.0]);
        }
        std::fs::write(dir.join(format!("gpu{n}.json")), copy.to_string()).unwrap();
    }
    let out = perftest(&["fleet", dir.to_str().unwrap(), "--confirm"], &[]);
    assert_eq!(out.status.code(), Some(10), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!planted.exists(), "nothing written at the planted path");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A RAPL package counter under a fixture `/sys` that a thread advances at `watts` until `stop`.
fn rapl_at(root: &std::path::Path, watts: f64, stop: &std::sync::atomic::AtomicBool) {
    let dir = root.join("class/powercap/intel-rapl:0");
    let start = std::time::Instant::now();
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        let microjoules = (start.elapsed().as_secs_f64() * watts * 1e6) as u64;
        let temporary = dir.join("energy_uj.new");
        std::fs::write(&temporary, format!("{microjoules}\n")).unwrap();
        std::fs::rename(&temporary, dir.join("energy_uj")).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

#[test]
fn cli_energy_on_lavapipe_is_unknown_with_a_reason_or_measured_from_a_rapl_counter() {
    let dir = temp_dir("energy-rapl");
    let run = dir.join("run.json");
    let args =
        ["--energy", "--energy-window", "0.5", "--case", "ALU fp32 FMA", "--json", run.to_str().unwrap()];
    // No RAPL counter under an empty /sys: the header says why, and the case still runs.
    let empty = dir.join("empty-sys");
    std::fs::create_dir_all(&empty).unwrap();
    let out = perftest(&args, &[("PERFTEST_SYS", empty.to_str().unwrap())]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("\nenergy:     unknown (no RAPL counter ("), "{stdout}");
    let kept: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    assert!(kept["cases"][0]["energy"].is_null() && kept["cases"][0]["rate"].is_object(), "{kept}");
    // A counter that a thread advances at 50 W: the run reads 50 W, and each FLOP's share.
    let sys = dir.join("sys");
    let rapl = sys.join("class/powercap/intel-rapl:0");
    std::fs::create_dir_all(&rapl).unwrap();
    std::fs::write(rapl.join("name"), "package-0\n").unwrap();
    std::fs::write(rapl.join("max_energy_range_uj"), "262143328850\n").unwrap();
    std::fs::write(rapl.join("energy_uj"), "0\n").unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let out = std::thread::scope(|scope| {
        scope.spawn(|| rapl_at(&sys, 50.0, &stop));
        let out = perftest(&args, &[("PERFTEST_SYS", sys.to_str().unwrap())]);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        out
    });
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("\nenergy:     RAPL package-0, each case's work held 0.5 s between two readings"),
        "{stdout}"
    );
    let kept: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    let idle = kept["energy"]["idle_w"].as_f64().unwrap();
    // The fixture's thread writes the counter every millisecond or so; on a loaded machine a write
    // comes late, by up to tens of milliseconds of the half-second window: 50 W within 20%.
    assert!((idle / 50.0 - 1.0).abs() < 0.2, "idle {idle} W");
    let energy = &kept["cases"][0]["energy"];
    let watts = energy["joules"].as_f64().unwrap() / energy["seconds"].as_f64().unwrap();
    assert!((watts / 50.0 - 1.0).abs() < 0.2, "{energy}");
    // How busy the CPU driver kept its "GPU" is this machine's load: a share, no more.
    let busy = energy["busy"].as_f64().unwrap();
    assert!(busy > 0.0 && busy <= 1.0, "{energy}");
    // Joules over the FLOPs of the measurements held in the window, each measurement's FLOPs the
    // rate times its median time: the code's arithmetic, whatever the machine's load made of the
    // rate while the window ran.
    let per_flop = energy["per_unit"][0]["value"].as_f64().unwrap() * 1e-12;
    let case = &kept["cases"][0];
    let flops = case["rate"]["value"].as_f64().unwrap() * case["median_ms"].as_f64().unwrap() / 1e3;
    let held = energy["joules"].as_f64().unwrap() / (flops * energy["measurements"].as_f64().unwrap());
    assert_eq!(energy["per_unit"][0]["unit"], "pJ/FLOP");
    assert!((per_flop / held - 1.0).abs() < 1e-9, "{energy} at {flops} FLOP a measurement");
    std::fs::remove_dir_all(dir).unwrap();
}
