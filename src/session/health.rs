//! `perftest health`: a node's health check. Runs the reference's cases on every GPU of its
//! models here at once (a child perftest, [`super::child`]), judges each run against the
//! reference ([`crate::analysis::fleet::judge_against`]), measures the suspects' slow cases again
//! (all at once), and decides; then drains the Slurm node where a GPU failed or is slow, prints a
//! summary line and the verdict, writes metrics, and ends with fleet's exit code (or a
//! node-problem-detector plugin's). A signal stops the check and its child, and decides nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use super::child::{Ended, Job, Pick};
use super::confirm::{families_of, slow_cases};
use crate::analysis::confirm::{rejudge, verdict, Confirmation, Rejudged, Verdict};
use crate::analysis::fleet::reference::Reference;
use crate::analysis::fleet::{judge_against, Conclusion, Fleet, Left, Member, Standing};
use crate::error::{Error, ExitCode, Result};
use crate::report::output::Named;
use crate::results::files::Depth;
use crate::results::Run;

/// What `perftest health` is asked.
pub struct Request<'a> {
    /// The reference file.
    pub reference: &'a Path,
    /// Drain this Slurm node when a GPU fails (`--drain`).
    pub drain: bool,
    /// Where the metrics go (`--metrics`).
    pub metrics: Option<&'a Path>,
    /// Where the runs are kept, in a folder of their own per check (`--keep`).
    pub keep: Option<&'a Path>,
    /// Exit as a node-problem-detector plugin (`--npd`).
    pub npd: bool,
}

/// Runs `perftest health` as `request` says; with `--npd`, ends as a node-problem-detector
/// plugin: 1 where the node would be drained, 2 for any other failure.
pub fn health(request: &Request<'_>) -> Result<()> {
    let ending = check(request);
    if !request.npd {
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
            let _ = super::progress::print(&format!("unknown: {why}"));
            Err(Error::Plugin { code: ExitCode::Usage, error: Box::new(error) })
        }
    }
}

/// The check: `Err` where it could not judge; else the verdict's ending, a failure with whether
/// it is a reason to drain. The verdict is decided first, then the node drained, then the
/// verdict printed and the metrics written: a write that fails changes nothing decided.
fn check(request: &Request<'_>) -> Result<std::result::Result<(), (Error, bool)>> {
    let began = Instant::now();
    // Whom to drain and what to record, refused before anything runs.
    let node = request.drain.then(super::host::slurm_node).transpose()?;
    let host = super::host::host_name()?;
    let outputs: Vec<Named<'_>> = [("--metrics", request.metrics), ("--keep", request.keep)]
        .into_iter()
        .filter_map(|(role, path)| Some(Named { role, path: path? }))
        .collect();
    crate::report::output::guard(&outputs, &[Named { role: "--reference", path: request.reference }])?;
    let reference = super::fleet::load_reference(request.reference)?;
    super::child::listen_for_signals();
    let temporary = tempfile::tempdir().map_err(Error::Io)?;
    let dir = match request.keep {
        Some(keep) => kept_folder(keep)?,
        None => {
            let dir = temporary.path().join("runs");
            std::fs::create_dir(&dir).map_err(Error::Io)?;
            dir
        }
    };
    let measured = measure(&reference, &dir, host.as_deref())?;
    if measured.runs.is_empty() && measured.faults.is_empty() {
        let models: Vec<&str> = reference.models.iter().map(|m| m.key.device.as_str()).collect();
        return Err(Error::ResultsFile {
            path: request.reference.display().to_string(),
            problem: format!(
                "holds no model of a GPU here (it has {}; `perftest --devices` lists this host's): give the \
                 reference of this node's GPUs",
                models.join(", ")
            ),
        });
    }
    let members: Vec<Member<'_>> = measured
        .runs
        .iter()
        .map(|(file, run)| Member { label: super::fleet::label(file, run), run })
        .collect();
    let mut fleet = judge_against(&members, Some(&reference));
    fleet.faulty.extend(measured.faults);
    fleet.confirmations = confirm_at_once(&fleet, &members, &reference, &dir)?;
    if super::child::stopped() {
        return Err(Error::Halted { command: "perftest health" });
    }
    let verdict = super::fleet::conclude(&fleet);
    let reason = drain_reason(&fleet);
    if let (Some(node), Some(reason)) = (&node, &reason) {
        drain(node, reason);
    }
    let text = document(&fleet, members.len(), began.elapsed().as_secs_f64());
    let mut writes: Vec<Error> =
        super::progress::print(&text).map_err(Error::from).err().into_iter().collect();
    if let Some(path) = request.metrics {
        let metrics = crate::report::prometheus::render(&fleet, &members);
        writes.extend(crate::report::write_atomic(path, &metrics).err());
    }
    let drains = reason.is_some();
    Ok(super::fleet::decided(verdict, writes).map_err(|error| (error, drains)))
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

/// What [`measure`] gives: each run with its file, and the GPUs whose perftest failed before or
/// while it measured them, as faults.
struct Measured {
    runs: Vec<(String, Run)>,
    faults: Vec<Left>,
}

/// Whether a perftest that ended so, having written nothing, says the GPU or its driver failed
/// (it crashed, lost the device, found no usable Vulkan, a Vulkan call failed) rather than that the
/// check was set up wrong (a usage error, nothing matched, a bad file).
fn gpu_failed(ended: &Ended) -> bool {
    let codes = [ExitCode::Failure, ExitCode::NoVulkan, ExitCode::DeviceLost, ExitCode::Crashed];
    match ended {
        Ended::Signal(_) => true,
        // 101: a panic.
        Ended::Code(code) => *code == 101 || codes.iter().any(|c| *c as i32 == *code),
        Ended::Stopped => false,
    }
}

/// Runs each model's cases (one run per device and settings) on every GPU of it here at once, its
/// JSON into `dir`; a model with no GPU here is passed over. A perftest that a signal stopped
/// stops the check; one that failed is the GPU's fault, or ends the check unjudged (its message
/// is above).
fn measure(reference: &Reference, dir: &Path, host: Option<&str>) -> Result<Measured> {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    let mut measured = Measured { runs: Vec::new(), faults: Vec::new() };
    for model in &reference.models {
        let id = (model.key.device.as_str(), model.key.settings.as_str());
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        let into: PathBuf = dir.join(format!("model{}", seen.len()));
        std::fs::create_dir(&into).map_err(Error::Io)?;
        let mut folder = into.clone().into_os_string();
        folder.push("/");
        let folder = PathBuf::from(folder);
        let pick = Pick::Every(&model.key.device);
        let job = Job { pick, settings: &model.settings, cases: None, json: &folder, host };
        let ended = super::child::run(&super::child::args(&job))?;
        if ended == Ended::Stopped || super::child::stopped() {
            return Err(Error::Halted { command: "perftest health" });
        }
        let files = crate::results::files::gather(std::slice::from_ref(&into), Depth::Top)
            .map(|found| found.files)
            .unwrap_or_default();
        let label = format!("this node's {}", model.key.device);
        let meaning = ended.meaning().map_or(String::new(), |m| format!(" ({m})"));
        let fault = |when: &str| Left {
            label: label.clone(),
            why: format!("perftest {} {when}{meaning}", ended.describe()),
        };
        match (files.is_empty(), &ended) {
            // No GPU of this model here: another model of the reference may be.
            (true, Ended::Code(code)) if *code == ExitCode::NoSuchDevice as i32 => continue,
            (true, ended) if gpu_failed(ended) => {
                measured.faults.push(fault("before it measured"));
                continue;
            }
            (true, ended) => {
                return Err(Error::Unjudged {
                    count: 1,
                    devices: vec![format!(
                        "{label}: perftest {} before it measured{meaning}; its message is above",
                        ended.describe()
                    )],
                })
            }
            // perftest itself died while it measured: its documents may say nothing of why.
            (false, Ended::Signal(_) | Ended::Code(101)) => measured.faults.push(fault("while it measured")),
            (false, _) => {}
        }
        for file in files {
            let run = crate::results::load(&file)?;
            measured.runs.push((file.display().to_string(), run));
        }
    }
    Ok(measured)
}

/// Measures every suspect's slow cases again, on every GPU of its model here at once (one run,
/// so that a node of eight slow GPUs is confirmed within Slurm's minute), and holds each
/// suspect's cases to the reference's medians: slow again in half of them or more is slow.
fn confirm_at_once(
    fleet: &Fleet,
    members: &[Member<'_>],
    reference: &Reference,
    dir: &Path,
) -> Result<Vec<Confirmation>> {
    let mut confirmed = Vec::new();
    for (n, group) in fleet.groups.iter().enumerate() {
        let suspects: Vec<&Standing> = group.ranking.iter().filter(|s| s.slow && s.slower > 0).collect();
        let Some(like) = suspects.first().and_then(|s| super::confirm::run_of(members, &s.label)) else {
            continue;
        };
        let slow_cases = |device: usize| slow_cases(group, device);
        let mut cases: Vec<String> = Vec::new();
        for case in suspects.iter().flat_map(|s| slow_cases(s.device)) {
            if !cases.contains(&case) {
                cases.push(case);
            }
        }
        let labels: Vec<&str> = suspects.iter().map(|s| s.label.as_str()).collect();
        super::progress::say(&format!(
            "perftest health: {} slow case(s) of {} measured again at once",
            cases.len(),
            labels.join(", ")
        ));
        let again = super::confirm::measure_at_once(like, &cases, dir, &format!("again{}", n + 1))?;
        for suspect in &suspects {
            let Some(run) = super::confirm::run_of(members, &suspect.label) else { continue };
            let mine = slow_cases(suspect.device);
            let families = families_of(run, &mine);
            let found =
                again.iter().find(|r| r.device.slot().is_some() && r.device.slot() == run.device.slot());
            let Some(measured) = found else {
                // Its run measured again left nothing (its worker died, its device was lost): slow.
                confirmed.push(Confirmation {
                    label: suspect.label.clone(),
                    families,
                    alone: Rejudged {
                        against: "nothing: measured again, it gave no result".into(),
                        ..Rejudged::default()
                    },
                    together: None,
                    with: Vec::new(),
                    at_once: true,
                    verdict: Verdict::Slow,
                });
                continue;
            };
            // The reference's median, its spread as the noise on its side: slow again is slow
            // beyond 1% and three times that spread (or the case's own noise), where the first
            // judgement asked 3.5 spreads.
            let model = reference.model(&group.key);
            let expected = |name: &str| {
                let e = model?.case(name)?;
                (e.median > 0.0).then(|| (e.median, e.spread / e.median))
            };
            let alone = rejudge(measured, &mine, expected, "the reference's medians");
            let with: Vec<String> = again
                .iter()
                .filter(|r| r.device.slot() != run.device.slot())
                .filter_map(|r| r.device.slot().map(str::to_owned))
                .collect();
            confirmed.push(Confirmation {
                label: suspect.label.clone(),
                families,
                verdict: verdict(&alone, None),
                alone,
                together: None,
                with,
                at_once: true,
            });
        }
    }
    Ok(confirmed)
}

/// Families as a reason reads them: up to three, then how many more.
fn few(families: &[String]) -> String {
    match families.len() {
        0..=3 => families.join(", "),
        n => format!("{} and {} more families", families[..3].join(", "), n - 3),
    }
}

/// What a check prints: its summary line (with the check's `seconds`), then the verdict of the
/// `runs` GPUs measured.
pub fn document(fleet: &Fleet, runs: usize, seconds: f64) -> String {
    let verdict = crate::report::sections::fleet::to_text(fleet);
    format!("{} ({seconds:.0} s)\n{}", summary(fleet, runs), verdict.trim_end())
}

/// The check in a line, for a node-problem-detector condition or a log: `healthy: 4 GPU(s) ...`.
fn summary(fleet: &Fleet, runs: usize) -> String {
    match fleet.conclusion() {
        Conclusion::Healthy => {
            let judged: usize = fleet.groups.iter().map(|g| g.judged).sum();
            format!("healthy: {runs} GPU(s) within the reference, {judged} case(s) judged")
        }
        Conclusion::Faulty(devices) => format!("failed: {}", devices.join("; ")),
        Conclusion::Slow(devices) => format!("slow: {}", slow_with_families(fleet, &devices).join("; ")),
        Conclusion::Unjudged(devices) => format!("cannot be judged: {}", devices.join("; ")),
        Conclusion::Interference(devices) => {
            format!("slow only beside its host's GPUs: {}", devices.join("; "))
        }
        Conclusion::Unconfirmed(devices) => format!("slow, not measured again: {}", devices.join("; ")),
    }
}

/// Each slow device with the families it was slow in: `node7/0000:1a:00.0 (load, sweep)`.
fn slow_with_families(fleet: &Fleet, devices: &[String]) -> Vec<String> {
    devices
        .iter()
        .map(|label| {
            let families = fleet.confirmations.iter().find(|c| c.label == *label).map(|c| few(&c.families));
            let units = fleet
                .groups
                .iter()
                .flat_map(|g| g.slow_units.iter().filter(|u| g.devices[u.device] == *label))
                .map(|u| format!("compute unit {} in {}", u.unit, u.case))
                .next();
            match families.or(units) {
                Some(what) => format!("{label} ({what})"),
                None => label.clone(),
            }
        })
        .collect()
}

/// Why the node should be drained, where it should: a GPU on which a case lost the device,
/// crashed or hung (or whose perftest failed so), a GPU slow again, or one on which nothing was
/// timed. Noise, a reference that lacks the model or its cases, or a GPU another process shared,
/// is no reason to drain.
fn drain_reason(fleet: &Fleet) -> Option<String> {
    match fleet.conclusion() {
        Conclusion::Faulty(devices) => {
            return Some(format!("perftest health: GPU failed: {}", devices.join("; ")))
        }
        Conclusion::Slow(devices) => {
            return Some(format!(
                "perftest health: slow GPU {}",
                slow_with_families(fleet, &devices).join("; ")
            ))
        }
        _ => {}
    }
    let broken: Vec<String> = fleet
        .groups
        .iter()
        .flat_map(|g| {
            g.unjudged.iter().filter(|u| u.broken).map(|u| format!("{}: {}", g.devices[u.device], u.why))
        })
        .collect();
    (!broken.is_empty()).then(|| format!("perftest health: GPU cannot be judged: {}", broken.join("; ")))
}

/// The longest drain reason given to Slurm: it keeps a reason of any length, and a line of a
/// few hundred characters reads in `sinfo -R`.
const REASON_CHARS: usize = 240;

/// Drains the Slurm node `node` with `reason` (one argument to `scontrol`, no shell); a drain that
/// fails is said on stderr, and the verdict's exit code stands.
fn drain(node: &str, reason: &str) {
    let reason: String =
        crate::format::printable_lines(reason).replace('\n', " ").chars().take(REASON_CHARS).collect();
    let mut command = Command::new("scontrol");
    command.args(["update", &format!("NodeName={node}"), "State=DRAIN", &format!("Reason={reason}")]);
    let status = command.stdin(Stdio::null()).status();
    match status {
        Ok(s) if s.success() => super::progress::say(&format!("perftest health: drained {node}: {reason}")),
        Ok(s) => super::progress::say(&format!(
            "perftest health: scontrol could not drain {node} ({s}): drain it by hand"
        )),
        Err(e) => super::progress::say(&format!(
            "perftest health: cannot run scontrol to drain {node} ({e}): is Slurm's client installed?"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perftest_that_failed_before_measuring_is_the_gpus_fault_or_the_setups() {
        for ended in [Ended::Signal(11), Ended::Code(101), Ended::Code(14), Ended::Code(8), Ended::Code(3)] {
            assert!(gpu_failed(&ended), "{ended:?}");
        }
        for ended in [Ended::Code(2), Ended::Code(5), Ended::Code(10), Ended::Stopped, Ended::Code(0)] {
            assert!(!gpu_failed(&ended), "{ended:?}");
        }
    }

    #[test]
    fn a_fault_drains_before_anything_else() {
        let mut fleet = crate::analysis::fleet::judge(&[]);
        assert_eq!(drain_reason(&fleet), None);
        fleet.faulty.push(Left {
            label: "this node's NVIDIA H100".into(),
            why: "perftest died with signal 11 before it measured".into(),
        });
        assert_eq!(
            drain_reason(&fleet).as_deref(),
            Some("perftest health: GPU failed: this node's NVIDIA H100: perftest died with signal 11 before it measured")
        );
        assert_eq!(super::super::fleet::conclude(&fleet).unwrap_err().exit_code(), ExitCode::Faulty);
    }
}
