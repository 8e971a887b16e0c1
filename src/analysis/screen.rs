//! What makes a screen no screen, whatever the rates say: a GPU another process used while it
//! ran (the driver time-slices it, and GPU timestamps see only perftest's slices, so its rates
//! look healthy), a GPU that ran with others on its host but left no run to judge, and a GPU on
//! which a case lost the device, crashed its worker or hung (a fault, whatever its rates).

use serde::Serialize;

use crate::record::stats::median;
use crate::results::model::{Run, Status};

/// Below this share of their wall time on the GPU, a run's samples were time-sliced with another
/// process. A GPU of its own gives a sample most of its wall time (the submission and the
/// read-back around each are small): a median of 0.95 to 0.99 in full runs on H100s and H200s;
/// 0.90 to 0.95 in `--quick` runs (10 ms measurements: the host's share is larger), down to 0.897
/// on two H200s of one host (2026-11-29, results/health-log/). Beside PyTorch's matmuls on the
/// same GPU: 0.71 on an H100 (results/verdicts/), 0.50 and 0.64 on H200s (results/health-log/).
/// NVML, where it watches, sees the other process itself; this share is the witness where it
/// cannot (another container's process, no NVML).
pub const SHARED_BELOW: f64 = 0.8;

/// The share of their wall time perftest's samples had the GPU for: over the cases timed by GPU
/// timestamps, the median of the samples' GPU time over their wall time. `None` without such
/// cases, and on a CPU implementation (lavapipe, SwiftShader), whose "GPU" is the host's cores:
/// there the share falls with any load on the host (0.88 on this project's 2-core CI machine
/// while it built), which says nothing of another process on a GPU.
pub fn busy_share(run: &Run) -> Option<f64> {
    if run.device.kind == "Cpu" {
        return None;
    }
    let shares = run.cases.iter().filter(|c| c.timed_rate().is_some()).filter_map(|c| {
        let fenced = c.flags.iter().any(|f| matches!(f, crate::results::flag::Flag::Fenced));
        let phases = c.phases.as_ref().filter(|p| p.samples_ms > 0.0 && p.samples_gpu_ms > 0.0 && !fenced)?;
        Some((phases.samples_gpu_ms / phases.samples_ms).min(1.0))
    });
    median(shares)
}

/// Why a run's GPU was shared, if it was: another process seen on it, or its samples' small share
/// of the GPU's time.
pub fn shared(run: &Run) -> Option<String> {
    let seen = run.sharing.as_ref().filter(|s| s.shared()).map(|s| {
        format!(
            "another process used its GPU in {} of {} readings ({})",
            s.shared_readings,
            s.readings,
            s.others_text()
        )
    });
    let share = busy_share(run).filter(|share| *share < SHARED_BELOW).map(|share| {
        format!(
            "its samples had the GPU for {:.1}% of their wall time (under {:.0}%: time-sliced with another process)",
            share * 100.0,
            SHARED_BELOW * 100.0
        )
    });
    let why: Vec<String> = seen.into_iter().chain(share).collect();
    (!why.is_empty()).then(|| why.join("; "))
}

/// Why a run's GPU failed outright, if it did: cases that lost the device, crashed their worker or
/// hung (`2 of its 4 cases lost the device, crashed or hung: ...`), or a run that ended so
/// outside its cases (its worker died opening the device, the device was lost between cases).
/// A fault is the GPU's or its driver's, never noise: one case is enough.
pub fn fault(run: &Run) -> Option<String> {
    let broken: Vec<String> = run
        .cases
        .iter()
        .filter(|c| matches!(c.status, Status::Crashed | Status::Hung | Status::DeviceLost))
        .map(|c| format!("{} ({})", c.name, c.status.word()))
        .collect();
    let selected = run.cases.len() + run.not_run.len();
    if !broken.is_empty() {
        let more = match broken.len() {
            0..=3 => String::new(),
            n => format!(" and {} more", n - 3),
        };
        return Some(format!(
            "{} of its {selected} cases lost the device, crashed or hung: {}{more}",
            broken.len(),
            broken[..broken.len().min(3)].join(", ")
        ));
    }
    let code = run.ending.exit_code;
    let outside = [crate::ExitCode::DeviceLost, crate::ExitCode::Crashed].iter().any(|c| *c as u8 == code);
    outside.then(|| {
        let message = run.ending.message.as_deref().unwrap_or("no message");
        format!("its run ended with exit {code} outside its cases: {message}")
    })
}

/// Why `run`'s GPU computed wrong answers, if it did: its self-checking cases (the `sdc` family)
/// whose results differ from their known bits, each with how many and on which units.
pub fn corruption(run: &Run) -> Option<String> {
    let corrupt: Vec<String> = run
        .cases
        .iter()
        .filter_map(|c| {
            let f = c.faults.as_ref().filter(|f| f.mismatches > 0)?;
            Some(format!("{} ({} of {} results wrong; {})", c.name, f.mismatches, f.checked, f.units_text()))
        })
        .collect();
    (!corrupt.is_empty()).then(|| {
        format!(
            "{} computed results that differ from their known bits (silent data corruption): {}",
            crate::format::count(corrupt.len(), "case"),
            corrupt.join(", ")
        )
    })
}

/// A device that ran at once with others on a host but left no run among those given.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Missing {
    /// The host.
    pub host: String,
    /// The device's name and slot, as its peers' runs name it.
    pub name: String,
    /// Its slot (PCI address, else UUID).
    pub slot: String,
}

/// The devices `runs` say ran beside them on their hosts (`together`) that left no run here.
pub fn missing(runs: &[&Run]) -> Vec<Missing> {
    let mut missing: Vec<Missing> = Vec::new();
    for run in runs {
        let Some(host) = run.host.as_deref() else { continue };
        for peer in &run.together {
            let Some(slot) = peer.slot.as_deref() else { continue };
            let present =
                runs.iter().any(|r| r.host.as_deref() == Some(host) && r.device.slot() == Some(slot));
            let known = missing.iter().any(|m| m.host == host && m.slot == slot);
            if !present && !known {
                missing.push(Missing {
                    host: host.to_owned(),
                    name: peer.name.clone(),
                    slot: slot.to_owned(),
                });
            }
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::phases::Phases;
    use crate::results::model::{tests::sample_run, Peer};
    use crate::results::sharing::{OtherProcess, Sharing};

    /// The sample run with each timed case's samples at `share` of their wall time.
    fn run_at(share: f64) -> Run {
        let mut run = sample_run();
        for case in run.cases.iter_mut().filter(|c| c.timed_rate().is_some()) {
            case.phases =
                Some(Phases { samples_ms: 100.0, samples_gpu_ms: 100.0 * share, ..Phases::default() });
        }
        run
    }

    #[test]
    fn a_gpu_time_sliced_with_another_process_is_shared() {
        assert_eq!(busy_share(&run_at(0.97)), Some(0.97));
        assert_eq!(shared(&run_at(0.97)), None);
        assert_eq!(
            shared(&run_at(0.41)).unwrap(),
            "its samples had the GPU for 41.0% of their wall time (under 80%: time-sliced with another process)"
        );
        let mut seen = run_at(0.97);
        seen.sharing = Some(Sharing {
            watched: "NVML".into(),
            readings: 40,
            shared_readings: 38,
            others: vec![OtherProcess {
                pid: 4242,
                name: Some("python3".into()),
                memory_bytes: Some(3 << 30),
            }],
        });
        assert_eq!(
            shared(&seen).unwrap(),
            "another process used its GPU in 38 of 40 readings (pid 4242 (python3, 3.0 GiB))"
        );
        assert_eq!(busy_share(&sample_run()), None, "no phases kept: unknown, not shared");
        let mut cpu = run_at(0.41);
        cpu.device.kind = "Cpu".into();
        assert_eq!(shared(&cpu), None, "a CPU implementation's share is the host's load");
    }

    #[test]
    fn one_case_that_lost_the_device_crashed_or_hung_is_a_fault() {
        let healthy = sample_run();
        assert_eq!(fault(&healthy), None);
        for (status, word) in
            [(Status::DeviceLost, "device lost"), (Status::Crashed, "crashed"), (Status::Hung, "hung")]
        {
            let mut run = sample_run();
            run.cases[1].status = status;
            let why = fault(&run).unwrap_or_else(|| panic!("{status:?} is no fault"));
            assert!(why.starts_with(&format!("1 of its {} cases lost the device", run.cases.len())), "{why}");
            assert!(why.contains(&format!("{} ({word})", run.cases[1].name)), "{why}");
        }
        // Failed (an error), skipped or interrupted cases are not the GPU's fault.
        let mut run = sample_run();
        run.cases[0].status = Status::Failed;
        run.cases[1].status = Status::Interrupted;
        assert_eq!(fault(&run), None);
        // A worker that died opening the device: no case says so, the ending does.
        let mut died = sample_run();
        died.cases.clear();
        died.ending.exit_code = crate::ExitCode::Crashed as u8;
        died.ending.message = Some("the worker process died with SIGSEGV (signal 11)".into());
        assert!(fault(&died)
            .unwrap()
            .starts_with("its run ended with exit 14 outside its cases: the worker"));
    }

    #[test]
    fn a_peer_that_left_no_run_is_missing() {
        let gpu = |slot: &str, peers: &[&str]| {
            let mut run = sample_run();
            run.host = Some("node07".into());
            run.device.pci = Some(slot.into());
            run.together =
                peers.iter().map(|p| Peer { name: "NVIDIA H200".into(), slot: Some((*p).into()) }).collect();
            run
        };
        let a = gpu("0000:06:00.0", &["0000:07:00.0", "0000:08:00.0"]);
        let b = gpu("0000:07:00.0", &["0000:06:00.0", "0000:08:00.0"]);
        let lost = missing(&[&a, &b]);
        assert_eq!(
            lost,
            [Missing { host: "node07".into(), name: "NVIDIA H200".into(), slot: "0000:08:00.0".into() }]
        );
        let c = gpu("0000:08:00.0", &["0000:06:00.0", "0000:07:00.0"]);
        assert!(missing(&[&a, &b, &c]).is_empty());
    }
}
