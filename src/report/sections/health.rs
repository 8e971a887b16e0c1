//! What `perftest health` says, in words about one node: a summary line (a node-problem-detector
//! condition's message, a log's line), a line per GPU (its verdict and why), the cases behind
//! them, and what to do last; and the reason a drained node carries in Slurm.

use super::super::doc::{self, Block};
use crate::analysis::fleet::{Conclusion, Drain, Fleet, State};
use crate::format::count;

/// What a check prints: its summary line (with the check's `seconds`), a line per GPU of the
/// `runs` measured (each whole on its line, for a log's grep), each group's cases outside the
/// reference (fitted to 120 columns), and the action.
pub fn document(fleet: &Fleet, runs: usize, seconds: f64) -> String {
    let head = format!("{} ({seconds:.0} s)", summary(fleet, runs));
    let groups: Vec<Block> = fleet
        .groups
        .iter()
        .enumerate()
        .flat_map(|(n, group)| [Block::Gap, super::fleet::group_section(n, group, false, true)])
        .skip(1)
        .collect();
    let details = crate::report::columns::fit(doc::text(&groups).trim_end());
    let mut lines = vec![head];
    lines.extend(gpu_lines(fleet));
    if !details.is_empty() {
        lines.extend(["".to_owned(), details]);
    }
    lines.extend(["".to_owned(), format!("action: {}", action(fleet))]);
    lines.join("\n")
}

/// The check in a line: `healthy: 4 GPUs within the reference, 70 cases judged on each`,
/// `slow: node7/0000:1b:00.0 (alu)`, `cannot be judged: node7/0000:1b:00.0 (another process
/// used its GPU ...)`: the GPU and the first clause of why; its line says the rest.
pub fn summary(fleet: &Fleet, runs: usize) -> String {
    match fleet.conclusion() {
        Conclusion::Healthy => {
            let judged: Vec<usize> =
                fleet.groups.iter().flat_map(|g| g.ranking.iter().map(|s| s.judged)).collect();
            let (least, most) = (judged.iter().min().copied(), judged.iter().max().copied());
            let judged = match (least, most) {
                (Some(l), Some(m)) if l == m && runs > 1 => format!("{} judged on each", count(l, "case")),
                (Some(l), Some(m)) if l == m => format!("{} judged", count(l, "case")),
                (Some(l), Some(m)) => format!("{l} to {m} cases judged on each"),
                _ => "no case judged".to_owned(),
            };
            format!("healthy: {} within the reference, {judged}", count(runs, "GPU"))
        }
        Conclusion::Corrupt(devices) => format!("corrupt: {}", devices.join("; ")),
        Conclusion::Faulty(devices) => format!("failed: {}", devices.join("; ")),
        Conclusion::Slow(devices) => format!("slow: {}", slow_with_families(fleet, &devices).join("; ")),
        Conclusion::Unjudged(devices) => format!("cannot be judged: {}", briefly(&devices).join("; ")),
        Conclusion::Interference(devices) => {
            format!("slow only beside its host's GPUs: {}", devices.join("; "))
        }
        Conclusion::Unconfirmed(devices) => format!("slow, not measured again: {}", devices.join("; ")),
    }
}

/// `label: why: what to do` as `label (why)`: a summary's share of a line, cut at the first
/// `: ` outside parentheses; GPUs of one cause share it (`gpu0, gpu1 (why)`).
fn briefly(devices: &[String]) -> Vec<String> {
    let mut causes: Vec<(Vec<&str>, &str)> = Vec::new();
    for d in devices {
        let (label, why) = d.split_once(": ").map_or((d.as_str(), ""), |(l, w)| (l, first_clause(w)));
        match causes.iter_mut().find(|(_, cause)| *cause == why) {
            Some((labels, _)) => labels.push(label),
            None => causes.push((vec![label], why)),
        }
    }
    causes
        .into_iter()
        .map(|(labels, why)| match why.is_empty() {
            true => labels.join(", "),
            false => format!("{} ({why})", labels.join(", ")),
        })
        .collect()
}

/// `text` up to its first `: ` outside parentheses (all of it where there is none).
fn first_clause(text: &str) -> &str {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ':' if depth == 0 && text[i + 1..].starts_with(' ') => return &text[..i],
            _ => {}
        }
    }
    text
}

/// Each GPU in a line, its verdict and why first: failed, cannot be judged (with its cause),
/// slow (with its size, and how it fared measured again), differs, or healthy; and its families
/// not judged.
fn gpu_lines(fleet: &Fleet) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut said: Vec<&str> = Vec::new();
    for left in &fleet.faulty {
        lines.push(format!("{}: failed: {}", left.label, left.why));
        said.push(&left.label);
    }
    for left in fleet.shared.iter().chain(&fleet.unreferenced) {
        lines.push(format!("{}: cannot be judged: {}", left.label, left.why));
        said.push(&left.label);
    }
    for group in &fleet.groups {
        let tolerance = format!("{:.1}%", group.tolerance * 100.0);
        for s in group.ranking.iter().filter(|s| !said.contains(&s.label.as_str())) {
            let unjudged = group.unjudged.iter().find(|u| u.device == s.device);
            let confirmed = fleet.confirmations.iter().find(|c| c.label == s.label);
            let verdict = match (unjudged, confirmed, s.state) {
                // Measured again, its confirmation decides (as it decides the check's ending).
                (_, Some(c), _) => format!(
                    "{}: {} beyond the {tolerance} tolerance; measured {}",
                    c.verdict.word(),
                    s.size_text(),
                    super::fleet::measured_again(c)
                ),
                (Some(u), None, _) => format!("cannot be judged: {}", u.why),
                (None, None, State::Slow) => {
                    format!("slow: {} beyond the {tolerance} tolerance", s.size_text())
                }
                (None, None, State::Differs) => {
                    format!("differs: {}, within the {tolerance} tolerance", s.size_text())
                }
                (None, None, State::Healthy) => format!("healthy: within the {tolerance} tolerance"),
            };
            let outside = match s.slower + s.faster {
                0 => String::new(),
                n => format!(", {n} outside the reference: {} slower, {} faster", s.slower, s.faster),
            };
            // A GPU not judged at all is not judged in its families either: said once.
            let not_judged = match s.unresolved.is_empty() || unjudged.is_some() {
                true => String::new(),
                false => format!(
                    "; not judged: {} (a slowdown past the tolerance can be neither found nor ruled out)",
                    s.unresolved_text()
                ),
            };
            lines.push(format!(
                "{}: {verdict}; {} judged{outside}{not_judged}",
                s.label,
                count(s.judged, "case")
            ));
        }
    }
    lines
}

/// What to do, by the check's conclusion: the last line.
fn action(fleet: &Fleet) -> &'static str {
    match fleet.conclusion() {
        Conclusion::Healthy => "none: every GPU is within the reference",
        Conclusion::Corrupt(_) => {
            "drain the node (--drain does): the GPU computed wrong bits; run perftest --family sdc on it again to \
             confirm the unit, then have it replaced (docs/corruption.md)"
        }
        Conclusion::Faulty(_) => {
            "drain the node (--drain does) and look at the GPU that failed and its driver (dmesg, nvidia-smi -q)"
        }
        Conclusion::Slow(_) => {
            "drain the node (--drain does) and look at the slow GPU: its clocks, power and temperature \
             (nvidia-smi -q -d PERFORMANCE,CLOCK,POWER,TEMPERATURE)"
        }
        Conclusion::Unjudged(_) => "none decided, and not passed: do what its line says, then check again",
        Conclusion::Interference(_) => {
            "look at the node's power, PCIe and CPU: the GPU is slow only beside the others"
        }
        Conclusion::Unconfirmed(_) => "check again: a slow GPU was not measured again",
    }
}

/// The reason a drained node carries (`scontrol update ... Reason=`): what [`Fleet::drain`] found.
pub fn drain_reason(fleet: &Fleet, drain: &Drain) -> String {
    match drain {
        Drain::Corrupt(devices) => {
            format!("perftest health: GPU computed wrong bits: {}", devices.join("; "))
        }
        Drain::Faulty(devices) => format!("perftest health: GPU failed: {}", devices.join("; ")),
        Drain::Slow(devices) => {
            format!("perftest health: slow GPU {}", slow_with_families(fleet, devices).join("; "))
        }
        Drain::Broken(devices) => format!("perftest health: GPU cannot be judged: {}", devices.join("; ")),
    }
}

/// Families as a reason reads them: up to three, then how many more.
fn few(families: &[String]) -> String {
    match families.len() {
        0..=3 => families.join(", "),
        n => format!("{} and {} more families", families[..3].join(", "), n - 3),
    }
}

/// Each slow device with the families it was slow in: `node7/0000:1a:00.0 (load, sweep)`.
fn slow_with_families(fleet: &Fleet, devices: &[String]) -> Vec<String> {
    devices
        .iter()
        .map(|label| {
            // Where the whole GPU is slow too, say so: a family named alone reads as that family's fault.
            let tolerance = |g: &crate::analysis::fleet::Group| g.tolerance;
            let whole = fleet.groups.iter().find_map(|g| {
                let s = g.ranking.iter().find(|s| s.label == *label)?;
                s.effects.iter().find(|e| e.family.is_none() && e.slow(tolerance(g))).map(|e| e.change)
            });
            let families = fleet.confirmations.iter().find(|c| c.label == *label).map(|c| match whole {
                Some(change) => format!("{}; every case {:+.1}%", few(&c.families), change * 100.0),
                None => few(&c.families),
            });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fleet::tests::device_run;
    use crate::analysis::fleet::{judge_against, reference, Left, Member};
    use crate::results::model::Run;

    /// `health`'s document for `runs` (one GPU each) against a reference of eight healthy H200s.
    fn log(runs: &[Run]) -> (String, Fleet) {
        let healthy: Vec<Run> = (0..8).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
        let labels = |runs: &[Run], name: &str| -> Vec<String> {
            (0..runs.len()).map(|i| format!("{name}/0000:1{i}:00.0")).collect()
        };
        let screen = labels(&healthy, "screen");
        let members: Vec<Member<'_>> =
            healthy.iter().zip(&screen).map(|(run, label)| Member { label: label.clone(), run }).collect();
        let made = reference::make(&members, "2026-11-27T00:00:00Z".into(), None);
        let node = labels(runs, "node7");
        let members: Vec<Member<'_>> =
            runs.iter().zip(&node).map(|(run, label)| Member { label: label.clone(), run }).collect();
        let fleet = judge_against(&members, Some(&made));
        (document(&fleet, runs.len(), 12.0), fleet)
    }

    #[test]
    fn a_healthy_node_is_one_summary_a_line_per_gpu_and_no_action() {
        let (text, _) = log(&[device_run("NVIDIA H200", 11, 1.0), device_run("NVIDIA H200", 12, 1.0)]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0], "healthy: 2 GPUs within the reference, 40 cases judged on each (12 s)",
            "{text}"
        );
        assert!(
            lines[1].starts_with("node7/0000:10:00.0: healthy: within the 2.0% tolerance; 40 cases judged")
        );
        assert!(lines[2].starts_with("node7/0000:11:00.0: healthy: "), "{text}");
        assert_eq!(*lines.last().unwrap(), "action: none: every GPU is within the reference");
        for fleet_words in ["fleet", "devices, most slow", "1 devices", "its fleet"] {
            assert!(!text.contains(fleet_words), "{fleet_words:?} in a node's log: {text}");
        }
    }

    #[test]
    fn a_gpu_that_differs_says_by_how_much_and_passes() {
        let (text, fleet) = log(&[device_run("NVIDIA H200", 11, 0.985)]);
        assert_eq!(fleet.conclusion(), Conclusion::Healthy);
        let gpu = text.lines().nth(1).unwrap();
        assert!(gpu.starts_with("node7/0000:10:00.0: differs: load -1.5% (± "), "{text}");
        assert!(gpu.contains("within the 2.0% tolerance; 40 cases judged"), "{gpu}");
    }

    #[test]
    fn a_slow_gpu_its_failure_and_one_that_cannot_be_judged_each_say_why_and_what_to_do() {
        let (text, _) = log(&[device_run("NVIDIA H200", 11, 0.9)]);
        assert!(text.starts_with("slow, not measured again: node7/0000:10:00.0"), "{text}");
        assert!(text.lines().nth(1).unwrap().contains(": slow: load -10.0% (± "), "{text}");
        // Its 40 slow cases: the ten slowest, and how many more.
        assert!(
            text.contains("\n    and 30 cases more (--keep DIR keeps the runs that hold them)\n"),
            "{text}"
        );
        assert_eq!(text.lines().last().unwrap(), "action: check again: a slow GPU was not measured again");
        // Two GPUs of one cause share it in the summary.
        let two =
            ["node7/0000:10:00.0: too few cases: judge it again", "node7/0000:11:00.0: too few cases: again"];
        assert_eq!(
            briefly(&two.map(String::from)),
            ["node7/0000:10:00.0, node7/0000:11:00.0 (too few cases)"]
        );
        // A GPU that lost the device in a case fails before anything else; the action is a drain.
        let (_, mut fleet) = log(&[device_run("NVIDIA H200", 11, 1.0)]);
        fleet.faulty.push(Left {
            label: "node7/0000:10:00.0".into(),
            why: "perftest exited 8 before it measured".into(),
        });
        let text = document(&fleet, 1, 3.0);
        assert!(
            text.starts_with("failed: node7/0000:10:00.0: perftest exited 8 before it measured (3 s)\n"),
            "{text}"
        );
        assert_eq!(
            text.lines().nth(1).unwrap(),
            "node7/0000:10:00.0: failed: perftest exited 8 before it measured"
        );
        assert!(text.ends_with("(dmesg, nvidia-smi -q)"), "{text}");
        // Shared: the cause in the summary, the whole why on its line, never a pass.
        let (_, mut fleet) = log(&[]);
        let why = "another process used its GPU in 9 of 9 readings (pid 7 (python3)): measure it again when no other process uses it";
        fleet.shared.push(Left { label: "node7/0000:10:00.0".into(), why: why.into() });
        let text = document(&fleet, 1, 3.0);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "cannot be judged: node7/0000:10:00.0 (another process used its GPU in 9 of 9 readings (pid 7 (python3))) (3 s)");
        assert_eq!(lines[2], "", "no group: the GPU's line, a gap, the action");
        assert_eq!(lines[1], format!("node7/0000:10:00.0: cannot be judged: {why}"));
        assert_eq!(
            *lines.last().unwrap(),
            "action: none decided, and not passed: do what its line says, then check again"
        );
    }

    #[test]
    fn a_gpu_whose_cases_spread_too_wide_for_the_tolerance_cannot_be_judged() {
        // Every sample of every case 20% apart from the next: its rates can rule nothing out.
        let mut wild = device_run("NVIDIA H200", 11, 1.0);
        wild.cases.truncate(3);
        for case in &mut wild.cases {
            case.samples_ms = vec![16.0, 20.0, 24.0, 20.0, 12.0];
        }
        let (text, fleet) = log(&[wild]);
        assert!(matches!(fleet.conclusion(), Conclusion::Unjudged(_)), "{text}");
        assert!(text.starts_with("cannot be judged: node7/0000:10:00.0 ("), "{text}");
        assert!(text.contains("measure it again on a quiet machine"), "{text}");
    }

    #[test]
    fn a_fault_drains_before_anything_else() {
        let mut fleet = crate::analysis::fleet::judge(&[]);
        assert_eq!(fleet.drain(), None);
        fleet.faulty.push(Left {
            label: "this node's NVIDIA H100".into(),
            why: "perftest died with signal 11 before it measured".into(),
        });
        let drain = fleet.drain().unwrap();
        assert_eq!(
            drain_reason(&fleet, &drain),
            "perftest health: GPU failed: this node's NVIDIA H100: perftest died with signal 11 before it measured"
        );
        assert_eq!(fleet.ending().unwrap_err().exit_code(), crate::ExitCode::Faulty);
    }
}
