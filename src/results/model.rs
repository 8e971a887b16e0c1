//! A run's results as data: what JSON files hold, and reading them back (format 1 or 2).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::flag::Flag;
use crate::caps::DeviceInfo;
use crate::error::Result;
use crate::record::outcome::{Counted, Failure};

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

/// One compute unit's own rate.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct UnitRate {
    /// Its id (`gl_SMIDNV`).
    pub unit: u32,
    /// The workgroups of the grid it ran.
    pub groups: u32,
    /// Its rate of the case's first work unit per clock of its own clock (`FLOP/clk`).
    pub per_clock: f64,
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

/// How a case ended; every status but `ok` and `skipped` has its sentence in `reason`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Timed.
    Ok,
    /// Checked against the CPU reference (`--verify`): `checked` results matched.
    Verified,
    /// Its pipeline compiled and was created, nothing run (`--compile-only`).
    Compiled,
    /// Not run; `reason` says why.
    Skipped,
    /// Failed with an error (an implausible time, a Vulkan call).
    Failed,
    /// `--verify` found results that differ from the CPU reference.
    Differs,
    /// The worker process died while it ran.
    Crashed,
    /// No answer within the watchdog's time.
    Hung,
    /// The driver lost the device while it ran.
    DeviceLost,
    /// A second stop signal ended it before it finished.
    Interrupted,
}

impl Status {
    /// The status of a case that failed as `failure` says.
    pub fn of(failure: Failure) -> Self {
        match failure {
            Failure::Differs => Status::Differs,
            Failure::Crashed => Status::Crashed,
            Failure::Hung => Status::Hung,
            Failure::DeviceLost => Status::DeviceLost,
            Failure::Interrupted => Status::Interrupted,
            Failure::Error => Status::Failed,
        }
    }

    /// The word text, CSV and tables print: `ok`, `skipped`, `device lost`, ...
    pub fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Verified => "verified",
            Status::Compiled => "compiled",
            Status::Skipped => "skipped",
            Status::Failed => Failure::Error.word(),
            Status::Differs => Failure::Differs.word(),
            Status::Crashed => Failure::Crashed.word(),
            Status::Hung => Failure::Hung.word(),
            Status::DeviceLost => Failure::DeviceLost.word(),
            Status::Interrupted => Failure::Interrupted.word(),
        }
    }

    /// Whether the case failed (differs, crashed, hung, lost the device, an error, a stop), rather
    /// than ran, was checked, compiled or was skipped with a reason.
    pub fn is_failure(self) -> bool {
        !matches!(self, Status::Ok | Status::Verified | Status::Compiled | Status::Skipped)
    }

    /// Whether the case crashed, hung or lost the device: a driver fault, not a result.
    pub fn is_fault(self) -> bool {
        matches!(self, Status::Crashed | Status::Hung | Status::DeviceLost)
    }
}

pub use super::measure::Amount;

/// What one measurement of a timed case dispatched: `count` of `counted`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Dispatch {
    /// How many.
    pub count: u64,
    /// Of what.
    pub counted: Counted,
}

/// A known peak a case's rate is a share of: a ceiling, its value per clock per compute unit
/// (or, for the host link, per second), and what else names it (the link's lanes).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Peak {
    /// The ceiling (`L1`, `fp32 FMA`, `host link`).
    pub ceiling: String,
    /// Its value, in `unit`.
    pub value: f64,
    /// `B/clk/SM`, `FLOP/clk/SM`, `GB/s`.
    pub unit: super::measure::Measure,
    /// What follows the unit (`each way, PCIe Gen5 x16`), if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl std::fmt::Display for Peak {
    /// `L1: 128.0 B/clk/SM`, `host link: 63.02 GB/s each way, PCIe Gen5 x16`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.ceiling, self.value_text())
    }
}

impl Peak {
    /// The peak without its ceiling: `128.0 B/clk/SM`, `63.02 GB/s each way, PCIe Gen5 x16`.
    pub fn value_text(&self) -> String {
        let value = format!("{} {}", crate::format::sig4(self.value), self.unit);
        match &self.detail {
            Some(detail) => format!("{value} {detail}"),
            None => value,
        }
    }

    /// The peak a format 3-6 file wrote as a sentence (`L1: 128.0 B/clk/SM`); `None` if it is not one.
    pub fn parse(text: &str) -> Option<Peak> {
        let (ceiling, rest) = text.split_once(": ")?;
        let mut words = rest.splitn(3, ' ');
        let value = words.next()?.parse().ok()?;
        let unit = words.next()?.to_owned();
        let detail = words.next().map(str::to_owned);
        Some(Peak { ceiling: ceiling.to_owned(), value, unit: unit.into(), detail })
    }
}

impl<'de> Deserialize<'de> for Peak {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Typed { ceiling: String, value: f64, unit: String, detail: Option<String> },
            Sentence(String),
        }
        match Written::deserialize(deserializer)? {
            Written::Typed { ceiling, value, unit, detail } => {
                Ok(Peak { ceiling, value, unit: unit.into(), detail })
            }
            Written::Sentence(text) => Peak::parse(&text).ok_or_else(|| {
                serde::de::Error::custom(format!("the peak {text:?} is not `CEILING: VALUE UNIT`"))
            }),
        }
    }
}

/// One case's result.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CaseResult {
    /// Case name.
    pub name: String,
    /// Family name.
    pub family: String,
    /// The group plots draw it in (format 1: the family).
    #[serde(default)]
    pub group: String,
    /// The name without its axis values (format 1: the name).
    #[serde(default)]
    pub variant: String,
    /// The family's axis values that made this case.
    #[serde(default)]
    pub axes: BTreeMap<String, u64>,
    /// Its values on the family's string axes (`pattern`: `random`); absent before format 6.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// ok, verified, compiled, skipped, failed, differs, crashed, hung, device_lost or interrupted.
    pub status: Status,
    /// For a verified case, how many results matched the CPU reference (format 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<u64>,
    /// For a compiled case, the pipeline executables the driver reports statistics of (null: it
    /// reports none; format 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executables: Option<u64>,
    /// Why it was skipped or failed (the error, the signal, the watchdog's time); nothing for
    /// timed, verified and compiled cases (formats 1-6 said what was checked or compiled here;
    /// format 2 put the submission-cap warning here; format 3 has it in `flags`).
    pub reason: Option<String>,
    /// Median milliseconds per measurement.
    pub median_ms: Option<f64>,
    /// Fastest measurement, milliseconds.
    pub min_ms: Option<f64>,
    /// Coefficient of variation of the samples.
    pub cv: Option<f64>,
    /// Every timed sample, milliseconds (files written before samples were kept: empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_ms: Vec<f64>,
    /// Measurements spent scaling the dispatch and warming up before the samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_runs: Option<usize>,
    /// What one measurement dispatched, as scaled to the target time (null: not timed, or a
    /// file older than format 6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispatch: Option<Dispatch>,
    /// Whether the line leads with the original perftest's columns: the time 2^32 of the first
    /// work unit would take, and the ratio.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub original_time: bool,
    /// The driver's statistics of the case's compiled shader, one line per pipeline executable
    /// (VK_KHR_pipeline_executable_properties: registers, binary size, ...); empty where the
    /// driver does not offer them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shader_stats: Vec<String>,
    /// For a case with a twin (the same source with one qualifier changed, such as `readonly`):
    /// how its statistics compare with the twin's, or that they are the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiled: Option<String>,
    /// Work of one measurement.
    pub work: Option<Amount>,
    /// The headline rate (the first of `rates`).
    pub rate: Option<Amount>,
    /// The rate of every work unit (loads/s and B/s, ...).
    #[serde(default)]
    pub rates: Vec<Amount>,
    /// Rate over the family's baseline (above 1 = faster).
    pub ratio: Option<f64>,
    /// The case `ratio` is against (null: no ratio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// Why each earlier try was measured again (a clock below the warm-up's level or changing
    /// during the samples; for baselines, noise too); empty if the first try was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remeasured: Vec<String>,
    /// The clock the samples ran at, MHz (null for a timed case: unknown on this device).
    #[serde(default)]
    pub clock_mhz: Option<f64>,
    /// How the clock was read: by the witness beside a sample's work or the probe around the
    /// samples, the readings, their uncertainty, and whether the case's own load set the clock
    /// (format 8; absent before it, when the probe read every clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::record::measurement::ClockRead>,
    /// Each rate per clock per compute unit (`B/clk/SM`); empty where the clock or the count is unknown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_clock: Vec<Amount>,
    /// Whether a latency's clocks in `per_clock` (`clk/op`) were counted by the shader clock
    /// around the chain (VK_KHR_shader_clock), rather than the time at the clock read around the
    /// samples (`clock_mhz` x 10^6 / `rate` gives that one); false in files written before it was kept.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shader_clocked: bool,
    /// Each compute unit's own rate, for a case whose workgroups record the unit that ran them
    /// (the `units` family): the first work unit per clock of that unit's own clock.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub units: Vec<UnitRate>,
    /// The share of a known peak, percent (null: peak unknown).
    #[serde(default)]
    pub peak_percent: Option<f64>,
    /// Which peak `peak_percent` is of (format 7: `{"ceiling": "L1", "value": 128.0, "unit":
    /// "B/clk/SM"}`; formats 3-6 wrote its sentence, `L1: 128.0 B/clk/SM`, which loads as well).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak: Option<Peak>,
    /// What to doubt about the result: noisy, unsettled, over the submission cap, unsteady clock,
    /// below the warm-up clock, throttled, implausible, re-measured, ratio against a flagged baseline.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "super::flag::deserialize_flags"
    )]
    pub flags: Vec<Flag>,
    /// What the text output says under the case's line (memory placement, a re-warm, a retry).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Where its wall time went in the worker (null in files before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<crate::record::phases::Phases>,
    /// What its work cost in energy, where the run measured it (`--energy`; format 9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<Box<super::energy::CaseEnergy>>,
}

impl CaseResult {
    /// The flag that says the result is above a known peak, if one does.
    pub fn implausible(&self) -> Option<&Flag> {
        self.flags.iter().find(|f| matches!(f, Flag::Implausible { .. }))
    }

    /// Whether its ratio is against a baseline that has flags of its own.
    pub fn baseline_flagged(&self) -> bool {
        self.flags.iter().any(|f| matches!(f, Flag::Baseline(_)))
    }

    /// Whether the whole run found it off the run's median clock.
    pub fn throttled(&self) -> bool {
        self.flags.iter().any(|f| matches!(f, Flag::Throttled { .. }))
    }

    /// Its rate where it was timed (none where it was skipped, failed, or verified or compiled only).
    pub fn timed_rate(&self) -> Option<&Amount> {
        self.rate.as_ref().filter(|_| self.status == Status::Ok)
    }
}

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
pub(crate) mod tests {
    use super::*;
    use crate::error::Error;
    use crate::results::load;

    fn to_json(run: &Run) -> serde_json::Result<String> {
        serde_json::to_string_pretty(run)
    }

    pub(crate) fn sample_run() -> Run {
        let case = |name: &str, rate: Option<f64>, ratio: Option<f64>, status: Status| CaseResult {
            name: name.into(),
            family: "load".into(),
            group: "load raw".into(),
            variant: name.into(),
            axes: BTreeMap::new(),
            labels: BTreeMap::new(),
            status,
            checked: None,
            executables: None,
            reason: (status == Status::Skipped).then(|| "the device lacks shaderFloat64".into()),
            median_ms: rate.map(|_| 20.0),
            min_ms: rate.map(|_| 19.9),
            cv: rate.map(|_| 0.001),
            samples_ms: Vec::new(),
            warmup_runs: None,
            dispatch: rate.map(|_| Dispatch { count: 4096, counted: Counted::Workgroups }),
            original_time: ratio.is_some(),
            shader_stats: Vec::new(),
            compiled: None,
            work: rate.map(|r| Amount { value: r * 0.02, unit: "loads".into() }),
            rate: rate.map(|r| Amount { value: r, unit: "loads/s".into() }),
            rates: rate.map(|r| Amount { value: r, unit: "loads/s".into() }).into_iter().collect(),
            ratio,
            baseline: ratio.map(|_| "Buffer<RGBA8>.Load random".into()),
            remeasured: Vec::new(),
            clock_mhz: rate.map(|_| 1980.0),
            clock: None,
            per_clock: rate
                .map(|_| Amount { value: 21.54, unit: "loads/clk/SM".into() })
                .into_iter()
                .collect(),
            shader_clocked: false,
            units: Vec::new(),
            peak_percent: rate.map(|_| 67.3),
            peak: rate.map(|_| Peak {
                ceiling: "L1".into(),
                value: 128.0,
                unit: "B/clk/SM".into(),
                detail: None,
            }),
            flags: Vec::new(),
            notes: Vec::new(),
            phases: None,
            energy: None,
        };
        Run {
            format_version: FORMAT_VERSION,
            perftest_version: "0.1.0".into(),
            date: "2026-11-21T02:00:00Z".into(),
            settings: Settings {
                target_ms: 20.0,
                samples: 10,
                verify: false,
                compile_only: false,
                families: Vec::new(),
                filter: None,
                skip: vec![],
                quick: false,
                axes: vec!["branch.n=0:256:64".into()],
                cases: Vec::new(),
                branch_iterations: None,
            },
            device: Device {
                name: "NVIDIA H100 80GB HBM3".into(),
                kind: "DiscreteGpu".into(),
                vendor_id: 0x10de,
                device_id: 0x2330,
                driver: "NVIDIA 580.159.04".into(),
                vulkan_version: "1.4.312".into(),
                queue_family: 0,
                subgroup_size: 32,
                timestamp_period_ns: 1.0,
                compute_units: Some(132),
                compute_unit: Some("SM".into()),
                architecture: Some("NVIDIA Hopper (GH100)".into()),
                clock: Some("measured".into()),
                simulating: None,
                uuid: None,
                driver_uuid: None,
                pci: None,
                driver_version: None,
            },
            facts: None,
            header: "perftest 0.1.0 (git 0123456789ab)\ndevice:     NVIDIA H100 80GB HBM3\n".into(),
            families: super::super::family::FamilyFacts::of_names(["load"]),
            interrupted: false,
            ending: Ending::default(),
            clock_median_mhz: Some(1980.0),
            warm_up: None,
            levels: Vec::new(),
            workers: None,
            wall_s: None,
            not_run: Vec::new(),
            legacy_line_widths: Default::default(),
            host: None,
            together: Vec::new(),
            sharing: None,
            energy: None,
            cases: vec![
                case("ByteAddressBuffer.Load uniform", Some(5.63e12), Some(2.985), Status::Ok),
                case("ALU fp64 FMA", None, None, Status::Skipped),
            ],
        }
    }

    #[test]
    fn format_6_sentences_of_verified_and_compiled_cases_become_statuses() {
        let mut run = sample_run();
        run.format_version = 6;
        let reasons = [
            "verified: 512 results match the CPU reference",
            "compiled (2 pipeline executable(s); the driver's statistics of each below)",
            "compiled (the driver reports no statistics: VK_KHR_pipeline_executable_properties)",
        ];
        let template = CaseResult { rate: None, rates: vec![], median_ms: None, ..run.cases[0].clone() };
        run.cases =
            reasons.iter().map(|r| CaseResult { reason: Some((*r).into()), ..template.clone() }).collect();
        let dir = std::env::temp_dir().join(format!("perftest-status-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("six.json");
        std::fs::write(&path, to_json(&run).unwrap()).unwrap();
        let loaded = load(&path).unwrap();
        let got: Vec<_> =
            loaded.cases.iter().map(|c| (c.status, c.checked, c.executables, c.reason.clone())).collect();
        assert_eq!(
            got,
            [
                (Status::Verified, Some(512), None, None),
                (Status::Compiled, None, Some(2), None),
                (Status::Compiled, None, None, None)
            ]
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_peak_is_data_and_reads_as_its_old_sentence() {
        for sentence in [
            "L1: 128.0 B/clk/SM",
            "host link: 63.02 GB/s each way, PCIe Gen5 x16",
            "fp16 tensor: 4096 FLOP/clk/SM",
        ] {
            let peak = Peak::parse(sentence).unwrap();
            assert_eq!(peak.to_string(), sentence);
            let typed: Peak = serde_json::from_str(&serde_json::to_string(&peak).unwrap()).unwrap();
            let old: Peak = serde_json::from_value(serde_json::Value::String(sentence.into())).unwrap();
            assert_eq!((&typed, &old), (&peak, &peak));
        }
        let link = Peak::parse("host link: 63.02 GB/s each way, PCIe Gen5 x16").unwrap();
        assert_eq!(
            (link.ceiling.as_str(), link.value, link.unit.to_string().as_str()),
            ("host link", 63.02, "GB/s")
        );
        assert!(serde_json::from_str::<Peak>("\"no colon\"").is_err());
    }

    #[test]
    fn json_round_trips() {
        let mut run = sample_run();
        run.cases[0].shader_stats = vec!["CS: Register Count = 32, Binary Size = 18816".into()];
        run.cases[0].samples_ms = vec![20.0, 20.1, 19.9];
        run.cases[0].warmup_runs = Some(6);
        run.energy = Some(crate::results::energy::RunEnergy {
            sensor: Some("NVML total energy".into()),
            window_s: Some(4.0),
            idle_w: Some(123.5),
            idle_end_w: Some(124.8),
            unknown: None,
        });
        let held =
            crate::record::energy::Held { seconds: 4.01, joules: 1604.0, measurements: 201, gpu_s: 4.01 };
        let work = [(61.4e9, crate::registry::Work::new(1.0, crate::registry::Unit::Byte))];
        run.cases[0].energy = crate::results::energy::CaseEnergy::of(&held, &work, Some(123.5)).map(Box::new);
        let text = to_json(&run).unwrap();
        assert!(text.contains("\"unit\": \"pJ/B\""), "{text}");
        assert!(
            text.contains("\"format_version\": 9") && text.contains("\"type\": \"DiscreteGpu\""),
            "{text}"
        );
        assert!(text.contains("\"status\": \"skipped\""), "{text}");
        assert!(text.contains("\"shader_stats\": [") && text.contains("\"samples_ms\": ["), "{text}");
        let path = std::env::temp_dir().join(format!("perftest-roundtrip-{}.json", std::process::id()));
        std::fs::write(&path, &text).unwrap();
        assert_eq!(load(&path).unwrap(), run);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn bad_files_get_a_sentence_naming_file_and_problem() {
        let dir = std::env::temp_dir().join(format!("perftest-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = load(&dir.join("missing.json")).unwrap_err();
        assert_eq!(missing.exit_code(), crate::ExitCode::BadResults);
        assert!(missing.to_string().contains("missing.json cannot be read"), "{missing}");
        let other = dir.join("other.json");
        std::fs::write(&other, "{\"hello\": 1}").unwrap();
        assert!(load(&other).unwrap_err().to_string().contains("is not a perftest results file"));
        let text = dir.join("text.json");
        std::fs::write(&text, "ALU fp32 FMA: 65.2 TFLOPS").unwrap();
        assert!(load(&text).unwrap_err().to_string().contains("is not JSON"));
        for endless in ["/dev/zero", "/dev/urandom"] {
            let error = load(Path::new(endless)).unwrap_err().to_string();
            assert!(error.contains("is not JSON (it does not begin with `{`)"), "{error}");
        }
        // A sparse file: "{" and then zeros, one byte more than a results file may hold.
        let huge = dir.join("huge.json");
        std::fs::write(&huge, b"{").unwrap();
        std::fs::OpenOptions::new().write(true).open(&huge).unwrap().set_len(MAX_FILE_BYTES + 1).unwrap();
        assert!(load(&huge).unwrap_err().to_string().contains("is larger than 256 MiB"));
        let newer = dir.join("newer.json");
        std::fs::write(
            &newer,
            to_json(&sample_run()).unwrap().replace("\"format_version\": 9", "\"format_version\": 10"),
        )
        .unwrap();
        let error = load(&newer).unwrap_err().to_string();
        assert!(error.contains("has format version 10, newer than this perftest reads (9)"), "{error}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn format_1_files_load_with_groups_variants_and_rates_filled_in() {
        let dir = std::env::temp_dir().join(format!("perftest-v1-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let v1 = r#"{"format_version": 1, "perftest_version": "0.1.0", "date": "2026-11-21T02:00:00Z",
            "settings": {"target_ms": 20.0, "samples": 10, "verify": false, "filter": null, "skip": [],
                         "branch_iterations": "0:256:8"},
            "device": {"name": "H100", "type": "DiscreteGpu", "vendor_id": 4318, "device_id": 9008,
                       "driver": "NVIDIA", "vulkan_version": "1.4.312", "queue_family": 0,
                       "subgroup_size": 32, "timestamp_period_ns": 1.0},
            "interrupted": false,
            "cases": [{"name": "8X Coherent branch long", "family": "branch Coherent", "status": "ok",
                       "reason": null, "median_ms": 20.0, "min_ms": 19.9, "cv": 0.001,
                       "work": {"value": 1e9, "unit": "invocations"},
                       "rate": {"value": 5e10, "unit": "invocations/s"}, "ratio": 1.5}]}"#;
        let path = dir.join("v1.json");
        std::fs::write(&path, v1).unwrap();
        let run = load(&path).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
        assert_eq!(run.settings.branch_iterations.as_deref(), Some("0:256:8"));
        let case = &run.cases[0];
        assert_eq!(
            (case.group.as_str(), case.variant.as_str()),
            ("branch Coherent", "8X Coherent branch long")
        );
        assert_eq!(case.rates, [Amount { value: 5e10, unit: "invocations/s".into() }]);
    }

    #[test]
    fn a_run_says_how_it_ended() {
        assert_eq!(Ending::of(&Ok(())).line(), "run: complete");
        let stopped = Ending::of(&Err(Error::Interrupted { finished: 3, selected: 9 }));
        assert_eq!((stopped.state, stopped.exit_code), (RunState::Interrupted, 130));
        assert!(stopped.line().starts_with("run: interrupted (exit 130): interrupted"), "{}", stopped.line());
        let failed = Ending::of(&Err(Error::Validation { messages: vec!["VUID-x".into()] }));
        assert_eq!((failed.state, failed.exit_code), (RunState::Failed, 9));
        assert_eq!(failed.mark(), " [failed: exit 9]");
        assert_eq!(Ending::default().mark(), "");
    }

    #[test]
    fn impossible_rates_are_refused_with_the_case_named() {
        let dir = std::env::temp_dir().join(format!("perftest-impossible-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (value, what) in [(-1.0, "-1"), (0.0, "0"), (1e308, "1e308")] {
            let mut run = sample_run();
            run.cases[0].rate.as_mut().unwrap().value = value;
            let path = dir.join("bad.json");
            std::fs::write(&path, to_json(&run).unwrap()).unwrap();
            let error = load(&path).unwrap_err();
            assert_eq!(error.exit_code(), crate::ExitCode::BadResults);
            let text = error.to_string();
            assert!(
                text.contains("impossible value for case \"ByteAddressBuffer.Load uniform\""),
                "{what}: {text}"
            );
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
