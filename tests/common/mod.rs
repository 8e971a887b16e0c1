//! What the CLI tests of both test binaries share: running the perftest binary, reading its
//! output, a temporary folder, and counting what `--list` selects.

// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

use std::process::{Command, Output};

/// Runs the perftest binary with `args` and the environment variables `env`.
pub fn perftest(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_perftest"));
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("the perftest binary runs")
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh folder in the temporary directory, named for the test and this process.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("perftest-{name}-{}", std::process::id()));
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
