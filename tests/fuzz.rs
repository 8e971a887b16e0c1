//! Property tests of what perftest reads from outside: the command line and results files.
//! Neither may panic, whatever the bytes; the CLI's errors are usage errors (exit 2).
//! Longer runs: `PROPTEST_CASES=100000 cargo test --test fuzz`.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use proptest::prelude::*;

/// Words the CLI knows, so generated command lines reach deep into parsing, not only "unknown option".
const WORDS: &[&str] = &[
    "--list",
    "--devices",
    "--verify",
    "--filter",
    "--skip",
    "--axis",
    "--branch-iterations",
    "--format",
    "--output",
    "--shader-stats",
    "--validation",
    "--target-ms",
    "--samples",
    "--device-index",
    "-2",
    "-0",
    "-99999999999",
    "compare",
    "plot",
    "--metric",
    "ratio",
    "json",
    "csv",
    "--",
    "branch.n=0:8:8",
    "branch.n=18446744073709551615:18446744073709551615:1",
    "nosuch.x=1",
    "16K..1G*2",
    "1,,2",
    "0:4294967295:1",
    "x",
    "",
    "-",
    "20",
    "1e308",
    "NaN",
    "-1",
    "RTX",
];

fn arg() -> impl Strategy<Value = OsString> {
    prop_oneof![
        proptest::sample::select(WORDS).prop_map(OsString::from),
        proptest::collection::vec(any::<u8>(), 0..12).prop_map(OsString::from_vec),
        "[-a-z0-9.=:,*]{0,24}".prop_map(OsString::from),
    ]
}

proptest! {
    #[test]
    fn the_command_line_parser_never_panics(args in proptest::collection::vec(arg(), 0..8)) {
        let argv = std::iter::once(OsString::from("perftest")).chain(args);
        if let Err(error) = perftest::app::parse_from(argv) {
            // --help and --version end as "errors" with code 0; everything else is a usage error.
            prop_assert!(matches!(error.exit_code(), 0 | 2), "exit {}: {error}", error.exit_code());
        }
    }

    #[test]
    fn the_results_loader_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let path = scratch();
        std::fs::write(&path, &bytes).unwrap();
        if let Err(error) = perftest::results::load(&path) {
            prop_assert_eq!(error.exit_code(), perftest::ExitCode::BadResults);
        }
    }

    #[test]
    fn the_results_loader_never_panics_on_mutated_files(at in 0usize..4000, with in any::<u8>(), cut in 0usize..4000) {
        let mut bytes = valid().into_bytes();
        let at = at % bytes.len();
        bytes[at] = with;
        bytes.truncate(bytes.len() - cut % bytes.len() / 4);
        let path = scratch();
        std::fs::write(&path, &bytes).unwrap();
        if let Ok(run) = perftest::results::load(&path) {
            // What loads can be compared and plotted without a panic.
            let labels = ["a".to_owned(), "b".to_owned()];
            let runs = [run.clone(), run];
            let _ = perftest::report::sections::compare::to_text(&perftest::report::compare::compare(&labels, &runs));
        }
    }
}

/// A file of this test thread (proptest runs cases one after another per test).
fn scratch() -> std::path::PathBuf {
    let id = format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), "");
    std::env::temp_dir().join(format!("perftest-fuzz-{}-{id}.json", std::process::id()))
}

/// A small valid results file.
fn valid() -> String {
    r#"{"format_version": 2, "perftest_version": "0.1.0", "date": "2026-11-21T02:00:00Z",
  "settings": {"target_ms": 20.0, "samples": 10, "verify": false, "filter": null, "skip": [], "axes": ["branch.n=0:8:8"]},
  "device": {"name": "H100", "type": "DiscreteGpu", "vendor_id": 4318, "device_id": 9008, "driver": "NVIDIA",
             "vulkan_version": "1.4.312", "queue_family": 0, "subgroup_size": 32, "timestamp_period_ns": 1.0},
  "interrupted": false, "ending": {"state": "complete", "exit_code": 0, "message": null},
  "cases": [{"name": "8X Coherent branch long", "family": "branch", "group": "branch Coherent",
             "variant": "Coherent branch long", "axes": {"n": 8}, "status": "ok", "reason": null,
             "median_ms": 20.0, "min_ms": 19.9, "cv": 0.001, "work": {"value": 1e9, "unit": "invocations"},
             "rate": {"value": 5e10, "unit": "invocations/s"}, "rates": [{"value": 5e10, "unit": "invocations/s"}],
             "ratio": 1.5}]}"#
        .to_owned()
}
