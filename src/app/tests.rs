//! The command line as a whole: a run's options, the `-N` shorthand, the environment's options,
//! the subcommands beside them, and `--help`.

use std::ffi::OsString;

use super::*;
use crate::cli::{Format, QUICK_SAMPLES, QUICK_TARGET_MS};

fn cli(args: &[&str]) -> std::result::Result<Cli, clap::Error> {
    parse_from(std::iter::once("perftest").chain(args.iter().copied()))
}

/// A run's options as `args` parse.
fn run(args: &[&str]) -> std::result::Result<RunArgs, clap::Error> {
    cli(args).map(|cli| cli.run)
}

#[test]
fn all_devices_and_strict_parse_and_conflict_where_they_must() {
    let parsed = run(&["--all-devices", "NVIDIA", "--strict"]).unwrap();
    assert!(parsed.all_devices && parsed.strict);
    assert_eq!(parsed.device_name.as_deref(), Some("NVIDIA"));
    for conflicting in
        [&["--all-devices", "-2"][..], &["--all-devices", "--list"], &["--all-devices", "--devices"]]
    {
        let error = cli(conflicting).err().unwrap_or_else(|| panic!("{conflicting:?}"));
        assert_eq!(error.exit_code(), 2, "{conflicting:?}");
    }
    let error = run(&["--all-devices", "--format", "csv"]).err().unwrap();
    assert_eq!(error.exit_code(), 2);
    assert!(error.to_string().contains("give --output FILE"), "{error}");
    assert!(run(&["--all-devices", "--format", "csv", "--output", "r.csv"]).is_ok());
}

#[test]
fn the_row_shorthand_applies_only_where_a_row_can_stand() {
    // An option's value: --target-ms -1 is a bad value (range), not a missing one.
    let error = run(&["--target-ms", "-1"]).unwrap_err().to_string();
    assert!(error.contains("must be between 0.5 and 100"), "{error}");
    assert_eq!(run(&["--filter", "-2"]).unwrap().filter.as_deref(), Some("-2"));
    assert_eq!(run(&["--filter=x", "-2"]).unwrap().device_index, Some(2));
    // In compare, -2 is never a device row: after --, it is a file name; before, clap says how.
    let parsed = cli(&["compare", "b.json", "--", "-2"]).unwrap();
    assert!(
        matches!(parsed.command, Some(Command::Compare(ref args)) if args.files[1] == std::path::Path::new("-2"))
    );
    let error = cli(&["compare", "b.json", "-2"]).unwrap_err().to_string();
    assert!(error.contains("'-- -2'") && !error.contains("device-index"), "{error}");
}

fn with_env(args: &[&str], env: &[(&str, &str)]) -> std::result::Result<RunArgs, clap::Error> {
    let env: Vec<(String, String)> = env.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
    let lookup = move |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| OsString::from(v));
    parse_with_env(std::iter::once("perftest").chain(args.iter().copied()), &lookup).map(|cli| cli.run)
}

#[test]
fn environment_variables_apply_to_runs_only_and_say_their_name() {
    let run = with_env(
        &[],
        &[("PERFTEST_SAMPLES", "5"), ("PERFTEST_VALIDATION", "1"), ("PERFTEST_FORMAT", "JSON")],
    )
    .unwrap();
    assert_eq!((run.samples, run.validation, run.format), (Some(5), true, Format::Json));
    assert_eq!(
        with_env(&["--samples", "7"], &[("PERFTEST_SAMPLES", "5")]).unwrap().samples,
        Some(7),
        "a flag wins"
    );
    assert_eq!(with_env(&[], &[("PERFTEST_TARGET_MS", "")]).unwrap().target_ms, 20.0, "empty is unset");
    let error = with_env(&[], &[("PERFTEST_SAMPLES", "abc")]).unwrap_err();
    assert_eq!(error.exit_code(), 2);
    let text = error.to_string();
    assert!(text.contains("PERFTEST_SAMPLES=\"abc\"") && text.contains("--samples"), "{text}");
    // Run-only variables leave compare, plot, --list and --devices alone.
    let bad = [("PERFTEST_SAMPLES", "0"), ("PERFTEST_FORMAT", "xml"), ("PERFTEST_TARGET_MS", "-1")];
    assert!(with_env(&["compare", "a.json", "b.json"], &bad).is_ok());
    assert!(with_env(&["--list"], &bad).is_ok());
    assert!(with_env(&["--devices"], &bad).is_ok());
    assert_eq!(
        with_env(&["--list"], &[("PERFTEST_FILTER", "fp32")]).unwrap().filter.as_deref(),
        Some("fp32")
    );
}

#[test]
fn list_and_devices_refuse_output_and_format() {
    for args in [
        &["--list", "--output", "x.json"][..],
        &["--devices", "--format", "json"],
        &["--list", "--format", "csv"],
    ] {
        assert_eq!(cli(args).unwrap_err().exit_code(), 2, "{args:?}");
    }
}

#[test]
fn non_utf8_arguments_are_usage_errors_or_paths_never_panics() {
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"\xff").to_os_string();
    let args = [OsString::from("perftest"), "--list".into(), "--filter".into(), bad.clone()];
    let error = parse_from(args).unwrap_err();
    assert_eq!(error.exit_code(), 2);
    assert!(error.to_string().contains("UTF-8"), "{error}");
    let args = [OsString::from("perftest"), "compare".into(), "a.json".into(), bad];
    assert!(parse_from(args).is_ok(), "a results file's name may be any bytes");
}

#[test]
fn row_shorthand_and_name_combine() {
    let parsed = run(&["RTX", "-2"]).unwrap();
    assert_eq!(parsed.device_name.as_deref(), Some("RTX"));
    assert_eq!(parsed.device_index, Some(2));
    assert_eq!(run(&["-12"]).unwrap().device_index, Some(12));
}

#[test]
fn quick_shortens_measurements_unless_told_otherwise() {
    let quick = run(&["--quick"]).unwrap();
    assert!(quick.quick && quick.selection().quick);
    assert_eq!((quick.target_ms, quick.samples), (QUICK_TARGET_MS, Some(QUICK_SAMPLES)));
    let told = run(&["--quick", "--samples", "20"]).unwrap();
    assert_eq!((told.target_ms, told.samples), (QUICK_TARGET_MS, Some(20)));
    let env = with_env(&["--quick"], &[("PERFTEST_TARGET_MS", "30")]).unwrap();
    assert_eq!(env.target_ms, 30.0, "the environment wins over --quick's default");
}

#[test]
fn defaults_are_twenty_ms_and_the_devices_samples() {
    let parsed = run(&[]).unwrap();
    assert_eq!(parsed.target_ms, 20.0);
    // Ten on a GPU, five on a CPU implementation (`RunSettings::most_samples`).
    assert_eq!(parsed.samples, None);
    assert!(parsed.device_name.is_none() && parsed.device_index.is_none());
}

#[test]
fn out_of_range_values_are_usage_errors() {
    for args in [&["-0"][..], &["--target-ms", "500"], &["--samples", "1"], &["--target-ms", "x"]] {
        let error = cli(args).unwrap_err();
        assert_eq!(error.exit_code(), 2, "{args:?}");
    }
}

#[test]
fn compare_takes_two_or_more_files_and_a_device_word_still_works() {
    let parsed = cli(&["compare", "a.json", "b.json", "--format", "markdown"]).unwrap();
    assert!(
        matches!(parsed.command, Some(Command::Compare(ref args)) if args.files.len() == 2 && args.format == emit::Format::Markdown)
    );
    assert_eq!(run(&["compare", "a.json"]).unwrap_err().exit_code(), 2);
    let word = cli(&["H100", "-2"]).unwrap();
    assert!(word.command.is_none() && word.run.device_name.as_deref() == Some("H100"));
}

#[test]
fn help_documents_every_exit_code_from_the_enum() {
    let help = run(&["--help"]).unwrap_err().to_string();
    // Wrapped between words under a hanging indent: the words, in order, make each meaning.
    let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for code in crate::ExitCode::ALL {
        let line = format!(" {} {} ", code as u8, code.meaning());
        assert!(words.contains(&line), "exit code {} missing from --help", code as u8);
    }
    let codes = help.split("Exit codes:\n").nth(1).unwrap();
    assert!(codes.lines().all(|l| l.chars().count() <= 100), "{codes}");
}

#[test]
fn the_short_help_is_a_screen_of_the_common_commands() {
    let short = run(&["-h"]).unwrap_err().to_string();
    // A screen of 32 lines: eight commands (health and history joined the six), the
    // options a first run needs, three examples; at 100 columns (no terminal), no line wrapped.
    assert!(short.lines().count() <= 32, "{short}");
    assert!(short.lines().all(|l| l.chars().count() <= 100), "{short}");
    for common in
        ["--quick", "--family", "--filter", "--json", "--verbose", "report", "compare", "perftest --help"]
    {
        assert!(short.contains(common), "{common} missing from -h: {short}");
    }
    assert!(!short.contains("--in-process") && !short.contains("Exit codes"), "{short}");
    let long = run(&["--help"]).unwrap_err().to_string();
    // Where each option's own entry starts (others' help may name it earlier).
    let at = |option: &str| {
        let entry = format!("\n      {option}");
        long.find(&entry).unwrap_or_else(|| panic!("{option} missing from --help"))
    };
    assert!(at("--quick") < at("--skip") && at("--skip") < at("--target-ms"), "by use: {long}");
    assert!(at("--target-ms") < at("--in-process") && long.contains("-V, --version"), "{long}");
}

#[test]
fn axes_parse_and_the_branch_alias_comes_first() {
    let parsed = run(&["--axis", "branch.n=0:64:32", "--branch-iterations", "8:8:1"]).unwrap();
    let settings = parsed.axis_settings();
    assert_eq!(settings.len(), 2);
    assert_eq!(settings[0].values, [8], "--branch-iterations first");
    assert_eq!(settings[1].values, [0, 32, 64], "so a later --axis wins");
    for bad in ["branch.n=8:0:8", "branch.q=1", "nosuch.n=1", "branch.n"] {
        assert_eq!(run(&["--axis", bad]).unwrap_err().exit_code(), 2, "{bad}");
    }
    let error = run(&["--axis", "branch.q=1"]).unwrap_err().to_string();
    assert!(
        error.contains("the family `branch` has no axis `q`; its axes: n (payload iterations"),
        "the error lists the family's axes: {error}"
    );
}

// A child perftest's command line ([`crate::session::child::args`]) parses back to its settings,
// and no name in it is read as an option.
use crate::session::child::{args as child_args, Job, Pick};
use std::path::Path;

fn settings() -> crate::results::model::Settings {
    crate::results::model::Settings {
        target_ms: 10.0,
        samples: 5,
        verify: false,
        compile_only: false,
        families: vec!["alu".into(), "load".into()],
        filter: Some("fp32".into()),
        skip: vec!["sin".into()],
        quick: true,
        axes: vec!["load.pattern=linear".into()],
        cases: Vec::new(),
        branch_iterations: None,
    }
}

fn parsed(args: &[OsString]) -> RunArgs {
    let line = std::iter::once(OsString::from("perftest")).chain(args.iter().cloned());
    parse_from(line).unwrap_or_else(|e| panic!("{e}")).run
}

#[test]
fn a_models_settings_run_again_as_the_same_options() {
    let s = settings();
    let job = Job {
        pick: Pick::Every("NVIDIA H100"),
        settings: &s,
        cases: None,
        json: Path::new("d/"),
        host: None,
    };
    let cli = parsed(&child_args(&job));
    assert_eq!((cli.target_ms, cli.samples, cli.quick, cli.all_devices), (10.0, Some(5), true, true));
    assert_eq!(cli.family, ["alu", "load"]);
    assert_eq!((cli.filter.as_deref(), cli.skip.as_slice()), (Some("fp32"), ["sin".to_owned()].as_slice()));
    assert_eq!(cli.device_name.as_deref(), Some("NVIDIA H100"));
    assert!(cli.no_host_name && cli.json.as_deref() == Some(Path::new("d/")));
}

#[test]
fn a_name_that_looks_like_an_option_stays_a_value() {
    let mut s = settings();
    s.filter = Some("--output=/etc/x".into());
    s.skip = vec!["--json".into(), "-2".into()];
    s.axes = vec!["--format=json".into()];
    let cases = ["--output=/etc/passwd".to_owned(), "--".to_owned()];
    for (pick, cases) in [(Pick::Every("--output=/etc/x"), None), (Pick::One("-3"), Some(&cases[..]))] {
        let job = Job { pick, settings: &s, cases, json: Path::new("r.json"), host: Some("node01") };
        let line = std::iter::once(OsString::from("perftest")).chain(child_args(&job));
        // The axis is refused as an axis (not parsed as --format); without it, every name is a value.
        assert!(parse_from(line).is_err());
        let plain = crate::results::model::Settings { axes: Vec::new(), ..s.clone() };
        let cli = parsed(&child_args(&Job { settings: &plain, ..job }));
        assert!(cli.output.is_none() && cli.format == crate::report::Format::Text, "{:?}", cli.output);
        assert_eq!(cli.device_index, None, "-3 after -- is a name, not a row");
        match pick {
            Pick::Every(name) | Pick::One(name) => assert_eq!(cli.device_name.as_deref(), Some(name)),
        }
        match cases {
            Some(cases) => assert_eq!(cli.case, cases),
            None => {
                assert_eq!(cli.filter.as_deref(), Some("--output=/etc/x"));
                assert_eq!(cli.skip, ["--json", "-2"]);
            }
        }
        assert_eq!(cli.host_name.as_deref(), Some("node01"));
    }
}
