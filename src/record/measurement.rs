//! What one measurement found: its samples and their summary, the clocks around them, and the
//! rules that call two clocks different.

use super::stats::Summary;

/// Two clocks this fraction or more apart are different clocks: a case whose clock changed
/// during its samples, or that ran this far below the warm-up's level or off the run's median,
/// is not comparable with the others.
pub const OFF_CLOCK: f64 = 0.05;

/// The longest submission a measurement aims for, well under common watchdogs (2 s on Windows).
pub const MAX_SUBMIT_MS: f64 = 100.0;

/// Clock readings within this fraction of each other agree: a calibration's readings, or a
/// warm-up's over its settling window.
pub const STEADY: f64 = 0.02;

/// Where a measurement's clock readings come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockSource {
    /// The clock witness, beside the work of one sample (runner/witness.rs).
    Witness,
    /// The probe, in submissions of its own before and after the samples (runner/clock.rs).
    #[default]
    Probe,
}

/// How a measurement's clock was read, besides the readings themselves.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClockFacts {
    /// Where the readings come from (the probe in records made before the witness).
    #[serde(default)]
    pub source: ClockSource,
    /// The relative uncertainty of the clock the samples ran at, where the witness read it: its
    /// readings' own, plus half their spread.
    #[serde(default)]
    pub uncertainty: Option<f64>,
    /// The sample that carried the witness, over the other samples' median, less one: what the
    /// witness cost the work it ran beside (`None` without a witness or other samples).
    #[serde(default)]
    pub witness_change: Option<f64>,
    /// Whether the clock was below the warm-up's level, at the same level again after a re-warm:
    /// the case's own load holds the clock there (a power-limited card), not a cold or throttled
    /// device.
    #[serde(default)]
    pub own_load: bool,
    /// Whether [`ClockFacts::own_load`] was known from the family's case before: the first try
    /// ran steadily below the warm-up's level at the clock that case was held at by its own load,
    /// so it was not measured again.
    #[serde(default)]
    pub held_as_before: bool,
}

/// How a case's clock was read, as its record keeps it (format 8).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClockRead {
    /// Where the readings come from.
    pub source: ClockSource,
    /// The readings, MHz (the witness's, one per dispatch it ran beside; the probe's, before
    /// and after the samples).
    pub readings: Vec<f64>,
    /// The relative uncertainty of the clock of the samples, where the witness read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncertainty: Option<f64>,
    /// The sample that carried the witness against the others' median, less one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness_change: Option<f64>,
    /// Whether the case's own load held the clock below the warm-up's level.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub own_load: bool,
    /// Whether that was known from the family's case before, held at the same clock, rather
    /// than from a second try of its own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub held_as_before: bool,
}

/// What a measurement found.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Measurement {
    /// Workgroups per measurement in the samples.
    pub groups: u64,
    /// Sample times, milliseconds.
    pub samples: Vec<f64>,
    /// Their summary.
    pub summary: Summary,
    /// Measurements spent scaling and warming up.
    pub warmup_runs: usize,
    /// Whether consecutive warm-up rates agreed before the warm-up cap.
    pub settled: bool,
    /// The clock readings (MHz) of the samples: the witness's, beside the work of a sample, or
    /// the probe's, just before and just after the samples ([`ClockFacts::source`]); empty
    /// where unknown.
    pub clocks_mhz: Vec<f64>,
    /// How `clocks_mhz` were read: the witness or the probe, their uncertainty, the witness's
    /// cost, and whether the case's own load held the clock low (boxed: an outcome stays small).
    #[serde(default)]
    pub clock: Box<ClockFacts>,
    /// The level the device's clock settled at in the warm-up, MHz, where known: the clock the
    /// samples should have run at.
    pub reference_mhz: Option<f64>,
    /// Why each earlier try was measured again (`runner::retry`); empty if this was the first.
    pub retries: Vec<String>,
    /// Whether this try would have been measured again too, had a retry remained.
    pub gave_up: bool,
    /// Whether the samples are the CPU's wall time around each submission and its fence (no GPU
    /// timestamps on the queue, or `--fence-timing`) rather than GPU timestamps.
    #[serde(default)]
    pub fenced: bool,
    /// Where this try's wall time went: scaling, warm-up, samples (and, for the try kept, the
    /// re-warms and the tries before it).
    #[serde(default)]
    pub phases: Box<super::phases::Phases>,
    /// What the shader itself counted, where the case asked it to (boxed: most cases have none).
    #[serde(default)]
    pub shader: Box<ShaderCounts>,
}

/// What a case's shader counted besides its results.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ShaderCounts {
    /// For a case that reads the shader clock around its chain
    /// ([`CaseSpec::chain_clock`](crate::registry::CaseSpec::chain_clock)), on a device whose
    /// clock is known: the clocks one measurement's chains took as the shader counted them (the
    /// last timed dispatch's span per trip, times the measurement's trips); `None` elsewhere.
    pub chain_clocks: Option<f64>,
    /// For a case whose workgroups record their compute unit
    /// ([`CaseSpec::unit_records`](crate::registry::CaseSpec::unit_records)): each unit's part of
    /// the last timed dispatch; empty elsewhere.
    pub units: Vec<super::units::UnitSample>,
    /// For a case whose shader checks its own results
    /// ([`CaseSpec::fault_log`](crate::registry::CaseSpec::fault_log)): what it checked and what
    /// differed; `None` elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<super::faults::FaultCount>,
}

impl Measurement {
    /// A settled first try of `groups` that took `samples` and read nothing else (for tests).
    #[cfg(test)]
    pub fn of_samples(groups: u64, samples: &[f64]) -> Measurement {
        Measurement {
            groups,
            samples: samples.to_vec(),
            summary: super::stats::summarize(samples).expect("one sample at least"),
            warmup_runs: 3,
            settled: true,
            clocks_mhz: Vec::new(),
            clock: Box::default(),
            reference_mhz: None,
            retries: Vec::new(),
            gave_up: false,
            fenced: false,
            phases: Box::default(),
            shader: Box::default(),
        }
    }

    /// How its clock was read, for the record; `None` where no clock was read.
    pub fn clock_read(&self) -> Option<ClockRead> {
        (!self.clocks_mhz.is_empty()).then(|| ClockRead {
            source: self.clock.source,
            readings: self.clocks_mhz.clone(),
            uncertainty: self.clock.uncertainty,
            witness_change: self.clock.witness_change,
            own_load: self.clock.own_load,
            held_as_before: self.clock.held_as_before,
        })
    }

    /// The clock the samples ran at: the mean of the readings around them, where known.
    pub fn clock_mhz(&self) -> Option<f64> {
        (!self.clocks_mhz.is_empty())
            .then(|| self.clocks_mhz.iter().sum::<f64>() / self.clocks_mhz.len() as f64)
    }

    /// The clock readings' first and the one farthest from it, MHz, if they are [`OFF_CLOCK`] or
    /// more apart: the probe's before and after the samples, or the witness's windows of them.
    pub fn unsteady(&self) -> Option<(f64, f64)> {
        let first = *self.clocks_mhz.first()?;
        let farthest =
            self.clocks_mhz.iter().copied().max_by(|a, b| (a - first).abs().total_cmp(&(b - first).abs()))?;
        off(farthest, first).then_some((first, farthest))
    }

    /// The clock of the samples and the warm-up's level, MHz, if the clock is [`OFF_CLOCK`] or
    /// more below it: a device gone cold or throttled. Above it is the case's own load lifting the
    /// clock (the H100 reads up to 2099 MHz under tensor work, 1980 under the warm-up's FMAs),
    /// which no re-measurement changes; the run's median judges that (`analysis::trust`).
    pub fn below_reference(&self) -> Option<(f64, f64)> {
        if self.clock.own_load {
            return None;
        }
        let (mhz, reference) = (self.clock_mhz()?, self.reference_mhz?);
        below(mhz, reference).then_some((mhz, reference))
    }
}

/// Whether `mhz` is [`OFF_CLOCK`] or more off `reference`.
pub fn off(mhz: f64, reference: f64) -> bool {
    (mhz / reference - 1.0).abs() >= OFF_CLOCK
}

/// Whether `mhz` is [`OFF_CLOCK`] or more below `reference`.
pub fn below(mhz: f64, reference: f64) -> bool {
    mhz / reference - 1.0 <= -OFF_CLOCK
}
