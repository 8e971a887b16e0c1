//! The health check and the fleet fail closed, on files and with no device (issue 58): a GPU that
//! lost the device in one case fails; a verdict is printed before an output that cannot be
//! written, which changes nothing decided; `--drain` drains only the node Slurm names; outputs
//! never replace inputs; inputs are read with a bound and odd folder entries skipped; a host
//! name is one DNS label; a page holds no terminal commands; a reader that stops early is a
//! quiet end. The checks that measure run on lavapipe in tests-gpu/health.rs.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{arg, fake_scontrol, fleet_of_h200s, perftest, temp_dir, text, NO_LOADER};

/// A reference made from a healthy screen of eight H200s, at `dir/reference.json`.
fn reference(dir: &Path) -> PathBuf {
    let screen = dir.join("screen");
    std::fs::create_dir_all(&screen).unwrap();
    fleet_of_h200s(&screen, 0.0);
    let reference = dir.join("reference.json");
    let out = perftest(&["fleet", arg(&screen), "--write-reference", arg(&reference)], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    reference
}

#[test]
fn a_gpu_that_lost_the_device_in_one_case_fails_the_fleet() {
    let dir = temp_dir("faults-lost");
    fleet_of_h200s(&dir, 0.0);
    let file = dir.join("node07-gpu3.json");
    let mut run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let case = run["cases"].as_array_mut().unwrap().iter_mut().find(|c| c["status"] == "ok").unwrap();
    case["status"] = "device_lost".into();
    case["reason"] = "the driver lost the device".into();
    for field in ["rate", "median_ms", "samples_ms", "rates"] {
        case.as_object_mut().unwrap().remove(field);
    }
    std::fs::write(&file, run.to_string()).unwrap();
    let metrics = dir.join("fleet.prom");
    let out = perftest(&["fleet", arg(&dir), "--metrics", arg(&metrics)], &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(20), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("failed: node07/0000:1e:00.0: 1 of its 128 cases lost the device, crashed or hung"),
        "{stdout}"
    );
    let prom = std::fs::read_to_string(&metrics).unwrap();
    assert!(prom.contains("perftest_verdict{state=\"faulty\"} 1\n"), "{prom}");
    assert!(
        prom.contains("pci_bus_id=\"00000000:1E:00.0\",model_name=\"NVIDIA H200\",Hostname=\"node07\"} 0\n"),
        "{prom}"
    );
    // Such a screen makes no reference.
    let refused = dir.join("reference.json");
    let out = perftest(&["fleet", arg(&dir), "--write-reference", arg(&refused)], &[]);
    assert_eq!(out.status.code(), Some(20));
    assert!(!refused.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_fleets_verdict_is_printed_before_a_write_fails_and_stands() {
    let dir = temp_dir("faults-write");
    fleet_of_h200s(&dir, 0.05);
    let missing = dir.join("no-such-folder").join("fleet.prom");
    let out = perftest(&["fleet", arg(&dir), "--metrics", arg(&missing)], &[]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(19), "the verdict's code: {stderr}");
    assert!(stdout.starts_with("fleet: slow beyond the 2% tolerance"), "the verdict is printed: {stdout}");
    assert!(stderr.contains("could not write ") && stderr.contains("(the verdict below stands)"), "{stderr}");
    // A healthy screen whose metrics cannot be written: exit 1 (an output is missing), verdict printed.
    let healthy = temp_dir("faults-write-healthy");
    fleet_of_h200s(&healthy, 0.0);
    let out = perftest(&["fleet", arg(&healthy), "--metrics", arg(&missing)], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("fleet: no device is slow beyond"), "{}", text(&out.stdout));
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(healthy).unwrap();
}

#[test]
fn health_drains_only_the_node_slurm_names() {
    let dir = temp_dir("faults-drain");
    let reference = reference(&dir);
    let (path, log) = fake_scontrol(&dir);
    let path = path.to_str().unwrap();
    let args = ["health", "--reference", arg(&reference), "--drain"];
    for node in [None, Some(""), Some("node[01-99],login1"), Some("../etc"), Some("node 7")] {
        let mut env = vec![("PATH", path), NO_LOADER, ("PERFTEST_HOST_NAME", "node07")];
        env.extend(node.map(|n| ("SLURMD_NODENAME", n)));
        let out = perftest(&args, &env);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{node:?}: {stderr}");
        assert!(stderr.starts_with("perftest: SLURMD_NODENAME "), "{node:?}: {stderr}");
    }
    assert!(!log.exists(), "nothing was drained: {:?}", std::fs::read_to_string(&log));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn health_and_fleet_outputs_never_replace_their_inputs() {
    let dir = temp_dir("faults-outputs");
    let reference = reference(&dir);
    let before = std::fs::read(&reference).unwrap();
    let link = dir.join("link.prom");
    std::os::unix::fs::symlink(&reference, &link).unwrap();
    for metrics in [&reference, &link] {
        let out =
            perftest(&["health", "--reference", arg(&reference), "--metrics", arg(metrics)], &[NO_LOADER]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("is the same file as --reference"), "{stderr}");
    }
    let out = perftest(
        &[
            "fleet",
            arg(&dir.join("screen")),
            "--reference",
            arg(&reference),
            "--write-reference",
            arg(&reference),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&reference).unwrap(), before, "the reference is as it was");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_reference_is_read_with_a_bound_and_one_model_twice_is_refused() {
    let dir = temp_dir("faults-reference");
    let started = Instant::now();
    let out = perftest(&["health", "--reference", "/dev/zero"], &[NO_LOADER]);
    assert_eq!(out.status.code(), Some(10), "{}", text(&out.stderr));
    assert!(started.elapsed() < Duration::from_secs(10), "refused at once: {:?}", started.elapsed());
    assert!(text(&out.stderr).contains("/dev/zero is not JSON"), "{}", text(&out.stderr));
    let reference = reference(&dir);
    let mut twice: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&reference).unwrap()).unwrap();
    let model = twice["models"][0].clone();
    let mut other = model.clone();
    other["cases"][0]["median"] = (model["cases"][0]["median"].as_f64().unwrap() * 2.0).into();
    twice["models"].as_array_mut().unwrap().push(other);
    std::fs::write(&reference, twice.to_string()).unwrap();
    let one = dir.join("screen").join("node07-gpu2.json");
    let out = perftest(&["fleet", arg(&one), "--reference", arg(&reference)], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    assert!(stderr.contains("holds the model NVIDIA H200 (") && stderr.contains(") twice"), "{stderr}");
    // Settings that disagree with the key they were judged under, and an axis no perftest runs.
    for (field, value) in [("samples", serde_json::json!(7)), ("axes", serde_json::json!(["--output=/x"]))] {
        let mut edited = model.clone();
        edited["settings"][field] = value;
        if field == "axes" {
            edited["key"]["settings"] =
                format!("{}, --axis --output=/x", model["key"]["settings"].as_str().unwrap()).into();
        }
        let file = serde_json::json!({"perftest_reference": 1, "perftest_version": "0", "made": "", "models": [edited]});
        std::fs::write(&reference, file.to_string()).unwrap();
        let out = perftest(&["fleet", arg(&one), "--reference", arg(&reference)], &[]);
        assert_eq!(out.status.code(), Some(10), "{field}: {}", text(&out.stderr));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn history_skips_odd_entries_and_refuses_a_date_it_cannot_read() {
    let dir = temp_dir("faults-history");
    let runs = dir.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    fleet_of_h200s(&runs, 0.0);
    let odd = runs.join("odd");
    std::fs::create_dir_all(&odd).unwrap();
    let made = Command::new("mkfifo").arg(odd.join("fifo.json")).status().unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink(dir.join("gone.json"), odd.join("dangling.json")).unwrap();
    std::os::unix::fs::symlink(&runs, odd.join("folder.json")).unwrap();
    let mut child = common::command()
        .args(["history", arg(&runs)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("history hung on a FIFO");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for (name, why) in [
        ("fifo.json", "is a FIFO"),
        ("dangling.json", "is a link to nothing"),
        ("folder.json", "is a folder"),
    ] {
        assert!(stderr.contains(&format!("{name} {why}")), "{name}: {stderr}");
    }
    // A run whose date is no time: refused, naming it, rather than sorted as text.
    let file = runs.join("node07-gpu4.json");
    let mut run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    run["date"] = "yesterday".into();
    std::fs::write(&file, run.to_string()).unwrap();
    let out = perftest(&["history", arg(&runs)], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    assert!(
        stderr.contains("node07-gpu4.json has the date \"yesterday\", which is no RFC 3339 time"),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_host_name_is_one_dns_label_and_empty_is_unset() {
    let dir = temp_dir("faults-host");
    fleet_of_h200s(&dir, 0.0);
    let run = dir.join("node07-gpu1.json");
    for args in [&["show", arg(&run)][..], &["fleet", arg(&dir)], &["--list", "--family", "alu"]] {
        let out = perftest(args, &[("PERFTEST_HOST_NAME", ""), NO_LOADER]);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
    }
    let out = perftest(
        &["--all-devices", "--quick", "--json", &format!("{}/", dir.display())],
        &[("PERFTEST_HOST_NAME", "../../tmp/x"), NO_LOADER],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "refused before Vulkan: {stderr}");
    assert!(
        stderr
            .contains("PERFTEST_HOST_NAME=\"../../tmp/x\" is not usable: `../../tmp/x` is not one DNS label"),
        "{stderr}"
    );
    let out = perftest(&["--host-name", "node[01-99],login1", "--quick"], &[NO_LOADER]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    // A name given to `health` through the environment is checked the same way.
    let reference = reference(&temp_dir("faults-host-reference"));
    let out =
        perftest(&["health", "--reference", arg(&reference)], &[("PERFTEST_HOST_NAME", "a/b"), NO_LOADER]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).starts_with("perftest: PERFTEST_HOST_NAME `a/b` is not one DNS label"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn health_keeps_its_runs_through_no_link_another_user_planted() {
    if rustix::process::geteuid().as_raw() != 0 {
        eprintln!("skipped: making another user's link needs root");
        return;
    }
    let dir = temp_dir("faults-keep");
    let reference = reference(&dir);
    let shared = dir.join("tmp");
    std::fs::create_dir_all(&shared).unwrap();
    Command::new("chmod").args(["1777", arg(&shared)]).status().unwrap();
    let target = dir.join("victim");
    std::fs::create_dir_all(&target).unwrap();
    let link = shared.join("keep");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    std::os::unix::fs::lchown(&link, Some(65534), None).unwrap();
    let out = perftest(&["health", "--reference", arg(&reference), "--keep", arg(&link)], &[NO_LOADER]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("refusing to write") && stderr.contains("user 65534"), "{stderr}");
    assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0, "nothing made through the link");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_page_shows_terminal_commands_in_a_results_file_as_text() {
    let dir = temp_dir("faults-page");
    fleet_of_h200s(&dir, 0.0);
    let file = dir.join("node07-gpu1.json");
    let mut run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    run["device"]["name"] = "NVIDIA H200\u{1b}]0;owned\u{7}".into();
    run["cases"][0]["name"] = "Case \u{1b}[2J\u{7}".into();
    std::fs::write(&file, run.to_string()).unwrap();
    let page = dir.join("page");
    let out = perftest(&["report", arg(&file), "--output", arg(&page)], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for name in ["index.html", "report.md"] {
        let written = std::fs::read_to_string(page.join(name)).unwrap();
        assert!(!written.contains(['\u{1b}', '\u{7}']), "{name} keeps a raw ESC or BEL");
        assert!(written.contains("\\u{1b}"), "{name} shows it");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_reader_that_stops_early_is_a_quiet_end() {
    let dir = temp_dir("faults-pipe");
    fleet_of_h200s(&dir, 0.0);
    let run = dir.join("node07-gpu1.json");
    for args in [&["--list"][..], &["show", arg(&run)], &["fleet", arg(&dir)], &["--describe"]] {
        let mut child =
            common::command().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        // As `| head -0`: the reader gone before the first line (`| head -1` once a pipe's buffer is full).
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stderr), "", "{args:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
