//! `perftest fleet`: a screen's runs judged against each other or a reference
//! ([`crate::analysis::fleet`]), its suspects confirmed on this host where asked, then the verdict
//! printed, its metrics and a reference written, and the screen's exit code.

use std::path::{Path, PathBuf};

use super::emit::{self, Format};
use crate::analysis::fleet::reference::{self, Reference};
use crate::analysis::fleet::{judge_with, Conclusion, Fleet, Left, Member};
use crate::error::{Error, Result};
use crate::results::files::Depth;

/// Judge runs of like GPUs against each other and name the slow ones.
///
/// A rack's screening: per group of one device model, driver and settings, each case's median
/// and spread across the devices, each device's cases outside both, and per family the median
/// change: a device is slow where a family (or its whole run) is slower than the tolerance.
/// Exits 19 for a slow device not yet measured again, 16 once --confirm finds it slow alone
/// (docs/fleet.md).
#[derive(Debug, clap::Args)]
#[command(display_order = 5)]
pub struct Args {
    /// JSON results files, one per GPU, or folders of them (every *.json directly inside).
    #[arg(required = true, value_name = "RUN|DIR")]
    pub inputs: Vec<PathBuf>,
    /// text, markdown or json.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Write to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// On the host of a suspect: measure its slow cases again on it alone and on a healthy peer
    /// alone (and, where it is not slow alone, on every GPU of the host at once) before the
    /// verdict: slow (exit 16), interference (17) or not reproduced (0).
    #[arg(long)]
    pub confirm: bool,
    /// Judge each run against FILE's model of its GPU (`--write-reference`) instead of its
    /// siblings: one GPU alone can be judged.
    #[arg(long, value_name = "FILE")]
    pub reference: Option<PathBuf>,
    /// From a healthy screen, write FILE: per model, driver and settings, each case's median
    /// and spread (nothing is written when the screen is not healthy).
    #[arg(long, value_name = "FILE", conflicts_with = "reference")]
    pub write_reference: Option<PathBuf>,
    /// Also write the verdict and each GPU's headline rates to FILE in Prometheus's text
    /// format (node_exporter's textfile collector; labels as dcgm-exporter's).
    #[arg(long, value_name = "FILE")]
    pub metrics: Option<PathBuf>,
    /// A GPU is slow where a family's typical case, or its whole run, is slower than PCT percent
    /// (and beyond its uncertainty); smaller differences are reported as "differs", exit 0.
    /// Default: the reference's, else 2. Written into --write-reference's file.
    #[arg(long, value_name = "PCT", value_parser = crate::cli::parse_tolerance)]
    pub tolerance: Option<f64>,
}

/// Runs `perftest fleet`: the verdict is decided, then printed (or written to `--output`), then
/// its metrics and reference written; a write that fails is said after and changes no verdict.
pub fn run(args: &Args) -> Result<()> {
    let (files, mut skipped) = super::inputs::gather(&args.inputs, Depth::Top)?;
    let mut inputs = super::inputs::named(&files);
    inputs.extend(
        args.reference.as_deref().map(|path| crate::report::output::Named { role: "--reference", path }),
    );
    let outputs = [
        ("--output", args.output.as_deref()),
        ("--write-reference", args.write_reference.as_deref()),
        ("--metrics", args.metrics.as_deref()),
    ];
    emit::guard(&outputs, &inputs)?;
    let reference = args.reference.as_deref().map(Reference::load).transpose()?;
    let hint = "pass the runs a screen wrote with --json";
    let runs = super::inputs::load_runs(&files, &args.inputs, hint, &mut skipped, |_, run| {
        crate::analysis::fleet::slim(run);
        Ok(())
    })?;
    let members: Vec<Member<'_>> = runs
        .iter()
        .map(|(file, run)| Member { label: crate::analysis::fleet::label(file, run), run })
        .collect();
    let tolerance = args.tolerance.map(|t| t / 100.0);
    let mut fleet = judge_with(&members, reference.as_ref(), tolerance);
    fleet.skipped =
        skipped.into_iter().map(|s| Left { label: s.path.display().to_string(), why: s.why }).collect();
    if args.confirm {
        crate::session::child::listen_for_signals();
        fleet.confirmations = crate::session::confirm::confirm(&fleet, &members)?;
        if crate::session::child::stopped() {
            return Err(Error::Halted { command: "perftest fleet --confirm" });
        }
    }
    // Making a reference from one GPU's runs (or two GPUs') is what those runs are for: their
    // want of siblings is no failure of this command.
    if args.write_reference.is_some() {
        fleet.groups.iter_mut().for_each(|g| g.unjudged.retain(|u| !u.alone));
    }
    let verdict = fleet.ending();
    let document = emit::document(
        args.format,
        || crate::report::sections::fleet::to_text(&fleet),
        || crate::report::sections::fleet::to_markdown(&fleet),
        &fleet,
        "the fleet's verdict",
    )?;
    let mut writes: Vec<Error> = emit::write(args.output.as_deref(), &document).err().into_iter().collect();
    if let Some(path) = &args.metrics {
        let metrics = crate::report::prometheus::render(&fleet, &members);
        writes.extend(crate::report::write_atomic(path, &metrics).err());
    }
    if let Some(path) = &args.write_reference {
        writes.extend(write_reference(path, &fleet, &members, tolerance).err());
    }
    emit::decided(verdict, writes)
}

/// Writes the reference `members` make to `path` where the screen is healthy; else says on
/// stderr why none was written (the verdict's exit code follows).
fn write_reference(path: &Path, fleet: &Fleet, members: &[Member<'_>], tolerance: Option<f64>) -> Result<()> {
    let say = crate::session::progress::say;
    // A device of the host left out of the runs (on purpose, or not) does not spoil the others',
    // and one GPU's runs make a reference of their own (its cases' basis says "runs").
    let mut judged = Fleet { missing: Vec::new(), ..fleet.clone() };
    judged.groups.iter_mut().for_each(|g| g.unjudged.retain(|u| !u.alone));
    if judged.conclusion() != Conclusion::Healthy {
        say(&format!(
            "perftest fleet: no reference written to {}: the screen is not healthy; leave out the runs it \
             names and make the reference again",
            path.display()
        ));
        return Ok(());
    }
    let astray = reference::astray(&judged);
    if !astray.is_empty() {
        return Err(Error::ResultsFile {
            path: path.display().to_string(),
            problem: format!(
                "was not written: these devices differ from the others beyond the tolerance: {}; leave their \
                 runs out and make the reference again",
                astray.join(", ")
            ),
        });
    }
    let made = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let reference = reference::make(members, made, tolerance);
    let wide = reference::too_wide(&reference, tolerance.unwrap_or(crate::analysis::fleet::TOLERANCE));
    if !wide.is_empty() {
        return Err(Error::ResultsFile {
            path: path.display().to_string(),
            problem: format!(
                "was not written: its cases spread more than the tolerance from run to run ({}): measure the \
                 screen again on quiet hosts, or give a larger --tolerance",
                wide.join("; ")
            ),
        });
    }
    if reference.models.is_empty() {
        return Err(Error::ResultsFile {
            path: path.display().to_string(),
            problem: format!(
                "was not written: no case was timed on {} devices of a model, nor in {0} runs of one GPU \
                 alone (two GPUs cannot say which of them is right): screen a third GPU of the model, or give \
                 one GPU's runs alone",
                reference::MIN_VALUES
            ),
        });
    }
    let text = serde_json::to_string_pretty(&reference)
        .map_err(|source| Error::Serialize { what: "the reference", source })?;
    crate::report::write_atomic(path, &(text + "\n"))?;
    let cases: usize = reference.models.iter().map(|m| m.cases.len()).sum();
    say(&format!(
        "perftest fleet: reference written to {}: {}, {}",
        path.display(),
        crate::format::count(reference.models.len(), "model"),
        crate::format::count(cases, "case")
    ));
    Ok(())
}
