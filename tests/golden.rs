//! Golden files of `perftest show`: for every results file committed under results/, what `show`
//! prints by default, with `--verbose`, with `--format csv` and with `--format markdown`, compared
//! byte for byte. A saved run must read the same on a newer binary; a change that means to alter
//! what `show` prints rewrites them with `PERFTEST_BLESS=1 cargo test --release --test golden` and
//! says why in its commit. The goldens are gzipped (tests/golden/: 2.9 MB for 16 MB of text).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use perftest::report::{self, Format};

mod common;
use common::first_difference;

/// What `show` prints in each mode, and the golden file's suffix.
const MODES: [(&str, Format, bool); 4] = [
    ("txt", Format::Text, false),
    ("verbose.txt", Format::Text, true),
    ("csv", Format::Csv, false),
    ("md", Format::Markdown, false),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.json` file under `dir`, sorted, but references (`*.reference.json`: `perftest fleet
/// --write-reference`, no run).
fn results_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            results_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json")
            && !path.to_string_lossy().ends_with(".reference.json")
        {
            out.push(path);
        }
    }
}

/// What `perftest show FILE` prints in a mode (its document, as `show` writes it to stdout).
fn show(file: &Path, format: Format, verbose: bool) -> String {
    let run = perftest::results::load(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let document = report::render(&run, format, verbose).unwrap();
    format!("{}\n", perftest::format::printable_lines(document.trim_end()))
}

/// The golden of `file` in the mode with `suffix`: `results/a/b.json` becomes `a__b.SUFFIX.gz`.
fn golden_path(file: &Path, suffix: &str) -> PathBuf {
    let relative = file.strip_prefix(root().join("results")).unwrap();
    let stem = relative.with_extension("").to_string_lossy().replace('/', "__");
    root().join("tests/golden").join(format!("{stem}.{suffix}.gz"))
}

fn read_gz(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(file).read_to_string(&mut text).ok()?;
    Some(text)
}

fn write_gz(path: &Path, text: &str) {
    let file = std::fs::File::create(path).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::best());
    encoder.write_all(text.as_bytes()).unwrap();
    encoder.finish().unwrap();
}

#[test]
fn show_prints_every_committed_run_as_its_golden_files_say() {
    let bless = std::env::var_os("PERFTEST_BLESS").is_some_and(|v| v == "1");
    let mut files = Vec::new();
    results_files(&root().join("results"), &mut files);
    assert!(files.len() >= 70, "{} results files under results/", files.len());
    let mut expected = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for file in &files {
        for (suffix, format, verbose) in MODES {
            let path = golden_path(file, suffix);
            expected.insert(path.clone());
            let now = show(file, format, verbose);
            if bless {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                write_gz(&path, &now);
                continue;
            }
            match read_gz(&path) {
                Some(golden) if golden == now => {}
                Some(golden) => {
                    failures.push(format!("{}: {}", path.display(), first_difference(&now, &golden)))
                }
                None => failures.push(format!("{}: missing (PERFTEST_BLESS=1 writes it)", path.display())),
            }
        }
    }
    // A golden whose results file is gone is stale: moving a run means moving its goldens.
    let mut stale = Vec::new();
    for entry in std::fs::read_dir(root().join("tests/golden")).unwrap() {
        let path = entry.unwrap().path();
        if !expected.contains(&path) {
            if bless {
                std::fs::remove_file(&path).unwrap();
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(stale.is_empty(), "goldens without a results file: {stale:?}");
    assert!(
        failures.is_empty(),
        "{} of {} goldens differ:\n{}",
        failures.len(),
        expected.len(),
        failures.join("\n")
    );
}
