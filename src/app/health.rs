//! `perftest health`: a node's health check. Measures this node's GPUs against a reference
//! ([`crate::session::node`]), judges them ([`crate::analysis::fleet::judge_with`]), measures
//! the suspects again at once ([`crate::session::confirm::confirm_at_once`]) and decides; then
//! drains the Slurm node where a GPU failed or is slow, prints a summary line and the verdict,
//! writes metrics, and ends with fleet's exit code (or a node-problem-detector plugin's). A signal
//! stops the check and its perftest, and decides nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::analysis::fleet::reference::Reference;
use crate::analysis::fleet::{judge_with, Member};
use crate::error::{Error, ExitCode, Result};
use crate::report::output::Named;
use crate::report::sections::health;
use crate::session::{child, host, node};

/// Measure this node's GPUs against a reference: a health check for Slurm or Kubernetes.
///
/// Runs the reference's cases on every GPU of its models here at once, judges each against
/// the reference, measures the suspects' slow cases again (at once, against the reference),
/// prints the verdict (its first line a summary) and exits as fleet does; --drain drains the
/// Slurm node when a GPU fails (docs/fleet.md).
#[derive(Debug, clap::Args)]
#[command(display_order = 6)]
pub struct Args {
    /// The reference (`perftest fleet --write-reference`).
    #[arg(long, value_name = "FILE")]
    pub reference: PathBuf,
    /// When a GPU failed (a case lost the device, crashed or hung), is slow, or has nothing
    /// to judge, drain the Slurm node SLURMD_NODENAME names (`scontrol update
    /// NodeName=$SLURMD_NODENAME State=DRAIN Reason=...`, naming the GPU and its families);
    /// refused when SLURMD_NODENAME is not set.
    #[arg(long)]
    pub drain: bool,
    /// Also write the verdict and each GPU's headline rates to FILE in Prometheus's text
    /// format (node_exporter's textfile collector; labels as dcgm-exporter's).
    #[arg(long, value_name = "FILE")]
    pub metrics: Option<PathBuf>,
    /// Exit as a node-problem-detector plugin: 0 healthy, 1 where --drain would drain (a GPU
    /// failed, is slow or has nothing to judge), 2 anything else (no verdict).
    #[arg(long)]
    pub npd: bool,
    /// Keep the runs in DIR (made if missing) instead of a temporary folder.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// A GPU is slow where a family's typical case, or its whole run, is slower than the
    /// reference by PCT percent (and beyond its uncertainty). Default: the reference's, else 2.
    #[arg(long, value_name = "PCT", value_parser = crate::cli::parse_tolerance)]
    pub tolerance: Option<f64>,
}

/// Runs `perftest health`; with `--npd`, ends as a node-problem-detector plugin: 1 where the node
/// would be drained, 2 for any other failure.
pub fn run(args: &Args) -> Result<()> {
    let ending = check(args);
    if !args.npd {
        return ending.and_then(|verdict| verdict.map_err(|(error, _)| error));
    }
    match ending {
        Ok(Ok(())) => Ok(()),
        Ok(Err((error, true))) => Err(Error::Plugin { code: ExitCode::Failure, error: Box::new(error) }),
        Ok(Err((error, false))) => Err(Error::Plugin { code: ExitCode::Usage, error: Box::new(error) }),
        Err(error) => {
            // The plugin's condition message is its stdout: a check that ended without a verdict
            // says why there too.
            let why = crate::format::printable_lines(&crate::error::report(&error)).into_owned();
            let _ = crate::session::progress::print(&format!("unknown: {why}"));
            Err(Error::Plugin { code: ExitCode::Usage, error: Box::new(error) })
        }
    }
}

/// The check: `Err` where it could not judge; else the verdict's ending, a failure with whether
/// it is a reason to drain. The verdict is decided first, then the node drained, then the
/// verdict printed and the metrics written: a write that fails changes nothing decided.
fn check(args: &Args) -> Result<std::result::Result<(), (Error, bool)>> {
    let began = Instant::now();
    // Whom to drain and what to record, refused before anything runs.
    let node = args.drain.then(host::slurm_node).transpose()?;
    let host = host::host_name()?;
    let outputs = [("--metrics", args.metrics.as_deref()), ("--keep", args.keep.as_deref())];
    super::emit::guard(&outputs, &[Named { role: "--reference", path: &args.reference }])?;
    let reference = Reference::load(&args.reference)?;
    child::listen_for_signals();
    let temporary = tempfile::tempdir().map_err(Error::Io)?;
    let dir = match &args.keep {
        Some(keep) => kept_folder(keep)?,
        None => {
            let dir = temporary.path().join("runs");
            std::fs::create_dir(&dir).map_err(Error::Io)?;
            dir
        }
    };
    let measured = node::measure(&reference, &dir, host.as_deref())?;
    if measured.runs.is_empty() && measured.faults.is_empty() {
        let models: Vec<&str> = reference.models.iter().map(|m| m.key.device.as_str()).collect();
        return Err(Error::ResultsFile {
            path: args.reference.display().to_string(),
            problem: format!(
                "holds no model of a GPU here (it has {}; `perftest --devices` lists this host's): give the \
                 reference of this node's GPUs",
                models.join(", ")
            ),
        });
    }
    let label = crate::analysis::fleet::label;
    let members: Vec<Member<'_>> =
        measured.runs.iter().map(|(file, run)| Member { label: label(file, run), run }).collect();
    let mut fleet = judge_with(&members, Some(&reference), args.tolerance.map(|t| t / 100.0));
    fleet.faulty.extend(measured.faults);
    fleet.confirmations = crate::session::confirm::confirm_at_once(&fleet, &members, &reference, &dir)?;
    if child::stopped() {
        return Err(Error::Halted { command: "perftest health" });
    }
    let verdict = fleet.ending();
    let drain = fleet.drain();
    if let (Some(node), Some(drain)) = (&node, &drain) {
        drain_node(node, &health::drain_reason(&fleet, drain));
    }
    let text = health::document(&fleet, members.len(), began.elapsed().as_secs_f64());
    let printed = crate::session::progress::print(&text).map_err(Error::from);
    let mut writes: Vec<Error> = printed.err().into_iter().collect();
    if let Some(path) = &args.metrics {
        let metrics = crate::report::prometheus::render(&fleet, &members);
        writes.extend(crate::report::write_atomic(path, &metrics).err());
    }
    Ok(super::emit::decided(verdict, writes).map_err(|error| (error, drain.is_some())))
}

/// A folder of its own under `keep` for this check's runs, made as the run's outputs are written:
/// through no link another user planted in a sticky folder ([`crate::report::output::resolve`]),
/// and never one that exists (to the second and the process: two checks never share one).
fn kept_folder(keep: &Path) -> Result<PathBuf> {
    let keep = crate::report::output::resolve(keep)?;
    let unmade = |path: &Path, e: std::io::Error| Error::Output {
        path: path.display().to_string(),
        detail: format!("the folder cannot be made ({e})"),
    };
    std::fs::create_dir_all(&keep).map_err(|e| unmade(&keep, e))?;
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let dir = keep.join(format!("{}-{}", stamp.replace(':', "-"), std::process::id()));
    std::fs::create_dir(&dir).map_err(|e| unmade(&dir, e))?;
    Ok(dir)
}

/// The longest drain reason given to Slurm: it keeps a reason of any length, and a line of a
/// few hundred characters reads in `sinfo -R`.
const REASON_CHARS: usize = 240;

/// Drains the Slurm node `node` with `reason` (one argument to `scontrol`, no shell); a drain that
/// fails is said on stderr, and the verdict's exit code stands.
fn drain_node(node: &str, reason: &str) {
    let say = crate::session::progress::say;
    let reason: String =
        crate::format::printable_lines(reason).replace('\n', " ").chars().take(REASON_CHARS).collect();
    let mut command = Command::new("scontrol");
    command.args(["update", &format!("NodeName={node}"), "State=DRAIN", &format!("Reason={reason}")]);
    match command.stdin(Stdio::null()).status() {
        Ok(s) if s.success() => say(&format!("perftest health: drained {node}: {reason}")),
        Ok(s) => say(&format!("perftest health: scontrol could not drain {node} ({s}): drain it by hand")),
        Err(e) => say(&format!(
            "perftest health: cannot run scontrol to drain {node} ({e}): is Slurm's client installed?"
        )),
    }
}
