//! `perftest health` measuring for real on this device, with a fake `scontrol` that logs what it
//! is asked (issue 58): the verdict is decided and the node drained before anything is written;
//! a GPU that lost the device fails and drains; its perftest gets the reference's settings and
//! nothing from the environment, and a name in the reference is never an option; a stop signal
//! to it or to its perftest ends both and drains nothing. Each reference is made from three
//! runs of this device and scaled so that the verdict does not depend on the machine's load.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::common::{arg, fake_scontrol};
use super::{perftest, temp_dir, text};

/// A reference from a short run of two ALU cases on this device, as three runs, made once.
fn made() -> &'static serde_json::Value {
    static MADE: OnceLock<serde_json::Value> = OnceLock::new();
    MADE.get_or_init(|| {
        let dir = temp_dir("health-made");
        let runs = dir.join("runs");
        std::fs::create_dir_all(&runs).unwrap();
        let json = runs.join("run1.json");
        let args = [
            "--case",
            "ALU fp32 FMA",
            "--case",
            "ALU int32 multiply-add",
            "--target-ms",
            "1",
            "--samples",
            "3",
        ];
        let out = perftest(&[&args[..], &["--json", arg(&json)]].concat(), &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        quiet(&json);
        // The one run three times: three runs of lavapipe on a busy machine can spread past any
        // tolerance, and the tests scale the reference's medians 10x or 0.1x.
        for n in 2..=3 {
            std::fs::copy(&json, runs.join(format!("run{n}.json"))).unwrap();
        }
        let reference = dir.join("reference.json");
        let out = perftest(&["fleet", arg(&runs), "--write-reference", arg(&reference)], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let value = serde_json::from_str(&std::fs::read_to_string(&reference).unwrap()).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
        value
    })
}

/// Makes every sample of the run at `path` its case's median: lavapipe on a busy machine can
/// spread past the 3% cv a fleet judges (a reference of a run too noisy to judge is refused), and
/// what these tests hold is health's logic, not this machine's load. The rates are the measured
/// ones.
fn quiet(path: &Path) {
    let mut run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for case in run["cases"].as_array_mut().unwrap() {
        let Some(median) = case["median_ms"].as_f64() else { continue };
        if let Some(samples) = case["samples_ms"].as_array_mut() {
            samples.iter_mut().for_each(|s| *s = median.into());
        }
        case["min_ms"] = median.into();
        if case.get("cv").is_some_and(|cv| !cv.is_null()) {
            case["cv"] = 0.0.into();
        }
    }
    std::fs::write(path, serde_json::to_string(&run).unwrap()).unwrap();
}

/// The reference with every median times `scale` (10: no GPU meets it; 0.1: any meets it), in
/// `dir`, after `edit`.
fn reference(dir: &Path, scale: f64, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let mut value = made().clone();
    for model in value["models"].as_array_mut().unwrap() {
        for case in model["cases"].as_array_mut().unwrap() {
            for field in ["median", "spread"] {
                case[field] = (case[field].as_f64().unwrap() * scale).into();
            }
        }
    }
    edit(&mut value);
    let path = dir.join("reference.json");
    std::fs::write(&path, value.to_string()).unwrap();
    path
}

/// The calls the fake `scontrol` logged.
fn drains(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log).unwrap_or_default().lines().map(str::to_owned).collect()
}

#[test]
fn health_drains_first_and_a_write_that_fails_changes_no_verdict() {
    // A verdict that drains whatever the machine's load: the device lost at once (Mesa's
    // timeout of 1 ms), so its perftest exits 8 before it measures.
    let dir = temp_dir("health-write");
    let easy = reference(&dir, 0.1, |_| {});
    let (path, log) = fake_scontrol(&dir);
    let metrics = dir.join("no-such-folder").join("perftest.prom");
    let args = ["health", "--reference", arg(&easy), "--drain", "--metrics", arg(&metrics)];
    let env = [("PATH", path.to_str().unwrap()), ("SLURMD_NODENAME", "citest"), ("MESA_VK_MAX_TIMEOUT", "1")];
    let out = perftest(&args, &env);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(20), "the verdict's code: {stdout}{stderr}");
    assert!(stdout.starts_with("failed: "), "the verdict printed: {stdout}");
    assert!(stderr.contains("could not write") && stderr.contains("(the verdict below stands)"), "{stderr}");
    let calls = drains(&log);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert!(
        calls[0].starts_with("update|NodeName=citest|State=DRAIN|Reason=perftest health: GPU failed: "),
        "{calls:?}"
    );
    // Its stdout closed too (the log's disk gone): drained all the same, the verdict's code.
    let mut child = super::common::command()
        .args(args)
        .envs(env)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    assert_eq!(child.wait().unwrap().code(), Some(20));
    assert_eq!(drains(&log).len(), 2, "{:?}", drains(&log));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn health_fails_and_drains_a_gpu_that_lost_the_device() {
    let dir = temp_dir("health-lost");
    let easy = reference(&dir, 0.1, |_| {});
    let (path, log) = fake_scontrol(&dir);
    let env = [("PATH", path.to_str().unwrap()), ("SLURMD_NODENAME", "citest"), ("MESA_VK_MAX_TIMEOUT", "1")];
    let out = perftest(&["health", "--reference", arg(&easy), "--drain"], &env);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(20), "{stdout}{stderr}");
    assert!(stdout.starts_with("failed: this node's llvmpipe"), "{stdout}");
    // Lost while it warmed up (8), or its worker crashed tearing the lost device down (14).
    let lost = ": perftest exited 8 before it measured (the GPU was lost while a case ran)";
    let crashed = ": perftest exited 14 before it measured (a case crashed or hung the driver)";
    assert!(stdout.contains(lost) || stdout.contains(crashed), "{stdout}");
    let calls = drains(&log);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert!(calls[0].contains("|Reason=perftest health: GPU failed: this node's "), "{calls:?}");
    // As a node-problem-detector plugin: a problem, 1.
    let out = perftest(&["health", "--reference", arg(&easy), "--npd"], &env);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn health_hands_its_perftest_the_references_settings_and_no_name_as_an_option() {
    let dir = temp_dir("health-settings");
    let easy = reference(&dir, 0.1, |_| {});
    // The options' variables in slurmd's environment do not reach the perftest it runs.
    let env = [
        ("PERFTEST_FORMAT", "json"),
        ("PERFTEST_FILTER", "no such case"),
        ("PERFTEST_SAMPLES", "999"),
        ("PERFTEST_TARGET_MS", "100"),
    ];
    let kept = dir.join("kept");
    let out = perftest(&["health", "--reference", arg(&easy), "--keep", arg(&kept)], &env);
    let stdout = text(&out.stdout);
    // Its verdict is what this machine's load makes of the rates (healthy, or too noisy to judge);
    // what it measured is the code's: the reference's cases and settings, kept in its run.
    assert!(matches!(out.status.code(), Some(0 | 18)), "{stdout}{}", text(&out.stderr));
    let check = std::fs::read_dir(&kept).unwrap().next().unwrap().unwrap().path();
    let found = perftest::results::files::gather(&[check], perftest::results::files::Depth::Any).unwrap();
    assert_eq!(found.files.len(), 1, "{:?}", found.files);
    let run = perftest::results::load(&found.files[0]).unwrap_or_else(|e| panic!("{e}"));
    let expected: perftest::results::model::Settings =
        serde_json::from_value(made()["models"][0]["settings"].clone()).unwrap();
    assert_eq!(run.settings, expected, "the reference's settings, none of the environment's");
    let names: Vec<&str> = run.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["ALU fp32 FMA", "ALU int32 multiply-add"]);
    // A model's name that is an option, and a filter that is one: values, never options.
    let planted = dir.join("planted");
    let named = reference(&dir, 0.1, |r| {
        let mut model = r["models"][0].clone();
        model["key"]["device"] = format!("--output={}", planted.display()).into();
        r["models"] = serde_json::json!([model]);
    });
    let out = perftest(&["health", "--reference", arg(&named)], &[]);
    assert_eq!(out.status.code(), Some(10), "no GPU of that name: {}", text(&out.stderr));
    let filtered = reference(&dir, 0.1, |r| {
        let model = &mut r["models"][0];
        let option = format!("--json={}", planted.display());
        model["settings"]["filter"] = option.clone().into();
        let key = model["key"]["settings"].as_str().unwrap().replacen(
            ", --case",
            &format!(", --filter {option}, --case"),
            1,
        );
        model["key"]["settings"] = key.into();
    });
    let out = perftest(&["health", "--reference", arg(&filtered)], &[]);
    assert_eq!(out.status.code(), Some(18), "a filter that matches nothing: {}", text(&out.stderr));
    assert!(!planted.exists(), "no file written at the planted path");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Starts `health --drain` against a reference whose cases take seconds each, in `dir` (its
/// temporary folders there too), and waits for its perftest and that one's worker to run:
/// the process, its perftest's pid and the worker's.
// The child is handed to the caller, which waits for it.
#[allow(clippy::zombie_processes)]
fn long_check(dir: &Path, log_path: &Path) -> (std::process::Child, u32, u32) {
    let slow = reference(dir, 0.1, |r| {
        let model = &mut r["models"][0];
        model["settings"]["samples"] = 200.into();
        model["settings"]["target_ms"] = 20.0.into();
        let key = model["key"]["settings"].as_str().unwrap();
        let rest = key.split_once(" samples").unwrap().1;
        model["key"]["settings"] = format!("20 ms per measurement, 200 samples{rest}").into();
    });
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let path = log_path.parent().unwrap().join("bin");
    let search = format!("{}:{}", path.display(), std::env::var("PATH").unwrap_or_default());
    let mut child = super::common::command()
        .args(["health", "--reference", arg(&slow), "--drain"])
        .env("PATH", search)
        .env("SLURMD_NODENAME", "citest")
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        let perftests = super::isolation::children(child.id());
        if let Some(&perftest) = perftests.first() {
            if let Some(&worker) = super::isolation::children(perftest).first() {
                return (child, perftest, worker);
            }
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("health started no perftest and worker in 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether process `pid` is gone (or a zombie no one will reap).
fn gone(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.is_empty() || stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z'))
}

#[test]
fn health_a_stop_signal_to_it_or_its_perftest_ends_both_and_drains_nothing() {
    for target in ["health", "its perftest"] {
        let dir = temp_dir(&format!("health-signal-{}", target.len()));
        let (_, log) = fake_scontrol(&dir);
        let (child, perftest, worker) = long_check(&dir, &log);
        let pid = if target == "health" { child.id() } else { perftest };
        super::common::signal(pid, rustix::process::Signal::TERM);
        let started = Instant::now();
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert!(started.elapsed() < Duration::from_secs(30), "{target}: took {:?}", started.elapsed());
        assert_eq!(out.status.code(), Some(130), "{target}: {stderr}");
        assert!(
            stderr.contains("perftest health was stopped by a signal before its verdict"),
            "{target}: {stderr}"
        );
        for pid in [perftest, worker] {
            let deadline = Instant::now() + Duration::from_secs(10);
            while !gone(pid) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            assert!(gone(pid), "{target}: process {pid} is left running");
        }
        let left: Vec<_> = std::fs::read_dir(dir.join("tmp")).unwrap().collect();
        assert!(left.is_empty(), "{target}: the temporary folder is left: {left:?}");
        assert!(drains(&log).is_empty(), "{target}: drained: {:?}", drains(&log));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
