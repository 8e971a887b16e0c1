//! A crash, a hang or a second stop signal costs one case, never the run: real faults of lavapipe
//! 22.3 (with `MESA_VK_MAX_TIMEOUT`, a wait longer than that many milliseconds loses the device,
//! and tearing down the copy of a large buffer then segfaults on its queue thread) and a real
//! watchdog, through the binary's worker processes.

use std::io::BufRead;
use std::process::{Command, Stdio};

use perftest::report::model::{Run, Status};

use super::{perftest, temp_dir, text};

fn statuses(run: &Run) -> Vec<(&str, Status)> {
    run.cases.iter().map(|c| (c.name.as_str(), c.status)).collect()
}

#[test]
fn cli_a_driver_crash_costs_its_case_and_a_fresh_worker_goes_on() {
    let dir = temp_dir("crash");
    let file = dir.join("run.json");
    let file_arg = file.to_string_lossy().into_owned();
    // The 128 MiB chain's upload waits far longer than 50 ms: the device is lost and lavapipe
    // segfaults. The small chains' waits are short.
    let args = ["--verify", "--filter", "Latency", "--axis", "latency.bytes=16K,128M,32K"];
    let out = perftest(&[&args[..], &["--json", &file_arg]].concat(), &[("MESA_VK_MAX_TIMEOUT", "50")]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(14), "a crashed case has its own exit code: {stderr}");
    let run = perftest::report::load(&file).unwrap_or_else(|e| panic!("{e}"));
    let shown = perftest(&["show", &file_arg], &[]);
    assert_eq!(shown.status.code(), Some(0), "{}", text(&shown.stderr));
    assert_eq!(text(&shown.stdout), text(&out.stdout), "show prints the run as it ran, crash and all");
    let names: Vec<&str> = run.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["Latency 16 KiB", "Latency 128 MiB", "Latency 32 KiB", "Shared latency"],
        "every case, in order"
    );
    let crashed = &run.cases[1];
    assert_eq!(crashed.status, Status::Crashed, "{:?}", statuses(&run));
    let reason = crashed.reason.as_deref().unwrap_or_default();
    assert!(
        reason.starts_with("the worker process died with SIGSEGV (signal 11) while this case ran"),
        "{reason}"
    );
    for case in [&run.cases[0], &run.cases[2], &run.cases[3]] {
        // On a loaded machine a small chain's wait may pass 50 ms too: that is the device lost.
        assert!(matches!(case.status, Status::Ok | Status::DeviceLost), "{:?}", statuses(&run));
    }
    assert!(run.workers >= Some(2), "a fresh worker went on after the crash: {:?}", run.workers);
    assert!(
        run.ending.message.as_deref().unwrap_or_default().contains("\"Latency 128 MiB\" (crashed)"),
        "{:?}",
        run.ending
    );
    assert!(stderr.contains("perftest: ") && stderr.contains("(crashed)"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_a_case_past_the_watchdog_is_recorded_hung_and_the_next_one_runs() {
    // 100 samples of 20 ms take 2 s: past a 1 s watchdog.
    let args = ["--filter", "ALU fp32 FMA", "--samples", "100", "--watchdog", "1", "--format", "json"];
    let out = perftest(&args, &[]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(14), "{stderr}");
    let run: Run = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(statuses(&run), [("ALU fp32 FMA", Status::Hung), ("ALU fp32 FMA (mediump)", Status::Hung)]);
    let reason = run.cases[1].reason.as_deref().unwrap_or_default();
    assert!(reason.starts_with("no answer in 1 s; its worker process was stopped"), "{reason}");
    assert_eq!(run.workers, Some(2), "each case in a worker of its own");
}

#[test]
fn cli_a_second_signal_stops_the_case_in_progress_and_keeps_what_finished() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_perftest"))
        .args(["--filter", "ALU fp32 FMA", "--samples", "100"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.by_ref().map_while(Result::ok).find(|l| l.starts_with("ALU fp32 FMA: "));
    assert!(first.is_some_and(|l| l.contains("GFLOPS")), "the first case finished");
    // The second case takes 2 s: both signals come while it runs.
    for _ in 0..2 {
        let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
        assert!(killed.success());
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let second = rest.iter().find(|l| l.starts_with("ALU fp32 FMA (mediump): ")).expect("its line");
    assert_eq!(
        second,
        "ALU fp32 FMA (mediump): interrupted (a second stop signal ended it before it finished)"
    );
    assert!(rest.last().is_some_and(|l| l.starts_with("run: interrupted (exit 130)")), "{rest:?}");
}
