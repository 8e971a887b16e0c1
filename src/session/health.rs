//! `perftest health`: a node's health check. Runs the reference's cases on every GPU of its
//! models here at once (perftest itself, as `fleet --confirm` does), judges each run against the
//! reference ([`crate::analysis::fleet::judge_against`]), measures the suspects' slow cases again
//! (all at once), prints a summary line and the verdict, writes metrics, drains the Slurm node where a GPU
//! fails, and ends with fleet's exit code (or a node-problem-detector plugin's).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use super::confirm::{families_of, slow_cases};
use crate::analysis::confirm::{rejudge, verdict, Confirmation, Rejudged, Verdict};
use crate::analysis::fleet::reference::Reference;
use crate::analysis::fleet::{judge_against, Conclusion, Fleet, Member, Standing};
use crate::error::{Error, ExitCode, Result};
use crate::results::model::Settings;
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
    let plugin = |code, error| Err(Error::Plugin { code, error: Box::new(error) });
    match ending {
        Ok(Ok(())) => Ok(()),
        Ok(Err((error, true))) => plugin(ExitCode::Failure, error),
        Ok(Err((error, false))) | Err(error) => plugin(ExitCode::Usage, error),
    }
}

/// The check: `Err` where it could not judge; else the verdict's ending, a failure with whether
/// it is a reason to drain.
fn check(request: &Request<'_>) -> Result<std::result::Result<(), (Error, bool)>> {
    let began = Instant::now();
    let reference = super::fleet::load_reference(request.reference)?;
    let temporary = tempfile::tempdir().map_err(Error::Io)?;
    let dir = match request.keep {
        Some(keep) => {
            // To the second, and the process: two checks never share a folder.
            let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
            keep.join(format!("{}-{}", stamp.replace(':', "-"), std::process::id()))
        }
        None => temporary.path().join("runs"),
    };
    std::fs::create_dir_all(&dir).map_err(Error::Io)?;
    let (runs, failed) = measure(&reference, &dir)?;
    if runs.is_empty() {
        if let Some((model, code)) = failed {
            return Err(Error::Unjudged {
                count: 1,
                devices: vec![format!(
                    "this node's {model}: perftest exited {code} before it measured (its message is above)"
                )],
            });
        }
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
    let members: Vec<Member<'_>> =
        runs.iter().map(|(file, run)| Member { label: super::fleet::label(file, run), run }).collect();
    let mut fleet = judge_against(&members, Some(&reference));
    fleet.confirmations = confirm_at_once(&fleet, &members, &reference, &dir)?;
    let seconds = began.elapsed().as_secs_f64();
    let document = crate::report::sections::fleet::to_text(&fleet);
    super::progress::write_line(&format!("{} ({seconds:.0} s)", summary(&fleet, members.len())))?;
    super::progress::write_line(document.trim_end())?;
    if let Some(path) = request.metrics {
        crate::report::write_atomic(path, &crate::report::prometheus::render(&fleet, &members))?;
    }
    let reason = drain_reason(&fleet);
    if let (true, Some(reason)) = (request.drain, &reason) {
        drain(reason);
    }
    Ok(super::fleet::conclude(&fleet).map_err(|error| (error, reason.is_some())))
}

/// The options that run the cases `settings` ran, as a reference's model recorded them.
fn options_of(settings: &Settings) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        "--target-ms".into(),
        settings.target_ms.to_string().into(),
        "--samples".into(),
        settings.samples.to_string().into(),
    ];
    if settings.quick {
        args.push("--quick".into());
    }
    if let Some(filter) = &settings.filter {
        args.extend(["--filter".into(), filter.into()]);
    }
    let lists = [("--family", &settings.families), ("--skip", &settings.skip), ("--axis", &settings.axes)];
    for (option, values) in lists.into_iter().chain([("--case", &settings.cases)]) {
        for value in values {
            args.extend([option.into(), value.into()]);
        }
    }
    args
}

/// What [`measure`] gives: each run with its file, and the first model whose run failed, with its
/// exit code.
type Measured = (Vec<(String, Run)>, Option<(String, i32)>);

/// Runs each model's cases (one run per device and settings) on every GPU of it here at once, its
/// JSON into `dir`; a model with no GPU here is passed over. Returns each run with its file, and
/// the first model whose run ended otherwise, with its exit code.
fn measure(reference: &Reference, dir: &Path) -> Result<Measured> {
    let exe = std::env::current_exe().map_err(Error::Io)?;
    let mut seen: Vec<(&str, &str)> = Vec::new();
    let mut failed = None;
    for model in &reference.models {
        let id = (model.key.device.as_str(), model.key.settings.as_str());
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        let into: PathBuf = dir.join(format!("model{}", seen.len()));
        std::fs::create_dir_all(&into).map_err(Error::Io)?;
        let mut folder = into.into_os_string();
        folder.push("/");
        let output = Command::new(&exe)
            .args(["--all-devices", model.key.device.as_str()])
            .args(options_of(&model.settings))
            .arg("--json")
            .arg(&folder)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(Error::Io)?;
        let code = output.status.code().unwrap_or(-1);
        // No GPU of this model here: another model of the reference may be.
        if code == ExitCode::NoSuchDevice as i32 {
            continue;
        }
        if code != 0 && failed.is_none() {
            failed = Some((model.key.device.clone(), code));
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !stderr.trim().is_empty() {
            super::progress::say(stderr.trim_end());
        }
    }
    let mut runs = Vec::new();
    for n in 1..=seen.len() {
        let folder = dir.join(format!("model{n}"));
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .map_err(Error::Io)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for file in files {
            let run = crate::results::load(&file)?;
            runs.push((file.display().to_string(), run));
        }
    }
    Ok((runs, failed))
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

/// The check in a line, for a node-problem-detector condition or a log: `healthy: 4 GPU(s) ...`.
fn summary(fleet: &Fleet, runs: usize) -> String {
    match fleet.conclusion() {
        Conclusion::Healthy => {
            let judged: usize = fleet.groups.iter().map(|g| g.judged).sum();
            format!("healthy: {runs} GPU(s) within the reference, {judged} case(s) judged")
        }
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

/// Why the node should be drained, where it should: a GPU slow again, or one on which nothing was
/// timed (every case failed, crashed or hung). Noise, a reference that lacks the model or its
/// cases, or a GPU another process shared, is no reason to drain.
fn drain_reason(fleet: &Fleet) -> Option<String> {
    if let Conclusion::Slow(devices) = fleet.conclusion() {
        return Some(format!("perftest health: slow GPU {}", slow_with_families(fleet, &devices).join("; ")));
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

/// Drains this Slurm node (`SLURMD_NODENAME`, which slurmd gives its health check, else this
/// host's name) with `reason`; a drain that fails is said on stderr, and the verdict's exit code
/// stands.
fn drain(reason: &str) {
    let node = std::env::var("SLURMD_NODENAME").ok().filter(|n| !n.is_empty()).or_else(super::host_name);
    let Some(node) = node else {
        super::progress::say(
            "perftest health: cannot drain: this host has no name and SLURMD_NODENAME is not set",
        );
        return;
    };
    // Slurm keeps a reason of any length; a line of a few hundred characters reads in sinfo -R.
    let reason: String = reason.chars().take(240).collect();
    let status = Command::new("scontrol")
        .args(["update", &format!("NodeName={node}"), "State=DRAIN", &format!("Reason={reason}")])
        .stdin(Stdio::null())
        .status();
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
    fn a_models_settings_run_again_as_the_same_options() {
        let settings = Settings {
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
        };
        let args: Vec<String> =
            options_of(&settings).iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let mut line = vec!["perftest".to_owned()];
        line.extend(args);
        let cli = <crate::cli::Cli as clap::Parser>::try_parse_from(&line).unwrap();
        assert_eq!((cli.target_ms, cli.samples, cli.quick), (10.0, 5, true));
        assert_eq!(cli.family, ["alu", "load"]);
        assert_eq!(
            (cli.filter.as_deref(), cli.skip.as_slice()),
            (Some("fp32"), ["sin".to_owned()].as_slice())
        );
    }
}
