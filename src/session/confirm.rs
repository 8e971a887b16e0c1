//! Suspects measured again before a verdict. `perftest fleet --confirm`: each suspect's slow cases
//! on it alone and on a healthy peer of its host alone (perftest itself, `--case` by name); where
//! it is not slow alone, on every GPU of the host at once. `perftest health`: every suspect's slow
//! cases on every GPU of its model here at once, held to the reference. The judging is
//! [`crate::analysis::confirm`]'s.

use std::path::{Path, PathBuf};

use super::child::{Ended, Job, Pick};
use crate::analysis::confirm::{
    median_of, rate_in, rejudge, verdict, Baseline, Confirmation, Rejudged, Verdict,
};
use crate::analysis::fleet::reference::Reference;
use crate::analysis::fleet::{Fleet, Group, Member, Standing};
use crate::error::{Error, Result};
use crate::results::Run;

/// Confirms every suspect of `fleet` (a device slow in its cases, not only in a compute unit)
/// whose runs were made on this host; suspects of other hosts are left to a confirmation there.
pub fn confirm(fleet: &Fleet, members: &[Member<'_>]) -> Result<Vec<Confirmation>> {
    let here = super::host::host_name()?;
    let dir = tempfile::tempdir().map_err(Error::Io)?;
    let mut confirmed = Vec::new();
    for group in &fleet.groups {
        for standing in group.ranking.iter().filter(|s| group.is_suspect(s)) {
            let Some(suspect) = run_of(members, &standing.label) else { continue };
            if suspect.host.is_none() || suspect.host != here {
                super::progress::say(&format!(
                    "perftest fleet --confirm: {} ran on {}, not here: confirm it there",
                    standing.label,
                    suspect.host.as_deref().unwrap_or("an unnamed host")
                ));
                continue;
            }
            let at = dir.path().join(format!("suspect{}", confirmed.len() + 1));
            std::fs::create_dir_all(&at).map_err(Error::Io)?;
            confirmed.push(confirm_one(group, standing, suspect, members, &at)?);
        }
    }
    Ok(confirmed)
}

/// Measures every suspect's slow cases again, on every GPU of its model here at once (one run,
/// so that a node of eight slow GPUs is confirmed within Slurm's minute), and holds each
/// suspect's cases to the reference's medians: slow again in half of them or more is slow.
pub fn confirm_at_once(
    fleet: &Fleet,
    members: &[Member<'_>],
    reference: &Reference,
    dir: &Path,
) -> Result<Vec<Confirmation>> {
    let mut confirmed = Vec::new();
    for (n, group) in fleet.groups.iter().enumerate() {
        let suspects: Vec<&Standing> = group.ranking.iter().filter(|s| group.is_suspect(s)).collect();
        let Some(like) = suspects.first().and_then(|s| run_of(members, &s.label)) else {
            continue;
        };
        let slow_cases =
            |s: &Standing| run_of(members, &s.label).map_or(Vec::new(), |r| group.slow_cases(s, r));
        let mut cases: Vec<String> = Vec::new();
        for case in suspects.iter().flat_map(|s| slow_cases(s)) {
            if !cases.contains(&case) {
                cases.push(case);
            }
        }
        let labels: Vec<&str> = suspects.iter().map(|s| s.label.as_str()).collect();
        super::progress::say(&format!(
            "perftest health: {} of {} measured again at once",
            crate::format::count(cases.len(), "slow case"),
            labels.join(", ")
        ));
        let again = measure_at_once(like, &cases, dir, &format!("again{}", n + 1))?;
        for suspect in &suspects {
            let Some(run) = run_of(members, &suspect.label) else { continue };
            let mine = slow_cases(suspect);
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
            // The reference's median, its run-to-run spread and, for a heavy-tailed case, its
            // tail: the effect measured again is judged as the screen judged it.
            let model = reference.model(&group.key);
            let expected = |name: &str| model?.case(name)?.baseline(group.tolerance);
            let alone = rejudge(measured, &mine, expected, "the reference's medians", group.tolerance);
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

/// The families of `cases` in `run`, in first-seen order.
fn families_of(run: &Run, cases: &[String]) -> Vec<String> {
    let mut families: Vec<String> = Vec::new();
    for name in cases {
        let family = run.cases.iter().find(|c| c.name == *name).map(|c| c.family.clone());
        if let Some(family) = family.filter(|f| !families.contains(f)) {
            families.push(family);
        }
    }
    families
}

/// The run of the device the fleet labels `label`.
fn run_of<'a>(members: &[Member<'a>], label: &str) -> Option<&'a Run> {
    members.iter().find(|m| m.label == label).map(|m| m.run)
}

/// A device's slot, as perftest picks it by name: its PCI address, else its UUID.
fn slot(run: &Run) -> Option<String> {
    run.device.slot().map(str::to_owned)
}

/// Measures `standing`'s slow cases again on it alone, on a healthy peer of its host alone, and
/// where it is not slow alone, on every GPU of the host at once; writes the runs under `dir`.
fn confirm_one(
    group: &Group,
    standing: &Standing,
    suspect: &Run,
    members: &[Member<'_>],
    dir: &Path,
) -> Result<Confirmation> {
    let cases = group.slow_cases(standing, suspect);
    let families = families_of(suspect, &cases);
    // A peer: a device of the group on the same host, not a suspect, the fewest outliers first.
    let peer = group
        .ranking
        .iter()
        .rev()
        .filter(|s| !s.slow && s.device != standing.device)
        .filter_map(|s| run_of(members, &s.label))
        .find(|r| r.host == suspect.host && slot(r).is_some());
    let suspect_slot = slot(suspect).ok_or_else(|| Error::ResultsFile {
        path: standing.label.clone(),
        problem: "names neither a PCI address nor a UUID: perftest cannot pick its GPU to confirm it".into(),
    })?;
    super::progress::say(&format!(
        "perftest fleet --confirm: {}: its {} alone{}",
        standing.label,
        crate::format::count(cases.len(), "slow case"),
        peer.and_then(slot).map_or(String::new(), |p| format!(", then {p} alone"))
    ));
    let alone_run = measure(suspect, &suspect_slot, &cases, &dir.join("alone.json"))?;
    let alone = match peer {
        Some(peer_run) => {
            let peer_slot = slot(peer_run).unwrap_or_default();
            let reference = measure(suspect, &peer_slot, &cases, &dir.join("peer.json"))?;
            rejudge(
                &alone_run,
                &cases,
                |n| rate_in(&reference, n),
                &format!("{peer_slot} alone"),
                group.tolerance,
            )
        }
        None => {
            let medians = |n: &str| {
                group.medians.get(n).map(|m| Baseline { rate: *m, spread: 0.0, tail: 0.0, run_to_run: false })
            };
            let against = match group.reference {
                Some(_) => "the reference's medians",
                None => "the fleet's medians (no other GPU of its model on this host)",
            };
            rejudge(&alone_run, &cases, medians, against, group.tolerance)
        }
    };
    let (together, with) = match alone.reproduced() {
        true => (None, Vec::new()),
        false => {
            super::progress::say(&format!(
                "perftest fleet --confirm: {}: not slow alone; now with every GPU of its host at once",
                standing.label
            ));
            let (mine, others) = measure_together(suspect, &suspect_slot, &cases, dir)?;
            let peers: Vec<&Run> = others.iter().collect();
            let against = format!("the median of {} at once", crate::format::count(peers.len(), "other GPU"));
            let with: Vec<String> = others.iter().filter_map(slot).collect();
            // Alone on its host, it has no siblings to be slowed by.
            let together = (!peers.is_empty())
                .then(|| rejudge(&mine, &cases, |n| median_of(&peers, n), &against, group.tolerance));
            (together, with)
        }
    };
    let verdict = verdict(&alone, together.as_ref());
    Ok(Confirmation {
        label: standing.label.clone(),
        families,
        alone,
        together,
        with,
        at_once: false,
        verdict,
    })
}

/// Runs perftest on `pick` with `like`'s target, samples and axes on exactly `cases`, its JSON to
/// `json` ([`super::child`]: a name is never an option, the environment's options do not reach it);
/// its exit code is not the confirmation's (a failed case is judged as missing), but a run that
/// wrote nothing is an error, and one a signal stopped ends the command.
fn run_perftest(pick: Pick<'_>, like: &Run, cases: &[String], json: &Path) -> Result<()> {
    let job = Job { pick, settings: &like.settings, cases: Some(cases), json, host: None };
    match super::child::run(&super::child::args(&job))? {
        Ended::Stopped => Err(Error::Halted { command: "perftest fleet --confirm" }),
        _ => Ok(()),
    }
}

/// `cases` measured on the device at `device` alone, as `like` measured them.
fn measure(like: &Run, device: &str, cases: &[String], json: &Path) -> Result<Run> {
    run_perftest(Pick::One(device), like, cases, json)?;
    crate::results::load(json)
}

/// `cases` measured on every GPU of the host named like `like`'s at once, as `like` measured
/// them: each GPU's run, its JSON under `dir` as `NAME-gpuN.json`.
fn measure_at_once(like: &Run, cases: &[String], dir: &Path, name: &str) -> Result<Vec<Run>> {
    let json = dir.join(format!("{name}.json"));
    run_perftest(Pick::Every(&like.device.name), like, cases, &json)?;
    let mut runs = Vec::new();
    for n in 1.. {
        let path: PathBuf = super::device_path(&json, n);
        if !path.exists() {
            break;
        }
        runs.push(crate::results::load(&path)?);
    }
    Ok(runs)
}

/// `cases` measured on every GPU of the host named like `like`'s at once: the run of the one at
/// `slot`, and the others'.
fn measure_together(like: &Run, slot: &str, cases: &[String], dir: &Path) -> Result<(Run, Vec<Run>)> {
    let json = dir.join("together.json");
    let mut mine = None;
    let mut others = Vec::new();
    for run in measure_at_once(like, cases, dir, "together")? {
        match run.device.slot() == Some(slot) {
            true => mine = Some(run),
            false => others.push(run),
        }
    }
    let mine = mine.ok_or_else(|| Error::ResultsFile {
        path: json.display().to_string(),
        problem: format!("holds no run of {slot}: the GPUs measured at once did not include it"),
    })?;
    Ok((mine, others))
}
