//! A case's record: how it ended ([`Status`]), what it dispatched, the peak it is held to, and
//! its numbers, units, flags and notes ([`CaseResult`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::flag::Flag;
pub use super::measure::Amount;
use crate::record::outcome::{Counted, Failure};

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
    /// For a case whose shader checks its own results (the `sdc` family): the results it checked
    /// and those that differed from their known bits, with the first of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<crate::record::faults::FaultCount>,
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
