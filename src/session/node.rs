//! This node's GPUs measured against a reference (`perftest health`): the reference's cases, per
//! model and settings, on every GPU of the model here at once, in a child perftest
//! ([`super::child`]); a child that failed before it measured is its GPUs' fault, or, where the
//! check was set up wrong, no verdict.

use std::path::{Path, PathBuf};

use super::child::{self, Ended, Job, Pick};
use crate::analysis::fleet::reference::Reference;
use crate::analysis::fleet::Left;
use crate::error::{Error, ExitCode, Result};
use crate::results::files::Depth;
use crate::results::Run;

/// What [`measure`] gives: each run with its file, and the GPUs whose perftest failed before or
/// while it measured them, as faults.
pub struct Measured {
    /// Each run, with its file.
    pub runs: Vec<(String, Run)>,
    /// The models whose perftest failed, each named `this node's MODEL` with why.
    pub faults: Vec<Left>,
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
pub fn measure(reference: &Reference, dir: &Path, host: Option<&str>) -> Result<Measured> {
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
        let ended = child::run(&child::args(&job))?;
        if ended == Ended::Stopped || child::stopped() {
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
}
