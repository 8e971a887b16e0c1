//! Hostile and careless use, round 4 (issue 47): a shared screen folder (markup in a unit, an
//! unbounded host name, more samples than a run takes), another user's FIFO at an output path,
//! outputs that cannot take a device's suffix, a profile's timestamp bits, numbers no renderer
//! should print, and a CSV field a spreadsheet would run. Each test failed before its fix; none
//! needs a Vulkan device.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{perftest, temp_dir, text};

/// A Vulkan loader that does not exist: a command that reached Vulkan would exit 3.
const NO_LOADER: (&str, &str) = ("PERFTEST_VULKAN_LOADER", "/nonexistent/libvulkan.so.1");

/// The committed H200 instruction-table run, edited by `edit`, written to `path`.
fn edited(path: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("results/instructions/h200-instr-vulkan.json")).unwrap();
    let mut run: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut run);
    std::fs::write(path, run.to_string()).unwrap();
}

/// An edit of a run, what it is, and what its refusal says.
type Edit = (&'static str, Box<dyn Fn(&mut serde_json::Value)>, &'static str);

fn first_timed(run: &mut serde_json::Value) -> &mut serde_json::Value {
    run["cases"].as_array_mut().unwrap().iter_mut().find(|c| c["status"] == "ok").unwrap()
}

#[test]
fn hostile_a_run_in_a_screen_folder_cannot_plant_markup_or_bloat_the_verdict() {
    let dir = temp_dir("hostile4-fleet");
    let run = dir.join("planted.json");
    let cases: [Edit; 5] = [
        (
            "a unit that is markup",
            Box::new(|r| first_timed(r)["rate"]["unit"] = "<img src=x onerror=alert(1)>".into()),
            "has a unit perftest does not write",
        ),
        (
            "markup as a compute unit's name",
            Box::new(|r| {
                first_timed(r)["per_clock"] = serde_json::json!([{"value": 1.0, "unit": "ops/clk/<b>SM</b>"}])
            }),
            "has a unit perftest does not write",
        ),
        (
            "an endless host",
            Box::new(|r| r["host"] = "h".repeat(5000).into()),
            "has a host, device or clock field of 5000",
        ),
        (
            "an endless peer",
            Box::new(|r| {
                r["together"] = serde_json::json!([{"name": "x".repeat(2000), "slot": "0000:1b:00.0"}])
            }),
            "has a name of 2000 characters for the devices that ran together",
        ),
        (
            "more samples than the run takes",
            Box::new(|r| first_timed(r)["samples_ms"] = serde_json::json!(vec![20.0; 11])),
            "has 11 samples for case",
        ),
    ];
    for (what, edit, says) in cases {
        edited(&run, edit);
        let out = perftest(&["fleet", dir.to_str().unwrap(), "--format", "markdown"], &[NO_LOADER]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(10), "{what}: {stdout}{stderr}");
        assert!(stderr.contains(says), "{what}: {stderr}");
        assert!(stdout.is_empty(), "{what}: no verdict is written: {stdout}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn hostile_a_fifo_at_an_output_path_is_refused_or_fails_at_once_never_blocks() {
    let dir = temp_dir("hostile4-fifo");
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
fn hostile_numbers_a_renderer_prints_are_checked_on_load() {
    let dir = temp_dir("hostile4-numbers");
    let run = dir.join("run.json");
    let edits: [Edit; 4] = [
        (
            "a negative peak",
            Box::new(|r| r["facts"]["peaks"][0]["per_clock"] = (-256.0).into()),
            "impossible peak",
        ),
        (
            "a 309-digit peak",
            Box::new(|r| r["facts"]["peaks"][0]["per_clock"] = 1e308.into()),
            "impossible peak",
        ),
        (
            "a throttled flag at -1e308 MHz",
            Box::new(|r| {
                first_timed(r)["flags"] =
                    serde_json::json!([{"throttled": {"mhz": -1e308, "median_mhz": 1980.0}}])
            }),
            "impossible flag's number",
        ),
        (
            "a negative case peak",
            Box::new(|r| {
                first_timed(r)["peak"] = serde_json::json!({"ceiling": "L1", "value": -51.2, "unit": "GB/s"})
            }),
            "impossible peak",
        ),
    ];
    for (what, edit, says) in edits {
        edited(&run, edit);
        let out = perftest(&["show", run.to_str().unwrap()], &[NO_LOADER]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(10), "{what}: {stderr}");
        assert!(stderr.contains(says), "{what}: {stderr}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn hostile_a_csv_field_never_starts_a_formula() {
    let dir = temp_dir("hostile4-csv");
    let run = dir.join("run.json");
    edited(&run, |r| first_timed(r)["name"] = "=HYPERLINK(\"http://x\",\"y\")".into());
    let out = perftest(&["show", run.to_str().unwrap(), "--format", "csv"], &[NO_LOADER]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(stdout.contains(",\"'=HYPERLINK("), "the field starts with a quote mark: {stdout}");
    assert!(!stdout.contains(",=HYPERLINK(") && !stdout.contains(",\"=HYPERLINK("), "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn hostile_all_devices_outputs_that_take_no_suffix_are_refused_before_vulkan() {
    for path in ["/dev/null", "/dev/stdout"] {
        let out = perftest(&["--all-devices", "--json", path], &[NO_LOADER]);
        let stderr = text(&out.stderr);
        // Exit 2 before any device: a command that reached Vulkan would exit 3.
        assert_eq!(out.status.code(), Some(2), "{path}: {stderr}");
        assert!(stderr.contains(&format!("--json {path} cannot take each device's suffix")), "{stderr}");
        assert!(!Path::new(&format!("{path}-gpu1")).exists(), "{path}-gpu1 was created");
    }
}

#[test]
fn hostile_a_profile_with_too_few_timestamp_bits_is_refused() {
    let dir = temp_dir("hostile4-profile");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text_of = std::fs::read_to_string(root.join("tests/profiles/vulkan-minimum.json")).unwrap();
    let profile = dir.join("bits.json");
    std::fs::write(&profile, text_of.replace("\"timestampValidBits\": 36", "\"timestampValidBits\": 16"))
        .unwrap();
    let out = perftest(&["--simulate", profile.to_str().unwrap(), "--list"], &[NO_LOADER]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "timestampValidBits = 16, outside what the Vulkan specification allows (0, or 36 to 64)"
        ),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
