//! A fleet's day on files, with no device: a reference made from a healthy screen and one GPU
//! judged against it, the metrics for Prometheus, `history` over a GPU's runs across a driver
//! update, and `health`'s endings for a bad reference (as itself and as a node-problem-detector
//! plugin). The health check that measures is run on lavapipe by ci/slurm.sh.

mod common;

use common::{fleet_of_h200s, perftest, temp_dir, text};

#[test]
fn one_gpu_is_judged_against_a_reference_made_from_a_healthy_screen() {
    let dir = temp_dir("reference");
    let screen = dir.join("screen");
    std::fs::create_dir_all(&screen).unwrap();
    fleet_of_h200s(&screen, 0.0);
    let reference = dir.join("reference.json");
    let out =
        perftest(&["fleet", screen.to_str().unwrap(), "--write-reference", reference.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("reference written to"), "{}", text(&out.stderr));
    let made: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&reference).unwrap()).unwrap();
    assert_eq!(made["models"][0]["devices"].as_array().unwrap().len(), 8);
    assert_eq!(made["models"][0]["cases"][0]["basis"], "devices");
    // GPU 5, 5% slow, alone against the reference: a suspect (exit 19), named against it.
    let slow = dir.join("slow");
    std::fs::create_dir_all(&slow).unwrap();
    fleet_of_h200s(&slow, 0.05);
    let one = slow.join("node07-gpu5.json");
    let metrics = dir.join("gpu5.prom");
    let args = ["fleet", one.to_str().unwrap(), "--reference", reference.to_str().unwrap()];
    let out = perftest(&[&args[..], &["--metrics", metrics.to_str().unwrap()]].concat(), &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(19), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("cases judged against the reference (made "), "{stdout}");
    assert!(stdout.contains("against the reference's "), "{stdout}");
    let prom = std::fs::read_to_string(&metrics).unwrap();
    let labels = "UUID=\"GPU-00000005-0000-0000-0000-000000000000\",pci_bus_id=\"00000000:20:00.0\",\
                  model_name=\"NVIDIA H200\",Hostname=\"node07\"";
    assert!(
        prom.contains(&format!("perftest_gpu_healthy{{{labels}}} 1\n")),
        "a suspect is not failed yet: {prom}"
    );
    assert!(prom.contains("perftest_verdict{state=\"unconfirmed\"} 1\n"), "{prom}");
    assert!(
        prom.lines().filter(|l| l.starts_with("perftest_case_rate{")).count() <= 70,
        "--quick cases only"
    );
    // A healthy GPU alone passes.
    let healthy = screen.join("node07-gpu2.json");
    let out =
        perftest(&["fleet", healthy.to_str().unwrap(), "--reference", reference.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // A screen that is not healthy writes no reference.
    let refused = dir.join("refused.json");
    let out =
        perftest(&["fleet", slow.to_str().unwrap(), "--write-reference", refused.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(19));
    assert!(text(&out.stderr).contains("no reference written"), "{}", text(&out.stderr));
    assert!(!refused.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_reference_past_belief_is_refused_and_health_says_so_as_a_plugin() {
    let dir = temp_dir("bad-reference");
    let bad = dir.join("reference.json");
    std::fs::write(&bad, r#"{"perftest_reference": 1, "perftest_version": "0", "made": "", "models": []}"#)
        .unwrap();
    let out = perftest(&["health", "--reference", bad.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(10), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("holds no model: make it again with perftest fleet --write-reference"));
    // As a node-problem-detector plugin: no verdict is "unknown", 2, and stdout (the condition's
    // message) one line that says why; so too for a command line clap refuses.
    let out = perftest(&["health", "--reference", bad.to_str().unwrap(), "--npd"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.starts_with("unknown: the results file ") && said.contains("holds no model"), "{said}");
    let out = perftest(&["health", "--npd", "--reference"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.starts_with("unknown: perftest health refused its command line: a value is required"),
        "{said}"
    );
    // A newer perftest's reference: exit 10, with what to do.
    std::fs::write(&bad, r#"{"perftest_reference": 7, "perftest_version": "9", "made": "", "models": []}"#)
        .unwrap();
    let out = perftest(&["health", "--reference", bad.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(10), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("newer than this perftest's 1: use a newer perftest"));
    std::fs::remove_dir_all(dir).unwrap();
}

/// The H200's instruction run as day `day` of a GPU's history: dated `date`, of GPU `uuid`, each
/// rate jittered by up to 0.2% (a fixed pattern) and scaled by `scale(day, case name)`.
fn day_of_history(day: u64, date: String, uuid: &str, scale: impl Fn(u64, &str) -> f64) -> serde_json::Value {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let base = std::fs::read_to_string(root.join("results/instructions/h200-instr-vulkan.json")).unwrap();
    let mut run: serde_json::Value = serde_json::from_str(&base).unwrap();
    run["date"] = date.into();
    run["device"]["uuid"] = uuid.into();
    for (i, case) in run["cases"].as_array_mut().unwrap().iter_mut().enumerate() {
        let jitter = 1.0 + ((day * 7919 + i as u64 * 104_729) % 41) as f64 / 40.0 * 0.004 - 0.002;
        let scale = scale(day, case["name"].as_str().unwrap_or_default());
        if let Some(rate) = case["rate"]["value"].as_f64() {
            case["rate"]["value"] = (rate * jitter * scale).into();
        }
    }
    run
}

#[test]
fn history_finds_a_step_at_a_driver_update_confirms_it_and_draws_it() {
    let dir = temp_dir("history");
    for day in 0..12u64 {
        // From day 7, a new driver and fp32 sin 3% slower.
        let date = format!("2026-11-{:02}T03:00:00Z", day + 1);
        let step =
            |day: u64, name: &str| if day >= 6 && name == "Instr fp32 sin throughput" { 0.97 } else { 1.0 };
        let mut run = day_of_history(day, date, "219f4fd4-6242-0000-0000-000000000000", step);
        if day >= 6 {
            run["device"]["driver"] = "NVIDIA 590.10".into();
        }
        let folder = dir.join(format!("day{day}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("node07-gpu1.json"), run.to_string()).unwrap();
    }
    let page = dir.join("page");
    let metrics = dir.join("history.prom");
    let args = ["history", dir.to_str().unwrap(), "--report", page.to_str().unwrap()];
    let out = perftest(&[&args[..], &["--metrics", metrics.to_str().unwrap()]].concat(), &[]);
    let stdout = text(&out.stdout);
    // A GPU that got slower and stayed so: exit 22, named with its largest change, after every
    // output was written.
    assert_eq!(out.status.code(), Some(22), "{stdout}{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("1 GPU got slower and stayed slower (a change confirmed by the runs after it): \
             NVIDIA H200 GPU-219f4fd4-6242-0000-0000-000000000000 (Instr fp32 sin throughput -3.0% from 2026-11-07)"),
        "{}",
        text(&out.stderr)
    );
    let prom = std::fs::read_to_string(&metrics).unwrap();
    let gpu = "UUID=\"GPU-219f4fd4-6242-0000-0000-000000000000\",model_name=\"NVIDIA H200\"";
    for line in [
        "perftest_history_verdict{state=\"slower\"} 1".to_owned(),
        format!("perftest_history_changes{{{gpu},direction=\"slower\",state=\"confirmed\"}} 1"),
        format!("perftest_history_runs{{{gpu}}} 12"),
        format!("perftest_history_last_run_timestamp_seconds{{{gpu}}} 1794452400"),
    ] {
        assert!(prom.lines().any(|l| l == line), "{line} in\n{prom}");
    }
    let slower = prom.lines().find(|l| l.starts_with("perftest_history_slower_ratio{")).unwrap();
    let ratio: f64 = slower.rsplit(' ').next().unwrap().parse().unwrap();
    assert!((ratio + 0.03).abs() < 0.002, "{slower}");
    assert!(stdout.starts_with("history: 1 device, 12 runs; 1 change confirmed"), "{stdout}");
    assert!(stdout.contains("driver: NVIDIA 580.159.04 -> NVIDIA 590.10 at run 7 (2026-11-07)"), "{stdout}");
    assert!(stdout.contains("Instr fp32 sin throughput: -3.0% from run 7 (2026-11-07)"), "{stdout}");
    assert!(stdout.contains("level: confirmed; with the driver update to NVIDIA 590.10"), "{stdout}");
    let html = std::fs::read_to_string(page.join("index.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("driver NVIDIA 590.10"), "the chart marks the update");
    assert!(page.join("charts/device1.svg").exists());
    let out = perftest(&["history", dir.to_str().unwrap(), "--format", "json"], &[]);
    let devices: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(devices[0]["changes"][0]["confirmed"], true);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn history_names_a_slow_drift_and_draws_it_for_a_gpu_without_a_step() {
    let dir = temp_dir("history-drift");
    // 30 runs; fp32 sin slides 1.5% over them, a little at a time: no step of 1% anywhere.
    for day in 0..30u64 {
        let date = format!("2026-10-{:02}T03:00:00Z", day + 1);
        let slide = |day: u64, name: &str| match name == "Instr fp32 sin throughput" {
            true => 1.0 - 0.015 * day as f64 / 29.0,
            false => 1.0,
        };
        let run = day_of_history(day, date, "219f4fd4-6242-0000-0000-000000000001", slide);
        std::fs::write(dir.join(format!("day{day}.json")), run.to_string()).unwrap();
    }
    let page = dir.join("page");
    let out = perftest(&["history", dir.to_str().unwrap(), "--report", page.to_str().unwrap()], &[]);
    let stdout = text(&out.stdout);
    // A drift asks for a look, not for a drain: exit 0, and said.
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("no change point; the largest drift"), "{stdout}");
    assert!(flat.contains("Instr fp32 sin throughput -1.5% (1 case in all: read the chart)"), "{stdout}");
    let chart = std::fs::read_to_string(page.join("charts/device1.svg")).unwrap();
    assert!(chart.contains("Instr fp32 sin throughput"), "the chart draws it");
    std::fs::remove_dir_all(dir).unwrap();
}
