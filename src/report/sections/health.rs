//! What `perftest health` says: a summary line (a node-problem-detector condition's message, a
//! log's line), the verdict after it, and the reason a drained node carries in Slurm.

use crate::analysis::fleet::{Conclusion, Drain, Fleet};
use crate::format::count;

/// What a check prints: its summary line (with the check's `seconds`), then the verdict of the
/// `runs` GPUs measured.
pub fn document(fleet: &Fleet, runs: usize, seconds: f64) -> String {
    let verdict = super::fleet::to_text(fleet);
    format!("{} ({seconds:.0} s)\n{}", summary(fleet, runs), verdict.trim_end())
}

/// The check in a line: `healthy: 4 GPU(s) ...`, `slow: node7/0000:1b:00.0 (alu)`.
pub fn summary(fleet: &Fleet, runs: usize) -> String {
    match fleet.conclusion() {
        Conclusion::Healthy => {
            let judged: usize = fleet.groups.iter().map(|g| g.judged).sum();
            let (runs, judged) = (count(runs, "GPU"), count(judged, "case"));
            format!("healthy: {runs} within the reference, {judged} judged")
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

/// The reason a drained node carries (`scontrol update ... Reason=`): what [`Fleet::drain`] found.
pub fn drain_reason(fleet: &Fleet, drain: &Drain) -> String {
    match drain {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fleet::Left;

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
