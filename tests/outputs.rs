//! Outputs a careless or hostile command names: an output that is one of its inputs, two outputs
//! (or an output and a profile) that are one file, a FIFO another user planted, and
//! `--all-devices` outputs that cannot take a device's suffix. Each is refused before Vulkan or
//! fails at once, never overwrites or blocks. None needs a Vulkan device.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{arg, edited, perftest, plain, temp_dir, text, NO_LOADER};

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
