//! CLI tests that need no Vulkan device: usage errors, `--list` and `--describe`, `compare` on
//! files, and a missing loader. They run anywhere; the device's own are in tests-gpu/.

mod common;

use common::{fleet_of_h200s, listed, perftest, temp_dir, text};
use perftest::registry;

#[test]
fn cli_bad_branch_range_is_a_usage_error() {
    let out = perftest(&["--branch-iterations", "8:0:8", "--list"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("expected FROM:TO:STEP"), "{stderr}");
}

/// A results file with one case at `rate` loads/s and quiet samples.
fn results_file(path: &std::path::Path, rate: f64) {
    let text = format!(
        r#"{{"format_version": 2, "perftest_version": "0.1.0", "date": "2026-11-21T02:00:00Z",
  "settings": {{"target_ms": 20.0, "samples": 3, "verify": false, "filter": null, "skip": []}},
  "device": {{"name": "H100", "type": "DiscreteGpu", "vendor_id": 4318, "device_id": 9008, "driver": "NVIDIA",
             "vulkan_version": "1.4.312", "queue_family": 0, "subgroup_size": 32, "timestamp_period_ns": 1.0}},
  "interrupted": false,
  "cases": [{{"name": "StructuredBuffer<float4>.Load linear", "family": "load", "status": "ok", "reason": null,
             "median_ms": 20.0, "min_ms": 19.99, "cv": 0.0005, "samples_ms": [20.0, 20.01, 19.99],
             "work": {{"value": 4e10, "unit": "loads"}}, "rate": {{"value": {rate}, "unit": "loads/s"}},
             "ratio": 1.08}}]}}"#
    );
    std::fs::write(path, text).unwrap();
}

#[test]
fn cli_compare_gives_verdicts_and_gates_on_slower_cases() {
    let dir = temp_dir("verdict");
    let (a, b, c) = (dir.join("a.json"), dir.join("b.json"), dir.join("c.json"));
    results_file(&a, 2.0e12);
    results_file(&b, 2.002e12);
    results_file(&c, 1.9e12);
    let arg = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let out = perftest(&["compare", &arg(&a), &arg(&b), "--fail-on-slower", "2"], &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("run 2 against run 1: 0 slower, 0 faster, 1 same"), "{stdout}");
    let out = perftest(&["compare", &arg(&a), &arg(&c), "--fail-on-slower", "2"], &[]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(11), "{stderr}");
    assert!(stdout.contains("(0.950x, slower)"), "{stdout}");
    assert!(stderr.contains("1 case got slower than in the first run by more than 2%"), "{stderr}");
    assert!(stderr.contains("\"StructuredBuffer<float4>.Load linear\" -5.0%"), "{stderr}");
    let out = perftest(&["compare", &arg(&a), &arg(&c), "--fail-on-slower", "6"], &[]);
    assert_eq!(out.status.code(), Some(0), "5% is within a 6% gate");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_without_a_loader_names_the_package() {
    let out = perftest(&["--devices"], &[("PERFTEST_VULKAN_LOADER", "/nonexistent/libvulkan.so.1")]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.starts_with("perftest: could not load the Vulkan loader"), "{stderr}");
    assert!(stderr.contains("apt-get install libvulkan1"), "{stderr}");
    // The dynamic loader's own words follow, once, as the cause.
    let causes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("  caused by: ")).collect();
    assert_eq!(causes.len(), 1, "{stderr}");
    assert!(causes[0].contains("/nonexistent/libvulkan.so.1"), "{stderr}");
}

#[test]
fn cli_families_take_any_case_and_a_typo_gets_a_suggestion() {
    let out = perftest(&["--family", "Load", "--list"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("Buffer<R8>.Load uniform\n"));
    let out = perftest(&["--family", "lod", "--list"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("'lod' for '--family <NAME>': is not a family (did you mean `load`?)"));
    let out = perftest(&["--axis", "sweep.byte=1M", "--list"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("has no axis `byte` (did you mean `bytes`?); its axes: bytes ("), "{stderr}");
    assert!(!stderr.contains("texture.format"), "only the family's own axes: {stderr}");
    assert!(stderr.len() < 600, "{} characters: {stderr}", stderr.len());
}

#[test]
fn cli_bad_option_value_is_a_usage_error() {
    let out = perftest(&["--samples", "0"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--samples"), "{}", text(&out.stderr));
}

#[test]
fn cli_describe_needs_no_vulkan() {
    let out = perftest(&["--describe"], &[("PERFTEST_VULKAN_LOADER", "/nonexistent/libvulkan.so.1")]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // An index of the families, then a paragraph per family, with the count --list gives for it.
    let (index, paragraphs) = stdout.split_once("\n\n").unwrap();
    let names = perftest::registry::family_names();
    assert!(index.starts_with(&format!("{} families, ", names.len())), "{index}");
    for (i, family) in names.into_iter().enumerate() {
        let count = listed(&["--family", family]);
        assert!(index.contains(&format!(" {family} {count}")), "{family} {count}: {index}");
        let heading = format!("{family} ({count} case{} selected)\n", if count == 1 { "" } else { "s" });
        assert!(paragraphs.contains(&heading), "{heading}: {stdout}");
        assert!(i > 0 || paragraphs.starts_with(&heading), "the first family comes first: {stdout}");
    }
}

#[test]
fn cli_list_needs_no_vulkan() {
    let out = perftest(&["--list"], &[("PERFTEST_VULKAN_LOADER", "/nonexistent/libvulkan.so.1")]);
    assert_eq!(out.status.code(), Some(0));
    let names: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    let all = registry::all();
    let registered: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, registered);
}

#[test]
fn cli_fleet_names_the_slow_gpu_a_suspect_until_confirmed_and_exits_19() {
    let dir = temp_dir("fleet");
    fleet_of_h200s(&dir, 0.05);
    let out = perftest(&["fleet", dir.to_str().unwrap()], &[]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(19), "{stdout}{stderr}");
    assert!(stdout.contains("group 1: NVIDIA H200 (NVIDIA 580.159.04), 8 devices"), "{stdout}");
    assert!(stdout.contains("    1. node07/0000:20:00.0: "), "GPU 5 ranked first: {stdout}");
    assert!(
        stderr.contains("1 GPU slow beyond the tolerance in these runs, not yet measured again alone: node07/0000:20:00.0 ("),
        "{stderr}"
    );
    assert!(stderr.contains("run `perftest fleet --confirm`"), "{stderr}");
    // The others, and the same fleet without the slow GPU, pass.
    assert!(stdout.lines().filter(|l| l.contains(": 0 slower, 0 faster")).count() == 7, "{stdout}");
    fleet_of_h200s(&dir, 0.0);
    let out = perftest(&["fleet", dir.to_str().unwrap(), "--format", "json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let verdict: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verdict["groups"][0]["outliers"].as_array().unwrap().len(), 0);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Rewrites the run in `path` with `edit`.
fn edit_run(path: &std::path::Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut run);
    std::fs::write(path, run.to_string()).unwrap();
}

#[test]
fn cli_fleet_fails_a_device_it_cannot_judge_with_exit_18() {
    let dir = temp_dir("unjudged");
    let gpu = |n: u64| dir.join(format!("node07-gpu{n}.json"));
    // Every case of GPU 2 failed with an error (a hung or lost one fails the GPU: exit 20,
    // tests/health_faults.rs).
    fleet_of_h200s(&dir, 0.0);
    edit_run(&gpu(2), |run| {
        for case in run["cases"].as_array_mut().unwrap() {
            case["status"] = "failed".into();
            case["reason"] = "vkAllocateMemory failed: ERROR_OUT_OF_DEVICE_MEMORY".into();
        }
    });
    let out = perftest(&["fleet", dir.to_str().unwrap()], &[]);
    let (stdout, stderr) = (words(&text(&out.stdout)), text(&out.stderr));
    assert_eq!(out.status.code(), Some(18), "{stdout}{stderr}");
    assert!(
        stdout.contains("cannot be judged: node07/0000:1d:00.0: no case was timed (128 selected"),
        "{stdout}"
    );
    // Another process on GPU 3 (NVML saw it), and GPU 4 left no run though its peers name it.
    fleet_of_h200s(&dir, 0.0);
    edit_run(&gpu(3), |run| {
        run["sharing"] = serde_json::json!({"watched": "NVML", "readings": 20, "shared_readings": 18,
            "others": [{"pid": 4242, "name": "python3", "memory_bytes": 1_213_202_432u64}]});
    });
    edit_run(&gpu(0), |run| {
        run["together"] = serde_json::json!([{"name": "NVIDIA H200", "slot": "0000:1f:00.0"}])
    });
    std::fs::remove_file(gpu(4)).unwrap();
    let out = perftest(&["fleet", dir.to_str().unwrap()], &[]);
    let (stdout, stderr) = (words(&text(&out.stdout)), text(&out.stderr));
    assert_eq!(out.status.code(), Some(18), "{stdout}{stderr}");
    assert!(
        stdout.contains("cannot be judged: node07/0000:1e:00.0: another process used its GPU in 18 of 20 readings (pid 4242 (python3, 1.1 GiB))"),
        "{stdout}"
    );
    assert!(stdout.contains("cannot be judged: node07/0000:1f:00.0 (NVIDIA H200): ran with the others on its host but left no run here"), "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_fleet_counts_one_gpu_once_and_skips_what_is_no_run() {
    let dir = temp_dir("once");
    fleet_of_h200s(&dir, 0.05);
    // GPU 5's file given twice, and a second run of GPU 5 (its UUID) under another name: one
    // device, still the suspect; a verdict left in the folder is skipped, named.
    let slow = dir.join("node07-gpu5.json");
    std::fs::copy(&slow, dir.join("node07-gpu5-again.json")).unwrap();
    std::fs::write(dir.join("fleet.json"), "{\"groups\": []}").unwrap();
    let out = perftest(&["fleet", dir.to_str().unwrap(), slow.to_str().unwrap()], &[]);
    let (stdout, stderr) = (words(&text(&out.stdout)), text(&out.stderr));
    assert_eq!(out.status.code(), Some(19), "{stdout}{stderr}");
    assert!(stdout.contains("8 devices"), "{stdout}");
    assert!(stdout.contains("2 runs of one GPU, 0.00% apart"), "{stdout}");
    assert!(stdout.contains("node07-gpu5.json was given twice: read once"), "{stdout}");
    assert!(stdout.contains("fleet.json is not a perftest results file (no format_version)"), "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_fleet_finds_one_slow_sm_in_a_gpu_alone() {
    // The committed H100 units run, SM 41's FMA rate lowered by 5%.
    let dir = temp_dir("slow-sm");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("results/fleet/h100-units.json")).unwrap();
    let healthy = dir.join("healthy.json");
    std::fs::write(&healthy, &text).unwrap();
    let out = perftest(&["fleet", healthy.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text_of(&out.stdout), text_of(&out.stderr));
    let mut run: serde_json::Value = serde_json::from_str(&text).unwrap();
    let fma =
        run["cases"].as_array_mut().unwrap().iter_mut().find(|c| c["name"] == "Units fp32 FMA").unwrap();
    let sm = fma["units"].as_array_mut().unwrap().iter_mut().find(|u| u["unit"] == 41).unwrap();
    sm["per_clock"] = (sm["per_clock"].as_f64().unwrap() * 0.95).into();
    let slowed = dir.join("slowed.json");
    std::fs::write(&slowed, run.to_string()).unwrap();
    let out = perftest(&["fleet", slowed.to_str().unwrap()], &[]);
    let stdout = words(&text_of(&out.stdout));
    assert_eq!(out.status.code(), Some(16), "{stdout}{}", text_of(&out.stderr));
    assert!(stdout.contains("compute units slower than their own GPU's others (1):"), "{stdout}");
    assert!(stdout.contains("Units fp32 FMA: unit 41 -5.0%"), "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// `text` with each run of white space one space: a verdict's lines wrap at 120 columns.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
