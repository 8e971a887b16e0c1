//! Golden files of the views beside `show`: `compare` and `fleet` in text, markdown and JSON, and
//! the `report.md` that `perftest report` writes, each from a few small committed runs. Plain text
//! (tests/views/), so a change to what a user reads shows in review as a diff. Each command's exit
//! code and standard error are kept beside its text output. A change that means to alter a view
//! rewrites them with `PERFTEST_BLESS=1 cargo test --release --test views` and says why.

mod common;

use std::path::PathBuf;

use common::{first_difference, temp_dir, text};

/// A view: its golden files' stem, and the perftest arguments that print it (paths from the
/// repository root).
struct View {
    stem: &'static str,
    args: &'static [&'static str],
}

/// `compare`, `fleet` and `history`, each in its three formats.
const FORMATTED: [View; 5] = [
    View {
        stem: "compare-instr-h100-h200",
        args: &[
            "compare",
            "results/instructions/h100-instr-vulkan.json",
            "results/instructions/h200-instr-vulkan.json",
        ],
    },
    View {
        stem: "compare-quick-h100",
        args: &["compare", "results/report/h100/quick1.json", "results/report/h100/quick2.json"],
    },
    View { stem: "fleet-host4-shared", args: &["fleet", "results/verdicts/host4-shared"] },
    View { stem: "fleet-stores-four-processes", args: &["fleet", "results/stores/two-rates"] },
    View { stem: "history-fleetday", args: &["history", "results/fleetday"] },
];

/// Each command's `--help` (and the short `-h` of a run).
const HELP: [&[&str]; 10] = [
    &["-h"],
    &["--help"],
    &["compare", "--help"],
    &["fleet", "--help"],
    &["health", "--help"],
    &["history", "--help"],
    &["show", "--help"],
    &["check", "--help"],
    &["report", "--help"],
    &["plot", "--help"],
];

/// `report`, whose report.md is kept.
const REPORTS: [View; 3] = [
    View { stem: "report-lavapipe-quick", args: &["results/report/lavapipe/quick.json"] },
    View { stem: "report-instr-h100", args: &["results/instructions/h100-instr-vulkan.json"] },
    View {
        stem: "report-quick-h100-twice",
        args: &["results/report/h100/quick1.json", "results/report/h100/quick2.json"],
    },
];

const FORMATS: [(&str, &str); 3] = [("text", "txt"), ("markdown", "md"), ("json", "json")];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// perftest with `args` from the repository root: exit code, stdout, stderr.
fn perftest(args: &[&str]) -> (i32, String, String) {
    let out = common::command().args(args).current_dir(root()).output().expect("the perftest binary runs");
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// Each golden file's name and what the view prints now.
fn views_now() -> Vec<(String, String)> {
    let mut now = Vec::new();
    for view in FORMATTED {
        for (format, ext) in FORMATS {
            let (code, stdout, stderr) = perftest(&[view.args, &["--format", format]].concat());
            now.push((format!("{}.{ext}", view.stem), stdout));
            if format == "text" {
                now.push((format!("{}.exit.txt", view.stem), format!("exit {code}\n{stderr}")));
            }
        }
    }
    for args in HELP {
        let (code, stdout, stderr) = perftest(args);
        assert_eq!((code, stderr.as_str()), (0, ""), "{args:?}");
        let name = args.iter().map(|a| a.trim_start_matches('-')).collect::<Vec<_>>().join("-");
        now.push((format!("help-{name}.txt"), stdout));
    }
    now.push(("health-fleetday.txt".into(), health_document()));
    for view in REPORTS {
        let dir = temp_dir(&format!("views-{}", view.stem));
        let folder = dir.join("page");
        let (code, stdout, stderr) =
            perftest(&[&["report", "--output", folder.to_str().unwrap()], view.args].concat());
        let markdown = std::fs::read_to_string(folder.join("report.md")).unwrap_or_default();
        let said = format!("exit {code}\n{stdout}{stderr}").replace(dir.to_str().unwrap(), "DIR");
        now.push((format!("{}.md", view.stem), markdown));
        now.push((format!("{}.exit.txt", view.stem), said));
        std::fs::remove_dir_all(dir).unwrap();
    }
    now
}

/// What `health` prints, from the four H100s' kept runs of one check against their reference
/// (its measuring aside: the check took 15 s, as its log says).
fn health_document() -> String {
    let kept = root().join("results/fleetday/health/2026-11-27T17-28-31Z/model1");
    let found = perftest::results::files::gather(&[kept], perftest::results::files::Depth::Top).unwrap();
    let runs: Vec<perftest::results::Run> =
        found.files.iter().map(|f| perftest::results::load(f).unwrap()).collect();
    let label = |run| perftest::analysis::fleet::label("", run);
    let members: Vec<perftest::analysis::fleet::Member> =
        runs.iter().map(|run| perftest::analysis::fleet::Member { label: label(run), run }).collect();
    let reference = root().join("results/fleetday/h100-x4.reference.json");
    let reference = perftest::analysis::fleet::reference::Reference::load(&reference).unwrap();
    let fleet = perftest::analysis::fleet::judge_against(&members, Some(&reference));
    perftest::report::sections::health::document(&fleet, runs.len(), 15.0) + "\n"
}

#[test]
fn compare_fleet_and_report_print_what_their_golden_files_say() {
    let bless = std::env::var_os("PERFTEST_BLESS").is_some_and(|v| v == "1");
    let folder = root().join("tests/views");
    let now = views_now();
    let mut failures = Vec::new();
    for (name, output) in &now {
        assert!(!output.trim().is_empty() || name.ends_with(".exit.txt"), "{name}: the view printed nothing");
        let path = folder.join(name);
        if bless {
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(&path, output).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(golden) if &golden == output => {}
            Ok(golden) => failures.push(format!("{name}: {}", first_difference(output, &golden))),
            Err(_) => failures.push(format!("{name}: missing (PERFTEST_BLESS=1 writes it)")),
        }
    }
    let expected: Vec<&str> = now.iter().map(|(name, _)| name.as_str()).collect();
    let stale: Vec<String> = std::fs::read_dir(&folder)
        .map(|entries| entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    let stale: Vec<&String> = stale.iter().filter(|name| !expected.contains(&name.as_str())).collect();
    assert!(stale.is_empty(), "golden files no view writes: {stale:?}");
    assert!(
        failures.is_empty(),
        "{} of {} views differ:\n{}",
        failures.len(),
        now.len(),
        failures.join("\n")
    );
}
