//! A crash, a hang or a second stop signal costs one case, never the run: a worker killed by the
//! signal of a driver's failed assertion (in a case, or while it builds the pipelines), a real
//! watchdog and real stop signals, through the binary's worker processes.

use std::io::BufRead;
use std::process::Stdio;

use perftest::results::model::{Run, Status};

use super::{perftest, temp_dir, text};

fn statuses(run: &Run) -> Vec<(&str, Status)> {
    run.cases.iter().map(|c| (c.name.as_str(), c.status)).collect()
}

/// The worker processes that `parent` started (the children whose parent is `parent`).
pub(super) fn children(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // The fourth field of /proc/PID/stat, after the command in parentheses, is the parent.
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let after = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
            after.split(' ').nth(1).and_then(|p| p.parse::<u32>().ok()) == Some(parent)
        })
        .collect()
}

#[test]
fn cli_a_worker_that_dies_by_a_signal_costs_its_case_and_a_fresh_worker_goes_on() {
    let dir = temp_dir("crash");
    let file = dir.join("run.json");
    let file_arg = file.to_string_lossy().into_owned();
    // Three timed chains, each 30 samples of 20 ms: the second has started 200 ms after
    // the first one's line comes, and is still running, when the worker gets the signal of a
    // driver's failed assertion (SIGSEGV sent by another process would not do: Rust's
    // stack-overflow handler returns).
    let args = [
        "--family",
        "latency",
        "--filter",
        "Latency",
        "--skip",
        "pointer",
        "--skip",
        "Shared",
        "--samples",
        "30",
        "--fixed-samples",
        "--axis",
        "latency.bytes=16K,32K,64K",
    ];
    let mut child = super::common::command()
        .args(args)
        .args(["--json", &file_arg])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stdout: Vec<String> = Vec::new();
    for line in lines.by_ref().map_while(Result::ok) {
        let first = line.starts_with("Latency 16 KiB ");
        stdout.push(line);
        if first {
            break;
        }
    }
    assert!(stdout.last().is_some_and(|l| l.contains("ns per load")), "the first case finished: {stdout:?}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let workers = children(child.id());
    assert_eq!(workers.len(), 1, "one worker runs the cases: {workers:?}");
    super::common::signal(workers[0], rustix::process::Signal::ABORT);
    stdout.extend(lines.map_while(Result::ok));
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(14), "a crashed case has its own exit code: {stderr}");
    let run = perftest::results::load(&file).unwrap_or_else(|e| panic!("{e}"));
    let shown = perftest(&["show", &file_arg], &[]);
    assert_eq!(shown.status.code(), Some(0), "{}", text(&shown.stderr));
    let printed: String = stdout.iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(text(&shown.stdout), printed, "show prints the run as it ran, crash and all");
    let expected =
        [("Latency 16 KiB", Status::Ok), ("Latency 32 KiB", Status::Crashed), ("Latency 64 KiB", Status::Ok)];
    assert_eq!(statuses(&run), expected, "every case, in order");
    let reason = run.cases[1].reason.as_deref().unwrap_or_default();
    assert!(
        reason.starts_with("the worker process died with SIGABRT (signal 6) while this case ran"),
        "{reason}"
    );
    assert_eq!(run.workers, Some(2), "a fresh worker went on after the crash");
    assert!(
        run.ending.message.as_deref().unwrap_or_default().contains("\"Latency 32 KiB\" (crashed)"),
        "{:?}",
        run.ending
    );
    assert!(stderr.contains("perftest: ") && stderr.contains("(crashed)"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_a_worker_that_dies_building_the_pipelines_is_followed_by_one_building_each_as_it_runs() {
    // An empty cache folder: the worker compiles its shaders rather than reading an earlier run's
    // SPIR-V back, so it is still building when the signal comes, whatever ran before.
    let dir = temp_dir("dies-building");
    let child = super::common::command()
        .args(["--verify", "--verbose", "--family", "dispatch"])
        .env("XDG_CACHE_HOME", &dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    // The first worker, as soon as it exists, is opening the device or building the pipelines:
    // it gets the signal of a driver's failed assertion there.
    let started = std::time::Instant::now();
    let worker = loop {
        if let Some(&worker) = children(child.id()).first() {
            break worker;
        }
        assert!(started.elapsed().as_secs() < 30, "no worker started");
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    super::common::signal(worker, rustix::process::Signal::ABORT);
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "died with SIGABRT (signal 6) while opening the device and building the pipelines; a fresh one \
             builds each case's pipeline just before it runs, so a driver crash costs one case"
        ),
        "{stderr}"
    );
    assert!(stdout.contains("\npipelines:  each case's built just before it runs"), "{stdout}");
    assert_eq!(stdout.matches(": verified (4 results match the CPU reference)").count(), 5, "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_a_case_past_the_watchdog_is_recorded_hung_and_the_next_one_runs() {
    // 100 samples of 20 ms take 2 s: past a 1 s watchdog.
    let args = [
        "--filter",
        "ALU fp32 FMA",
        "--samples",
        "100",
        "--fixed-samples",
        "--watchdog",
        "1",
        "--format",
        "json",
    ];
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
    let mut child = super::common::command()
        .args(["--filter", "ALU fp32 FMA", "--samples", "100", "--fixed-samples"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the perftest binary runs");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.by_ref().map_while(Result::ok).find(|l| l.starts_with("ALU fp32 FMA "));
    assert!(first.is_some_and(|l| l.contains("GFLOPS")), "the first case finished");
    // The second case takes 2 s: both signals come while it runs.
    for _ in 0..2 {
        super::common::signal(child.id(), rustix::process::Signal::TERM);
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let second = rest.iter().find(|l| l.starts_with("ALU fp32 FMA (mediump) ")).expect("its line");
    assert_eq!(
        second,
        "ALU fp32 FMA (mediump)  interrupted (a second stop signal ended it before it finished)"
    );
    assert!(rest.last().is_some_and(|l| l.starts_with("run: interrupted (exit 130)")), "{rest:?}");
}
