//! The binary's command line on a Vulkan device: what a user sees from a run, show, compare,
//! the --all-devices folder, Ctrl-C and SIGTERM, a broken driver or an address-space limit,
//! fleet --confirm, and energy where no sensor is. Each test runs `perftest` as a process.

use std::process::Command;

use super::common::{listed, perftest, temp_dir, text};

/// Two families' cases through the command line: every case is verified under the validation
/// layer by `every_case_verifies_against_its_cpu_reference`, and through the command line by the
/// main job (ci/main-job.sh) at three subgroup sizes and on three other drivers.
#[test]
fn cli_verify_with_validation_passes_quietly() {
    let out = perftest(&["--verify", "--validation", "--verbose", "--family", "alu,load"], &[]);
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
    let mut child = super::common::command()
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
    let mut child = super::common::command()
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
    super::common::signal(child.id(), rustix::process::Signal::INT);
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
fn cli_two_stop_signals_before_the_first_case_end_130_with_a_document() {
    // A user who sees nothing while pipelines build presses Ctrl-C, then stops it harder.
    let dir = temp_dir("two-signals");
    let file = dir.join("run.json");
    // An empty cache folder: the shaders are compiled, not read back from an earlier run's SPIR-V.
    let child = super::common::command()
        .args(QUICK)
        .arg("--json")
        .arg(&file)
        .env("XDG_CACHE_HOME", &dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    // 0.3 s in, the pipelines building; the second signal at once after the first. A run stopped
    // before its first case ends about 0.1 s after the first signal on lavapipe, so a second sent
    // 50-200 ms later could come as the process exited and never be handled. The second is a
    // SIGTERM: two signals of one kind sent together may reach the process as one.
    std::thread::sleep(std::time::Duration::from_millis(300));
    super::common::signal(child.id(), rustix::process::Signal::INT);
    super::common::signal(child.id(), rustix::process::Signal::TERM);
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
    // The host's name given: any host's own may be no DNS label (and is then left out).
    let args = ["--all-devices", "--filter", "ALU fp32 FMA", "--target-ms", "2", "--json", &folder];
    let out = perftest(&args, &[("PERFTEST_HOST_NAME", "citest")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        dir.join("citest-gpu1.json").is_file(),
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
    let child = super::common::command()
        .args(["--family", "branch", "--axis", "branch.n=0:1024:8", "--target-ms", "5", "--samples", "3"])
        .args(["--format", "json", "--output"])
        .arg(&file)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    std::thread::sleep(std::time::Duration::from_secs(8));
    super::common::signal(child.id(), rustix::process::Signal::TERM);
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
    let child = super::common::command()
        .args(QUICK)
        .args(["--target-ms", "5", "--samples", "3", "--format", "json", "--output"])
        .arg(&file)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    std::thread::sleep(std::time::Duration::from_secs(4));
    super::common::signal(child.id(), rustix::process::Signal::INT);
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
    // As many as the registry's list holds (it is held to the registry).
    let named =
        include_str!("../src/cases/list.txt").lines().filter(|l| l.to_lowercase().contains("sin")).count();
    let said = format!("), but {named} case names do: run them with --filter sin; pick one of:");
    assert!(named >= 2 && stderr.contains(&said), "{stderr}");
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
    let mut child = super::common::clean(&mut Command::new("sh"))
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
    let devices = super::common::command().arg("--devices").output().unwrap();
    let rows = text(&devices.stdout);
    let name = rows.lines().next().and_then(|row| row.split_whitespace().nth(1)).expect("a device row");
    let out = super::common::command()
        .args(["--filter", "ALU fp32 FMA", "--target-ms", "2", "--samples", "3", "--", name])
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("ALU fp32 FMA"), "{stdout}");
}

#[test]
fn cli_the_pipeline_cache_and_the_spirv_are_kept_between_runs_and_broken_ones_replaced() {
    let dir = temp_dir("pipeline-cache");
    let home = dir.to_str().unwrap();
    let args = ["--filter", "ALU fp32 FMA", "--target-ms", "1", "--samples", "3"];
    let out = perftest(&args, &[("XDG_CACHE_HOME", home)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let name = |path: &std::path::Path| path.file_name().unwrap().to_string_lossy().into_owned();
    // The dispatch counts kept beside them have a test of their own.
    let mut files: Vec<_> = std::fs::read_dir(dir.join("perftest"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !name(p).starts_with("counts-"))
        .collect();
    files.sort();
    let [pipelines, spirv_folder] = &files[..] else {
        panic!("the pipelines and a SPIR-V folder: {files:?}")
    };
    assert!(name(pipelines).starts_with("pipelines-") && name(pipelines).ends_with(".bin"), "{files:?}");
    assert!(name(spirv_folder).starts_with("spirv-"), "{files:?}");
    // VkPipelineCacheHeaderVersionOne: its own length, 32 bytes, then version one.
    let header = |path: &std::path::Path| std::fs::read(path).unwrap().get(..8).map(<[u8]>::to_vec);
    assert_eq!(header(pipelines), Some([32, 0, 0, 0, 1, 0, 0, 0].to_vec()));
    // The case's shader and the warm-up's, each kept in a file of its own.
    let kept: Vec<_> = std::fs::read_dir(spirv_folder).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(kept.len() >= 2 && kept.iter().all(|p| name(p).ends_with(".spv")), "{kept:?}");
    let written = |path: &std::path::Path| std::fs::metadata(path).unwrap().modified().unwrap();
    let before: Vec<_> = kept.iter().map(|p| written(p)).collect();
    // A broken file is not the driver's, or shaderc's, to read: the run goes on and keeps good ones;
    // the SPIR-V that was whole is read, not written again.
    std::fs::write(pipelines, b"not a pipeline cache").unwrap();
    std::fs::write(&kept[0], b"not SPIR-V").unwrap();
    let out = perftest(&args, &[("XDG_CACHE_HOME", home)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(header(pipelines), Some([32, 0, 0, 0, 1, 0, 0, 0].to_vec()));
    assert_eq!(header(&kept[0]).as_deref(), Some(&b"ptspirv1"[..]), "the broken one is replaced");
    for (path, before) in kept.iter().zip(before).skip(1) {
        assert_eq!(written(path), before, "{path:?} was read, not compiled again");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_the_counts_a_timed_run_settled_on_target_are_kept_for_the_next_and_a_broken_file_replaced() {
    use serde_json::Value;
    let dir = temp_dir("counts");
    let home = dir.to_str().unwrap();
    let record = dir.join("run.json");
    // The atomic family: cases that settle on lavapipe, their shaders compiled in under a second
    // (the ALU family's unrolled bodies took 25 s of the test's 39).
    let args =
        ["--family", "atomic", "--target-ms", "2", "--samples", "3", "--json", record.to_str().unwrap()];
    let cases = || -> Vec<Value> {
        let run: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
        run["cases"].as_array().unwrap().iter().filter(|c| c["status"] == "ok").cloned().collect()
    };
    // Whatever this machine's timing made of each case, the code decides from the record: a case
    // that settled on the target (0.8 to 1.25 times it) with nothing flagged is kept at its count
    // and median, one off the target is not.
    let on_target = |c: &Value| c["median_ms"].as_f64().is_some_and(|ms| (1.6..=2.5).contains(&ms));
    let clean = |c: &Value| c["flags"].as_array().is_none_or(|f| f.is_empty());
    let settled = |cases: &[Value]| cases.iter().any(|c| on_target(c) && clean(c));
    let check = |counts: &Value, cases: &[Value]| {
        assert_eq!(counts["format"], 1);
        for case in cases {
            let entry = &counts["counts"][case["name"].as_str().unwrap()];
            if on_target(case) && clean(case) {
                assert_eq!(entry["count"], case["dispatch"]["count"], "{case}");
                assert_eq!(entry["ms"], case["median_ms"], "{case}");
            } else if !on_target(case) {
                assert!(entry.is_null(), "off the target, not kept: {case}");
            }
        }
    };
    let kept = || -> Vec<std::path::PathBuf> {
        let files = std::fs::read_dir(dir.join("perftest")).unwrap().map(|e| e.unwrap().path());
        files.filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("counts-")).collect()
    };
    let read = |path: &std::path::Path| serde_json::from_slice::<Value>(&std::fs::read(path).unwrap());
    let out = perftest(&args, &[("XDG_CACHE_HOME", home)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    match &kept()[..] {
        [file] => {
            check(&read(file).unwrap(), &cases());
            // A file that is not this program's is not read: the run goes on and replaces it
            // where it settles a case.
            std::fs::write(file, b"{\"format\": 1, \"counts\": ").unwrap();
            let out = perftest(&args, &[("XDG_CACHE_HOME", home)]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            match read(file) {
                Ok(counts) => check(&counts, &cases()),
                Err(_) => assert!(!settled(&cases()), "a case settled on the target: the file is replaced"),
            }
        }
        [] => assert!(!settled(&cases()), "a case settled on the target: its count is kept"),
        more => panic!("one file for the one device: {more:?}"),
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_other_data_runs_only_when_asked_and_verifies() {
    // Without the data axis, no case on other data.
    let plain = perftest(&["--list", "--family", "alu,shared,sweep"], &[]);
    assert!(!text(&plain.stdout).contains(" on "), "{}", text(&plain.stdout));
    let other = "zeros,constant,random";
    let (alu, shared, sweep) =
        (format!("alu.data={other}"), format!("shared.data={other}"), format!("sweep.data={other}"));
    let out = perftest(
        &[
            "--verify",
            "--validation",
            "--family",
            "alu,shared,sweep",
            "--axis",
            &alu,
            "--axis",
            &shared,
            "--axis",
            &sweep,
            "--axis",
            "sweep.bytes=16K,1M",
        ],
        &[],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    // fp32 and fp16 chains, shared memory, two sizes of the sweep: each on three data.
    assert_eq!(stdout.matches("verified (").count(), 3 * (2 + 1 + 2), "{stdout}");
    for name in [
        "ALU fp16 FMA (f16vec2) on a constant",
        "Shared vec4 on zeros",
        "Sweep SSBO vec4 linear on random data 1 MiB",
    ] {
        assert!(stdout.contains(&format!("\n{name} ")), "{name}: {stdout}");
    }
}
