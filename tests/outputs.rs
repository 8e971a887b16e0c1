//! Outputs a careless or hostile command names: an output that is one of its inputs, two outputs
//! (or an output and a profile) that are one file, a FIFO another user planted, and
//! `--all-devices` outputs that cannot take a device's suffix. Each is refused before Vulkan or
//! fails at once, never overwrites or blocks. None needs a Vulkan device.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{perftest, temp_dir, text};

/// A Vulkan loader that does not exist: a command that reached Vulkan would exit 3.
const NO_LOADER: (&str, &str) = ("PERFTEST_VULKAN_LOADER", "/nonexistent/libvulkan.so.1");

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A format-6 results file: `cases` sweep cases of `variants` variants over working sets from
/// 16 KiB up (a line panel on a log axis), with `name` for the first case and the device.
fn results(path: &Path, device: &str, first: &str, variants: usize, sizes: usize) {
    let mut cases = Vec::new();
    for v in 0..variants {
        for s in 0..sizes {
            let bytes = 16384u64 << (2 * s);
            let name = if v + s == 0 { first.to_owned() } else { format!("Sweep v{v} {bytes}") };
            let rate = 1e12 / (1.0 + s as f64) * (1.0 + v as f64 / 10.0);
            cases.push(serde_json::json!({
                "name": name, "family": "sweep", "group": "sweep vec4", "variant": format!("Sweep v{v}"),
                "axes": {"bytes": bytes}, "status": "ok", "reason": null,
                "median_ms": 20.0, "min_ms": 19.9, "cv": 0.001, "samples_ms": [20.0, 19.9, 20.1],
                "work": {"value": rate * 0.02, "unit": "loads"},
                "rate": {"value": rate, "unit": "loads/s"},
                "rates": [{"value": rate, "unit": "loads/s"}, {"value": rate * 16.0, "unit": "B/s"}],
                "ratio": null, "clock_mhz": 1980.0
            }));
        }
    }
    let run = serde_json::json!({
        "format_version": 6, "perftest_version": "0.1.0", "date": "2026-11-24T02:00:00Z",
        "settings": {"target_ms": 20.0, "samples": 3, "verify": false, "filter": null, "skip": []},
        "device": {"name": device, "type": "DiscreteGpu", "vendor_id": 4318, "device_id": 9008,
                   "driver": "NVIDIA 580", "vulkan_version": "1.4.312", "queue_family": 0,
                   "subgroup_size": 32, "timestamp_period_ns": 1.0},
        "header": "perftest 0.1.0\ndevice:     H100",
        "interrupted": false, "cases": cases
    });
    std::fs::write(path, serde_json::to_string(&run).unwrap()).unwrap();
}

fn plain(path: &Path) {
    results(path, "H100", "Buffer<R8>.Load uniform", 2, 3);
}

/// The committed H200 instruction-table run, edited by `edit`, written to `path`.
fn edited(path: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("results/instructions/h200-instr-vulkan.json")).unwrap();
    let mut run: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut run);
    std::fs::write(path, run.to_string()).unwrap();
}

#[test]
fn no_output_may_be_one_of_the_inputs() {
    let dir = temp_dir("clobber");
    let (keep, other) = (dir.join("keep.json"), dir.join("a.json"));
    plain(&keep);
    plain(&other);
    let original = std::fs::read(&keep).unwrap();
    std::fs::hard_link(&keep, dir.join("hard.json")).unwrap();
    std::os::unix::fs::symlink(&keep, dir.join("soft.json")).unwrap();
    let (hard, soft) = (dir.join("hard.json"), dir.join("soft.json"));
    let report = dir.join("rep");
    std::fs::create_dir_all(&report).unwrap();
    std::fs::copy(&keep, report.join("report.md")).unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["compare", arg(&keep), arg(&other), "--output", arg(&keep)],
        vec!["show", arg(&keep), "--format", "csv", "--output", arg(&keep)],
        vec!["show", arg(&soft), "--output", arg(&keep)],
        vec!["plot", arg(&keep), "--output", arg(&hard)],
        vec!["compare", arg(&other), arg(&soft), "--output", arg(&hard)],
    ];
    for args in &commands {
        let out = perftest(args, &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("is the same file as the results file"), "{stderr}");
        assert!(stderr.contains("nothing was read or written"), "{stderr}");
        assert_eq!(std::fs::read(&keep).unwrap(), original, "{args:?} left the input as it was");
    }
    let input = report.join("report.md");
    let out = perftest(&["report", arg(&input), "--output", arg(&report)], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&input).unwrap(), original);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_runs_two_outputs_and_its_profile_are_told_apart_before_vulkan() {
    let dir = temp_dir("run-clobber");
    let file = dir.join("F.json");
    std::fs::write(&file, "kept").unwrap();
    let out = perftest(&["--json", arg(&file), "--output", arg(&file)], &[NO_LOADER]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "refused before Vulkan is loaded: {stderr}");
    assert!(stderr.contains("--json") && stderr.contains("is the same file as --output"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
    let profile = dir.join("mali.json");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/profiles/mali-g78.json");
    std::fs::copy(&fixture, &profile).unwrap();
    let args = ["--simulate", arg(&profile), "--format", "json", "--output", arg(&profile)];
    let out = perftest(&args, &[NO_LOADER]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is the same file as the --simulate profile"), "{stderr}");
    assert_eq!(std::fs::read(&profile).unwrap(), std::fs::read(&fixture).unwrap());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_fifo_at_an_output_path_is_refused_or_fails_at_once_never_blocks() {
    let dir = temp_dir("fifo");
    let run = dir.join("run.json");
    edited(&run, |_| {});
    let fifo = dir.join("out.json");
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
    // Nobody reads it: an error in a moment, naming why, not a hang.
    let start = Instant::now();
    let out = perftest(&["show", run.to_str().unwrap(), "--output", fifo.to_str().unwrap()], &[NO_LOADER]);
    let stderr = text(&out.stderr);
    assert!(start.elapsed() < Duration::from_secs(20), "it returned");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("it is a FIFO that no process is reading"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn all_devices_outputs_that_take_no_suffix_are_refused_before_vulkan() {
    for path in ["/dev/null", "/dev/stdout"] {
        let out = perftest(&["--all-devices", "--json", path], &[NO_LOADER]);
        let stderr = text(&out.stderr);
        // Exit 2 before any device: a command that reached Vulkan would exit 3.
        assert_eq!(out.status.code(), Some(2), "{path}: {stderr}");
        assert!(stderr.contains(&format!("--json {path} cannot take each device's suffix")), "{stderr}");
        assert!(!Path::new(&format!("{path}-gpu1")).exists(), "{path}-gpu1 was created");
    }
}
