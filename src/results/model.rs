//! A run's results as data: what JSON files hold, and reading them back (format 1 or 2).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::caps::DeviceInfo;
use crate::error::Result;

/// The version of the JSON layout; files from a newer perftest are refused with a sentence.
/// Version 2 added per-case `group`, `variant`, `axes` and `rates`, and the run's `axes`;
/// version 3 the clock, rates per clock per compute unit, % of peak and flags; version 4 the
/// run's `warm_up`, and per case its `baseline`, `remeasured` and `notes`; version 5 the statuses
/// `differs`, `crashed`, `hung`, `device_lost` and `interrupted`, and the run's `isolation`;
/// version 6 the run's `header`, and per case its string-axis `labels`, `dispatch` and `original_time`, so that
/// `perftest show` prints a saved run as the live run printed it; version 7 the statuses
/// `verified` (with `checked`) and `compiled` (with `executables`), where older files said `ok`
/// and put the sentence in `reason`; version 8 per case how its `clock` was read (the witness
/// beside the work, or the probe), with its uncertainty, and the run's `sharing` (other processes
/// on its GPU); version 9 the run's `energy` (its sensor and the idle power) and per case its
/// `energy` (`--energy`). Older files load.
pub const FORMAT_VERSION: u32 = 9;

/// One run: where, how, and what each case gave.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Run {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// The perftest that wrote it.
    pub perftest_version: String,
    /// When the run started (RFC 3339, UTC).
    pub date: String,
    /// The options that shaped the numbers.
    pub settings: Settings,
    /// The device row.
    pub device: Device,
    /// What the header shows beyond the device row (format 7 on; null in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facts: Option<super::header::Facts>,
    /// Format 6's header, as it was printed (format 7 keeps `facts` instead; empty in others).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub header: String,
    /// The families the run selected, as its perftest declared them (older files: as this
    /// perftest's registry does, filled in when they are loaded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub families: Vec<super::family::FamilyFacts>,
    /// True if the run was cut short (a case failed, a stop): `cases` holds what finished.
    pub interrupted: bool,
    /// How the run ended, with its exit code and error (format 1 files: from `interrupted`).
    #[serde(default)]
    pub ending: Ending,
    /// The median of the cases' clocks, MHz (null: unknown); the throttle flags are against it.
    #[serde(default)]
    pub clock_median_mhz: Option<f64>,
    /// What warming the device up before the first case did (null: a verify run, or older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_up: Option<WarmUp>,
    /// The memory levels each variant swept over a bytes axis shows (see [`super::levels`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<super::levels::Levels>,
    /// How many worker processes ran the cases (more than one: a fresh one went on after a case
    /// crashed, hung or lost the device); null: run in perftest's own process (`--in-process`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<u32>,
    /// The run's wall time, seconds: from its start to its last case's record (null in files
    /// before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
    /// The selected cases the run did not reach (it was stopped or failed), in run order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<NotRun>,
    /// Format 6's layout of an interrupted run's lines, per family: its widest selected case
    /// name and whether its lines lead with the original's time (read, never written: format 7
    /// keeps `not_run`).
    #[serde(default, rename = "line_widths", skip_serializing)]
    pub legacy_line_widths: std::collections::BTreeMap<String, (usize, bool)>,
    /// The host that ran it (its node name), unless left out for sharing (`--no-host-name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The other devices that ran at the same time on the host (`--all-devices`), each as its
    /// name and slot; empty for a run alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub together: Vec<Peer>,
    /// Whether another process used the GPU while the run did, as the vendor's library saw it
    /// (format 8; null in older files and runs that could not watch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharing: Option<super::sharing::Sharing>,
    /// How the run measured energy, or why it could not (format 9; absent where `--energy` was
    /// not asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<super::energy::RunEnergy>,
    /// The cases, in run order.
    pub cases: Vec<CaseResult>,
}

/// Another device that ran at the same time.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Peer {
    /// Its name.
    pub name: String,
    /// Its PCI address or UUID (see [`Device::slot`]), where known.
    pub slot: Option<String>,
}

impl Run {
    /// The run's wall time (seconds) and its cases' phases summed, where it kept both.
    pub fn time_spent(&self) -> Option<(f64, crate::record::phases::Phases)> {
        let wall_s = self.wall_s?;
        let mut phases = self.cases.iter().filter_map(|c| c.phases.as_ref()).peekable();
        phases.peek()?;
        Some((wall_s, crate::record::phases::Phases::sum(phases)))
    }
}

/// A selected case the run did not reach.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct NotRun {
    /// Its family.
    pub family: String,
    /// Its name.
    pub name: String,
    /// Whether its line would have led with its original's time and ratio.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub original_time: bool,
}

/// What warming the device up before the first case did (the worker's record of it).
pub use crate::record::warmup::WarmUp;

/// How a run ended.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    /// Every selected case ran or was skipped with a reason, and nothing else went wrong.
    #[default]
    Complete,
    /// A stop (Ctrl-C, SIGTERM) ended it early.
    Interrupted,
    /// An error ended it, or came after the cases (validation messages).
    Failed,
}

/// How a run ended: its state, the exit code perftest returned, and the error's sentence.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Ending {
    /// Complete, interrupted or failed.
    pub state: RunState,
    /// The process's exit code.
    pub exit_code: u8,
    /// The error, for interrupted and failed runs.
    pub message: Option<String>,
}

impl Ending {
    /// The ending of a run that finished with `result`.
    pub fn of(result: &Result<()>) -> Self {
        match result {
            Ok(()) => Ending::default(),
            Err(error) => {
                let code = error.exit_code();
                let state = if code == crate::ExitCode::Interrupted {
                    RunState::Interrupted
                } else {
                    RunState::Failed
                };
                Ending { state, exit_code: code as u8, message: Some(crate::error::report(error)) }
            }
        }
    }

    /// One line for text and markdown: `run: complete`, `run: failed (exit 9): ...`.
    pub fn line(&self) -> String {
        match (self.state, &self.message) {
            (RunState::Complete, _) => "run: complete".into(),
            (state, message) => {
                let name = if state == RunState::Interrupted { "interrupted" } else { "failed" };
                let message = message.as_deref().unwrap_or("").lines().next().unwrap_or("");
                format!("run: {name} (exit {}): {message}", self.exit_code)
            }
        }
    }

    /// A short mark for labels (`compare`, `plot`): empty when complete.
    pub fn mark(&self) -> String {
        match self.state {
            RunState::Complete => String::new(),
            RunState::Interrupted => " [interrupted]".into(),
            RunState::Failed => format!(" [failed: exit {}]", self.exit_code),
        }
    }
}

/// The options that shaped the numbers.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Settings {
    /// `--target-ms`.
    pub target_ms: f64,
    /// `--samples`.
    pub samples: u32,
    /// `--verify`.
    pub verify: bool,
    /// `--compile-only`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compile_only: bool,
    /// `--family` (all families when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub families: Vec<String>,
    /// `--filter`.
    pub filter: Option<String>,
    /// `--skip`.
    pub skip: Vec<String>,
    /// `--quick`: each family's headline cases only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quick: bool,
    /// The `--axis` settings, as `FAMILY.AXIS=VALUES` (axes not set ran their defaults).
    #[serde(default)]
    pub axes: Vec<String>,
    /// `--case`: the cases named exactly (format 8; empty: none named).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cases: Vec<String>,
    /// Format 1's `--branch-iterations` (FROM:TO:STEP); now the axis `branch.n`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_iterations: Option<String>,
}

/// What [`Device::clock`] says when the probe measured the clocks around each case's samples
/// (else it says how they were measured, always starting "measured", or why they are unknown).
pub const CLOCK_MEASURED: &str =
    "measured around each case's samples (VK_KHR_shader_clock subgroup clock against timestamps)";

/// What [`Device::clock`] says when the witness measured the clocks beside each case's work, with
/// the device clock's calibrated rate (ticks per µs) and its relative uncertainty.
pub fn clock_witnessed(ticks_per_us: f64, uncertainty: f64) -> String {
    format!(
        "measured beside each case's work (VK_KHR_shader_clock subgroup clock against the device clock, \
         {ticks_per_us:.4} ticks per µs ±{:.3}% by the timestamps), or around its samples where its dispatches \
         are too short",
        uncertainty * 100.0
    )
}

/// The device row a run used.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Device {
    /// Device name.
    pub name: String,
    /// DiscreteGpu, IntegratedGpu, VirtualGpu, Cpu or Other.
    #[serde(rename = "type")]
    pub kind: String,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// PCI device id.
    pub device_id: u32,
    /// Driver name and version.
    pub driver: String,
    /// Vulkan version of the device.
    pub vulkan_version: String,
    /// Queue family index.
    pub queue_family: u32,
    /// Subgroup size.
    pub subgroup_size: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period_ns: f32,
    /// How many compute units (null: the driver does not say).
    #[serde(default)]
    pub compute_units: Option<u32>,
    /// What a compute unit is called (`SM`, `CU`, `core`), the last word of the per-clock units.
    #[serde(default)]
    pub compute_unit: Option<String>,
    /// The architecture whose peaks the % of peak is against (null: unknown, no % of peak).
    #[serde(default)]
    pub architecture: Option<String>,
    /// How clocks were measured, or why they are unknown.
    #[serde(default)]
    pub clock: Option<String>,
    /// The device profile the run was clamped to (`--simulate`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulating: Option<String>,
    /// `deviceUUID` (`8-4-4-4-12` hex): the one physical device, whatever its row or process
    /// (absent in files before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// `driverUUID`: the one driver build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_uuid: Option<String>,
    /// The PCI address, `domain:bus:device.function` (absent where the driver does not give it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci: Option<String>,
    /// `driverVersion` as the driver encodes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_version: Option<u32>,
}

impl Device {
    /// The UUID as NVML, `nvidia-smi` and dcgm-exporter write it: `GPU-` before it on NVIDIA
    /// (PCI vendor 0x10de), the Vulkan form elsewhere.
    pub fn exporter_uuid(&self) -> Option<String> {
        let uuid = self.uuid.as_deref()?;
        Some(match self.vendor_id == 0x10de {
            true => format!("GPU-{uuid}"),
            false => uuid.to_owned(),
        })
    }

    /// How a fleet names this device on its host: its PCI address, else its UUID, else nothing.
    pub fn slot(&self) -> Option<&str> {
        self.pci.as_deref().or(self.uuid.as_deref())
    }

    /// Whether the run measured its clocks (its `clock` says how; else it says why not).
    pub fn clock_known(&self) -> bool {
        self.clock.as_deref().is_some_and(|c| c.starts_with("measured"))
    }
}

impl From<&DeviceInfo> for Device {
    fn from(info: &DeviceInfo) -> Self {
        Device {
            name: info.row.name.clone(),
            kind: info.kind.to_owned(),
            vendor_id: info.vendor_id,
            device_id: info.device_id,
            driver: info.driver.clone(),
            vulkan_version: info.vulkan.clone(),
            queue_family: info.row.family,
            subgroup_size: info.subgroup_size,
            timestamp_period_ns: info.timestamp_period,
            compute_units: info.compute_units.map(|u| u.count),
            compute_unit: info.compute_units.map(|u| u.name.to_owned()),
            architecture: crate::caps::peaks::architecture(info.vendor_id, info.device_id)
                .map(|a| a.name.to_owned()),
            clock: None,
            simulating: info.simulating.clone(),
            uuid: Some(crate::caps::Identity::uuid_text(&info.identity.device_uuid)),
            driver_uuid: Some(crate::caps::Identity::uuid_text(&info.identity.driver_uuid)),
            pci: info.identity.pci.clone(),
            driver_version: Some(info.identity.driver_version),
        }
    }
}

pub use super::case::{Amount, CaseResult, Dispatch, Peak, Status, UnitRate};

/// Above this, a rate, amount or ratio in a results file cannot be real (10^18 per second is a
/// thousand times any GPU's peak); such a file was edited or corrupted.
pub const IMPLAUSIBLE: f64 = 1e18;

/// The most a results file may hold: a full run with every sample is about 3 MB.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// Reads a results file of at most [`MAX_FILE_BYTES`] (see [`crate::bounded::read_json`]).
pub fn read_bounded(path: &Path) -> std::result::Result<String, String> {
    crate::bounded::read_json(path, MAX_FILE_BYTES, "files written with --format json")
}

#[cfg(test)]
pub(crate) mod tests;
