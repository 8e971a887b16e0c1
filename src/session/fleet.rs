//! `perftest fleet`: read a screen's runs (files and folders of them, each file once, what is no
//! run named and skipped), judge them ([`crate::analysis::fleet`]), confirm the suspects on this
//! host where asked ([`super::confirm`]), write the verdict, and end with the screen's exit code.

use std::path::{Path, PathBuf};

use crate::analysis::fleet::reference::{self, Reference};
use crate::analysis::fleet::{judge_against, Conclusion, Fleet, Left, Member};
use crate::cli::CompareFormat;
use crate::error::{Error, Result};
use crate::results::Run;

/// What `perftest fleet` is asked.
pub struct Request<'a> {
    /// The files and folders given.
    pub inputs: &'a [PathBuf],
    /// The verdict's format.
    pub format: CompareFormat,
    /// Where it goes (stdout when `None`).
    pub output: Option<&'a Path>,
    /// Measure the suspects again on this host first (`--confirm`).
    pub confirm: bool,
    /// Judge against this reference instead of among siblings (`--reference`).
    pub reference: Option<&'a Path>,
    /// Write a reference from the screen here, when it is healthy (`--write-reference`).
    pub write_reference: Option<&'a Path>,
    /// Write the verdict's metrics here too (`--metrics`).
    pub metrics: Option<&'a Path>,
}

/// Runs `perftest fleet` as `request` says: the verdict is decided, then printed (or written to
/// `--output`), then its metrics and reference written; a write that fails is said after and
/// changes no verdict ([`decided`]).
pub fn fleet<'a>(request: &Request<'a>) -> Result<()> {
    let found = crate::results::files::gather(request.inputs, crate::results::files::Depth::Top)?;
    let mut skipped: Vec<Left> = found
        .skipped
        .iter()
        .map(|s| Left { label: s.path.display().to_string(), why: s.why.clone() })
        .collect();
    let files = found.files;
    let inputs: Vec<crate::report::output::Named<'_>> =
        files.iter().map(|path| crate::report::output::Named { role: "the results file", path }).collect();
    let named = |role, path: Option<&'a Path>| path.map(|path| crate::report::output::Named { role, path });
    let outputs: Vec<crate::report::output::Named<'_>> = [
        named("--output", request.output),
        named("--write-reference", request.write_reference),
        named("--metrics", request.metrics),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut inputs = inputs;
    inputs.extend(named("--reference", request.reference));
    crate::report::output::guard(&outputs, &inputs)?;
    let reference = request.reference.map(load_reference).transpose()?;
    let mut runs: Vec<(String, Run)> = Vec::new();
    for file in &files {
        match crate::results::load(file) {
            Ok(mut run) => {
                slim(&mut run);
                runs.push((file.display().to_string(), run));
            }
            Err(Error::NotARun { path, problem }) => skipped.push(Left { label: path, why: problem }),
            Err(other) => return Err(other),
        }
    }
    if runs.is_empty() {
        return Err(Error::ResultsFile {
            path: request.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
            problem: "hold no perftest run: pass the runs a screen wrote with --json".into(),
        });
    }
    let members: Vec<Member<'_>> =
        runs.iter().map(|(file, run)| Member { label: label(file, run), run }).collect();
    let mut fleet = judge_against(&members, reference.as_ref());
    fleet.skipped = skipped;
    if request.confirm {
        super::child::listen_for_signals();
        fleet.confirmations = super::confirm::confirm(&fleet, &members)?;
        if super::child::stopped() {
            return Err(Error::Halted { command: "perftest fleet --confirm" });
        }
    }
    let verdict = conclude(&fleet);
    let mut writes = Vec::new();
    let document = match request.format {
        CompareFormat::Text => crate::report::sections::fleet::to_text(&fleet),
        CompareFormat::Markdown => crate::report::sections::fleet::to_markdown(&fleet),
        CompareFormat::Json => serde_json::to_string_pretty(&fleet)
            .map_err(|source| Error::Serialize { what: "the fleet's verdict", source })?,
    };
    let printed = match request.output {
        Some(path) => crate::report::write_atomic(path, &document),
        None => super::progress::print(document.trim_end()).map_err(Error::from),
    };
    writes.extend(printed.err());
    if let Some(path) = request.metrics {
        let metrics = crate::report::prometheus::render(&fleet, &members);
        writes.extend(crate::report::write_atomic(path, &metrics).err());
    }
    if let Some(path) = request.write_reference {
        writes.extend(write_reference(path, &fleet, &members).err());
    }
    decided(verdict, writes)
}

/// The ending of a command whose verdict was decided before its outputs were written: the
/// verdict's, each failed write said on stderr after it; where the verdict passed, the first
/// failed write's (exit 1: an output is missing).
pub fn decided(verdict: Result<()>, writes: Vec<Error>) -> Result<()> {
    match verdict {
        Err(verdict) => {
            for error in &writes {
                super::progress::say(&format!(
                    "perftest: {} (the verdict below stands)",
                    crate::format::printable_lines(&crate::error::report(error))
                ));
            }
            Err(verdict)
        }
        Ok(()) => {
            let mut writes = writes.into_iter();
            let first = writes.next();
            for error in writes {
                super::progress::say(&format!(
                    "perftest: {}",
                    crate::format::printable_lines(&crate::error::report(&error))
                ));
            }
            first.map_or(Ok(()), Err)
        }
    }
}

/// Writes the reference `members` make to `path` where the screen is healthy; else says on
/// stderr why none was written (the verdict's exit code follows).
fn write_reference(path: &Path, fleet: &Fleet, members: &[Member<'_>]) -> Result<()> {
    // A device of the host left out of the runs (on purpose, or not) does not spoil the others'.
    let judged = Fleet { missing: Vec::new(), ..fleet.clone() };
    if judged.conclusion() != Conclusion::Healthy {
        super::progress::say(&format!(
            "perftest fleet: no reference written to {}: the screen is not healthy; leave out the runs it \
             names and make the reference again",
            path.display()
        ));
        return Ok(());
    }
    let made = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let reference = reference::make(members, made);
    if reference.models.is_empty() {
        return Err(Error::ResultsFile {
            path: path.display().to_string(),
            problem: format!(
                "was not written: no case was timed in {} runs of one model: a reference needs each case \
                 from three devices, or three runs of one",
                reference::MIN_VALUES
            ),
        });
    }
    let text = serde_json::to_string_pretty(&reference)
        .map_err(|source| Error::Serialize { what: "the reference", source })?;
    crate::report::write_atomic(path, &(text + "\n"))?;
    let cases: usize = reference.models.iter().map(|m| m.cases.len()).sum();
    super::progress::say(&format!(
        "perftest fleet: reference written to {}: {} model(s), {cases} case(s)",
        path.display(),
        reference.models.len()
    ));
    Ok(())
}

/// The reference at `path`, checked: a file that is no reference, or one no screen could have
/// written, is refused (exit 10) with what to do.
pub fn load_reference(path: &Path) -> Result<Reference> {
    let bad = |problem: String| Error::ResultsFile { path: path.display().to_string(), problem };
    let text = crate::bounded::read_json(
        path,
        crate::results::model::MAX_FILE_BYTES,
        "a reference written by perftest fleet --write-reference",
    )
    .map_err(bad)?;
    // A newer perftest's reference says so before its fields are read.
    let format = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("perftest_reference").and_then(serde_json::Value::as_u64));
    if let Some(newer) = format.filter(|f| *f > u64::from(reference::FORMAT)) {
        return Err(bad(format!(
            "is reference format {newer}, newer than this perftest's {}: use a newer perftest",
            reference::FORMAT
        )));
    }
    let reference: Reference = serde_json::from_str(&text).map_err(|e| {
        bad(format!("is not a perftest reference ({e}): make one with perftest fleet --write-reference"))
    })?;
    let axes = reference.models.iter().flat_map(|m| m.settings.axes.iter());
    let axis = axes.map(|a| (a, crate::registry::parse_setting(a))).find(|(_, parsed)| parsed.is_err());
    let problem = reference.problem().or_else(|| {
        axis.map(|(text, parsed)| {
            format!("holds an axis perftest cannot run ({text}: {})", parsed.err().unwrap_or_default())
        })
    });
    match problem {
        Some(problem) => Err(bad(format!("{problem}: make it again with perftest fleet --write-reference"))),
        None => Ok(reference),
    }
}

/// Keeps of `run` what a fleet judges (rates, their noise, clocks, per-unit rates, flags, phases,
/// who ran where), not its samples, notes, statistics or header: a folder of large runs is
/// judged in about the memory of one.
pub fn slim(run: &mut Run) {
    for case in &mut run.cases {
        if case.samples_ms.len() >= 2 {
            case.cv = Some(crate::analysis::verdict::noise(case));
        }
        case.samples_ms = Vec::new();
        case.notes = Vec::new();
        case.shader_stats = Vec::new();
        case.rates = Vec::new();
        case.per_clock = Vec::new();
        case.remeasured = Vec::new();
        case.compiled = None;
    }
    (run.facts, run.warm_up) = (None, None);
    (run.header, run.levels) = (String::new(), Vec::new());
}

/// The screen's ending: `Ok` when nothing is to be acted on, else the error its exit code says.
pub fn conclude(fleet: &Fleet) -> Result<()> {
    match fleet.conclusion() {
        Conclusion::Healthy => Ok(()),
        Conclusion::Faulty(devices) => Err(Error::Faulty { count: devices.len(), devices }),
        Conclusion::Slow(devices) => Err(Error::SlowerThanFleet { count: devices.len(), devices }),
        Conclusion::Unjudged(devices) => Err(Error::Unjudged { count: devices.len(), devices }),
        Conclusion::Interference(devices) => Err(Error::Interference { count: devices.len(), devices }),
        Conclusion::Unconfirmed(devices) => Err(Error::Unconfirmed { count: devices.len(), devices }),
    }
}

/// How `fleet` names the device of `run` read from `file`: `host/PCI address` where the run
/// recorded both, else the file.
pub fn label(file: &str, run: &Run) -> String {
    match (&run.host, run.device.slot()) {
        (Some(host), Some(slot)) => format!("{host}/{slot}"),
        _ => file.to_owned(),
    }
}
