//! What the CLI tests of both test binaries share: running the perftest binary, reading its
//! output, a temporary folder, and counting what `--list` selects.

// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// The caller's environment variables that would change what the perftest binary does or prints
/// beside those starting `PERFTEST_` (its options' variables, its test hooks): a node's name,
/// help's width, colour.
const UNSET: [&str; 6] = ["SLURMD_NODENAME", "COLUMNS", "LINES", "CLICOLOR", "CLICOLOR_FORCE", "NO_COLOR"];

/// The perftest binary as a command in the caller's environment (the Vulkan driver it names)
/// less what would change its behaviour or its text ([`clean`]): a test gives what it means to.
pub fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_perftest"));
    clean(&mut command);
    command
}

/// Removes from `command`'s environment what would change perftest's behaviour or its text
/// ([`UNSET`], `PERFTEST_*`), for a command that runs perftest itself or through another program.
pub fn clean(command: &mut Command) -> &mut Command {
    for (key, _) in std::env::vars_os() {
        let name = key.to_string_lossy();
        if name.starts_with("PERFTEST_") || UNSET.contains(&name.as_ref()) {
            command.env_remove(&key);
        }
    }
    command
}

/// Runs the perftest binary ([`command`]) with `args` and the environment variables `env`.
pub fn perftest(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = command();
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("the perftest binary runs")
}

/// Sends `signal` to process `pid` at once (a `kill` process would take milliseconds to start).
pub fn signal(pid: u32, signal: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(pid as i32).expect("a process id is positive");
    rustix::process::kill_process(pid, signal).expect("the process is there to signal");
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh folder in the temporary directory, named for the test and this process (an earlier
/// process of the same number may have left one: it is emptied).
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("perftest-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// How many cases `perftest --list` prints with `args`.
pub fn listed(args: &[&str]) -> usize {
    let out = perftest(&[&["--list"], args].concat(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout).lines().count()
}

/// The first line where `got` and a golden file's `want` differ, both shown.
pub fn first_difference(got: &str, want: &str) -> String {
    let (mut got_lines, mut want_lines) = (got.lines(), want.lines());
    for n in 1.. {
        match (got_lines.next(), want_lines.next()) {
            (Some(g), Some(w)) if g == w => continue,
            (None, None) => return "the same lines, other line ends".into(),
            (g, w) => return format!("line {n}:\n  now:    {g:?}\n  golden: {w:?}"),
        }
    }
    unreachable!()
}

/// The committed H200 instruction-table run as eight GPUs of one host: each a copy with its rates
/// moved by up to 0.2% (a different amount per GPU and case), GPU 5's by a further `slow`.
pub fn fleet_of_h200s(dir: &std::path::Path, slow: f64) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("results/instructions/h200-instr-vulkan.json")).unwrap();
    for gpu in 0..8u64 {
        let mut run: serde_json::Value = serde_json::from_str(&text).unwrap();
        run["host"] = "node07".into();
        run["device"]["pci"] = format!("0000:{:02x}:00.0", 0x1b + gpu).into();
        run["device"]["uuid"] = format!("{gpu:08x}-0000-0000-0000-000000000000").into();
        for (i, case) in run["cases"].as_array_mut().unwrap().iter_mut().enumerate() {
            let jitter = 1.0 + ((gpu * 7919 + i as u64 * 104_729) % 41) as f64 / 40.0 * 0.004 - 0.002;
            let scale = if gpu == 5 { jitter * (1.0 - slow) } else { jitter };
            if let Some(rate) = case["rate"]["value"].as_f64() {
                case["rate"]["value"] = (rate * scale).into();
            }
        }
        std::fs::write(dir.join(format!("node07-gpu{gpu}.json")), run.to_string()).unwrap();
    }
}

/// A folder on `PATH` with a fake `scontrol` that logs each call's arguments (each followed by
/// `|`, a call a line) to `dir/scontrol.log`: the `PATH` to give, and the log.
pub fn fake_scontrol(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.join("scontrol.log");
    let script =
        format!("#!/bin/sh\nprintf '%s|' \"$@\" >> '{}'\necho >> '{}'\n", log.display(), log.display());
    let path = bin.join("scontrol");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let search = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    (std::path::PathBuf::from(search), log)
}

/// A Vulkan loader that does not exist: a command that reached Vulkan would exit 3.
pub const NO_LOADER: (&str, &str) = ("PERFTEST_VULKAN_LOADER", "/nonexistent/libvulkan.so.1");

/// `path` as a command-line argument (test paths are UTF-8).
pub fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A format-6 results file: `cases` sweep cases of `variants` variants over working sets from
/// 16 KiB up (a line panel on a log axis), with `name` for the first case and the device.
pub fn results(path: &Path, device: &str, first: &str, variants: usize, sizes: usize) {
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

/// A small plain H100 run: two variants over three sizes.
pub fn plain(path: &Path) {
    results(path, "H100", "Buffer<R8>.Load uniform", 2, 3);
}

/// The committed H200 instruction-table run, edited by `edit`, written to `path`.
pub fn edited(path: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("results/instructions/h200-instr-vulkan.json")).unwrap();
    let mut run: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut run);
    std::fs::write(path, run.to_string()).unwrap();
}
