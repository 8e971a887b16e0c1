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
    /// failed, is slow or has nothing to judge), 2 anything else (no verdict); stdout is one line,
    /// the condition's message (the verdict's summary, or `unknown: ` and why), the verdict on stderr.
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
/// would be drained, 2 for any other failure, and stdout one line on every ending ([`plugin_line`]).
pub fn run(args: &Args) -> Result<()> {
    let ending = check(args);
    if !args.npd {
        return ending.and_then(|checked| checked.ending.map_err(|(error, _)| error));
    }
    // The plugin's condition message is its stdout, cut to the plugin's max_output_length:
    // one line, what the node is first. A closed stdout changes no exit code here.
    let _ = crate::session::progress::print(&plugin_line(&ending));
    match ending {
        Ok(Checked { ending: Ok(()), .. }) => Ok(()),
        Ok(Checked { ending: Err((error, true)), .. }) => {
            Err(Error::Plugin { code: ExitCode::Failure, error: Box::new(error) })
        }
        Ok(Checked { ending: Err((error, false)), .. }) | Err(error) => {
            Err(Error::Plugin { code: ExitCode::Usage, error: Box::new(error) })
        }
    }
}

/// A check that reached a verdict: its summary line and its ending (`Err` with whether the node
/// is to be drained).
pub struct Checked {
    /// The verdict in a line ([`health::summary`]).
    pub summary: String,
    /// Whether it passed (its outputs written), else its error and whether it is a reason to drain.
    pub ending: std::result::Result<(), (Error, bool)>,
    /// Whether the verdict itself passed (an ending can still fail for an output not written).
    pub passed: bool,
}

/// The one line a node-problem-detector plugin prints: the verdict's summary; `unknown: ` and
/// why where there is none, or where a healthy verdict's metrics or document were not written.
pub fn plugin_line(ending: &Result<Checked>) -> String {
    let one_line = |error: &Error| {
        let text = crate::error::report(error);
        let text = crate::format::printable_lines(&text);
        text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ")
    };
    match ending {
        Ok(Checked { summary, ending: Err((error, false)), passed: true }) => {
            format!("unknown: {summary}, but {}", one_line(error))
        }
        Ok(checked) => checked.summary.clone(),
        Err(error) => format!("unknown: {}", one_line(error)),
    }
}

/// The check: `Err` where it could not judge; else the verdict, whose ending is a failure with
/// whether it is a reason to drain. The verdict is decided first, then the node drained, then the
/// verdict printed (under `--npd` on stderr: stdout is the plugin's line) and the metrics
/// written: a write that fails changes nothing decided.
fn check(args: &Args) -> Result<Checked> {
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
    let mut writes: Vec<Error> = Vec::new();
    if args.npd {
        crate::session::progress::say(&text);
    } else {
        writes.extend(crate::session::progress::print(&text).map_err(Error::from).err());
    }
    if let Some(path) = &args.metrics {
        let metrics = crate::report::prometheus::render(&fleet, &members);
        writes.extend(crate::report::write_atomic(path, &metrics).err());
    }
    let passed = verdict.is_ok();
    let ending = super::emit::decided(verdict, writes).map_err(|error| (error, drain.is_some()));
    Ok(Checked { summary: health::summary(&fleet, members.len()), ending, passed })
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
