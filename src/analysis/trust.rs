//! The trust layer: each rate per clock per compute unit, as a % of a known peak, and its flags.
//!
//! A timed case's rates are divided by the clock it ran at (the witness's reading beside a
//! sample's work, or the probe's around the samples) and the device's compute units; a work unit
//! bounded by a [`Ceiling`] of a known [`Architecture`] becomes a % of that peak. A share is
//! implausible only beyond what the measurement's own uncertainty allows ([`allowed_percent`]).
//! Anything unknown stays unknown (`None`, printed "unknown"), never 0 or inf.
//!
//! Why it is built so: docs/design/roofline.md.

use crate::caps::link::Lanes;
use crate::caps::{peaks, Architecture, Ceiling};
use crate::caps::{ComputeUnits, DeviceInfo};
use crate::record::outcome::{Counted, Outcome};
use crate::registry::{Unit, Work};
use crate::results::flag::Flag;
use crate::results::measure::Measure;
use crate::results::model::Peak;

/// Above this % of a known peak a result is implausible where its clock's uncertainty is not
/// known (the probe's reading around the samples) or no clock is involved (the host link's
/// nominal rate): 100% plus 2% for the error of the clock reading (0.2%) and of the rate (0.35%
/// run to run), with room to spare.
pub const IMPLAUSIBLE_PERCENT: f64 = 102.0;
/// How many standard uncertainties above a peak a rate per clock must sit to be implausible.
pub const IMPLAUSIBLE_K: f64 = 3.0;
/// The standard error of a median of `n` samples with coefficient of variation `cv`, relative:
/// 1.2533 cv / sqrt(n) (a normal distribution's; sqrt(pi/2)).
pub fn median_error(cv: f64, n: usize) -> f64 {
    1.2533 * cv / (n.max(1) as f64).sqrt()
}
/// The highest share of a peak (percent) a result measured with relative `uncertainty` (`None`:
/// not known) can reach before it is implausible: [`IMPLAUSIBLE_K`] uncertainties above 100%.
pub fn allowed_percent(uncertainty: Option<f64>) -> f64 {
    uncertainty.map_or(IMPLAUSIBLE_PERCENT, |u| 100.0 * (1.0 + IMPLAUSIBLE_K * u))
}
/// A case whose clock is this fraction or more below the run's median clock, beyond its clock's
/// uncertainty, ran throttled.
pub const THROTTLE_FRACTION: f64 = crate::record::measurement::OFF_CLOCK;

/// What the device lets perftest say about rates: its compute units and its architecture's peaks.
#[derive(Clone, Copy, Debug, Default)]
pub struct Trust {
    /// The compute units, where the driver tells them.
    pub compute_units: Option<ComputeUnits>,
    /// The architecture, where perftest knows it.
    pub architecture: Option<&'static Architecture>,
    /// The host link's lanes, where they could be read.
    pub host_link: Option<Lanes>,
}

/// The share of a known peak a case reached.
#[derive(Clone, Debug, PartialEq)]
pub struct PeakShare {
    /// Percent of the peak.
    pub percent: f64,
    /// Which ceiling.
    pub ceiling: Ceiling,
    /// The peak, per clock per compute unit with its unit (`L1: 128.0 B/clk/SM`).
    pub peak: Peak,
    /// The highest share the measurement's uncertainty allows, percent ([`allowed_percent`]);
    /// `None` where that is the fixed [`IMPLAUSIBLE_PERCENT`].
    pub allowed: Option<f64>,
}

/// What the trust layer says of one timed case.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Judgement {
    /// The clock the samples ran at, MHz, as measured (above a board's listed highest too).
    pub clock_mhz: Option<f64>,
    /// Its relative uncertainty, where the witness read it.
    pub clock_uncertainty: Option<f64>,
    /// Each rate per clock per compute unit: value and unit (`B/clk/SM`), in the case's work order.
    pub per_clock: Vec<(f64, Measure)>,
    /// The highest share of a known peak among the case's work units.
    pub peak: Option<PeakShare>,
    /// Whether the clocks per dependent operation were counted by the shader clock around the
    /// chain ([`ShaderCounts::chain_clocks`](crate::record::measurement::ShaderCounts::chain_clocks)),
    /// not the time at the clock read around the samples.
    pub shader_clocked: bool,
    /// Each compute unit's own rate of the case's first work unit per its own clock, where its
    /// workgroups recorded their units: (unit id, workgroups, rate per clock).
    pub units: Vec<(u32, u32, f64)>,
}

/// The unit of a rate per clock per compute unit (`B/clk/SM`).
pub fn per_clock_unit(unit: Unit, compute_unit: &str) -> String {
    format!("{}/clk/{compute_unit}", unit.amount_name())
}

impl Trust {
    /// The trust facts of a device.
    pub fn of(info: &DeviceInfo) -> Self {
        Trust {
            compute_units: info.compute_units,
            architecture: peaks::architecture(info.vendor_id, info.device_id),
            host_link: info.host_link.as_ref().ok().map(|link| link.lanes),
        }
    }

    /// Every flag of `outcome` known while the run goes on ([`flags`] without the run's median),
    /// and, for a case whose ratio is against `baseline`, the flag that the baseline has flags.
    pub fn flags(&self, outcome: &Outcome, judged: &Judgement, baseline: Option<&Outcome>) -> Vec<Flag> {
        let mut all = flags(outcome, judged, None);
        if let Some(baseline) = baseline {
            all.extend(baseline_flag(&flags(baseline, &self.judge(baseline), None)));
        }
        all
    }

    /// The judgement of a timed case (others get an empty one).
    pub fn judge(&self, outcome: &Outcome) -> Judgement {
        let Outcome::Timed { measurement, counted, work: amounts, .. } = outcome else {
            return Judgement::default();
        };
        // The clock as measured, above a board's listed highest too: the H100's SMs run above
        // 1980 MHz under light load (results/clock-above-max/).
        let clock_mhz = measurement.clock_mhz();
        let clock_uncertainty = measurement.clock.uncertainty;
        // A share of a peak is allowed the clock's and the median rate's uncertainty.
        let rate_error = median_error(measurement.summary.cv, measurement.samples.len());
        let allowed = clock_uncertainty.map(|u| allowed_percent(Some(u + rate_error)));
        // Bytes across the host link are a share of the link, whatever the clock.
        let mut judgement = Judgement {
            clock_mhz,
            clock_uncertainty,
            peak: self.link_share(outcome),
            ..Judgement::default()
        };
        judgement.units = per_unit(measurement, amounts);
        let Some(mhz) = clock_mhz else { return judgement };
        // A transfer's bytes are not moved by the compute units: no rate per unit.
        if *counted == Counted::Copies {
            return judgement;
        }
        for ((rate, work), (amount, _)) in outcome.rates().into_iter().zip(amounts) {
            // A dependent load's or operation's rate is a latency: clocks per load or per
            // operation, whatever the unit count; counted by the shader around the chain where
            // it read its clock, else the time at the clock read around the samples.
            if let Some(each) = work.unit.latency_of() {
                let counted =
                    measurement.shader.chain_clocks.filter(|c| *c > 0.0).map(|clocks| clocks / amount);
                judgement.shader_clocked |= counted.is_some();
                let clocks = counted.unwrap_or(mhz * 1e6 / rate);
                judgement.per_clock.push((clocks, format!("clk/{each}").into()));
                continue;
            }
            // So is a dispatch's: clocks per dispatch, for the whole device.
            if work.unit == Unit::Dispatch {
                judgement.per_clock.push((mhz * 1e6 / rate, "clk/dispatch".into()));
                continue;
            }
            // A submission's round trip is the CPU's time: no rate per clock or unit.
            if work.unit == Unit::Submission {
                continue;
            }
            let Some(units) = self.compute_units else { continue };
            let value = rate / (mhz * 1e6) / f64::from(units.count);
            let unit = Measure::PerClock { unit: work.unit, compute_unit: units.name.to_owned() };
            let peak = work.ceiling.zip(self.architecture).and_then(|(c, arch)| Some((c, arch.peak(c)?)));
            if let Some((ceiling, peak)) = peak {
                let percent = value / peak * 100.0;
                if judgement.peak.as_ref().is_none_or(|p| percent > p.percent) {
                    let peak = Peak {
                        ceiling: ceiling.name().to_owned(),
                        value: peak,
                        unit: unit.clone(),
                        detail: None,
                    };
                    judgement.peak = Some(PeakShare { percent, ceiling, peak, allowed });
                }
            }
            judgement.per_clock.push((value, unit));
        }
        judgement
    }

    /// The share of the host link of a timed outcome's work bounded by it, where the link is known.
    fn link_share(&self, outcome: &Outcome) -> Option<PeakShare> {
        let lanes = self.host_link?;
        let (rate, _) = outcome.rates().into_iter().find(|(_, w)| w.ceiling == Some(Ceiling::HostLink))?;
        let link = lanes.bytes_per_s();
        let peak = Peak {
            ceiling: Ceiling::HostLink.name().to_owned(),
            value: link / 1e9,
            unit: "GB/s".into(),
            detail: Some(format!("each way, {}", lanes.name())),
        };
        // The link's rate is nominal (lanes times their transfer rate): the fixed margin.
        Some(PeakShare { percent: rate / link * 100.0, ceiling: Ceiling::HostLink, peak, allowed: None })
    }
}

/// Each unit's rate per its own clock: its workgroups' share of one dispatch's first work unit,
/// over the span of its clock (see [`crate::record::units`]).
fn per_unit(
    measurement: &crate::record::measurement::Measurement,
    amounts: &[(f64, Work)],
) -> Vec<(u32, u32, f64)> {
    let Some((amount, _)) = amounts.first() else { return Vec::new() };
    let groups: u32 = measurement.shader.units.iter().map(|u| u.groups).sum();
    if groups == 0 || measurement.groups == 0 {
        return Vec::new();
    }
    let per_group = amount / measurement.groups as f64 / f64::from(groups);
    measurement
        .shader
        .units
        .iter()
        .filter(|u| u.clocks > 0)
        .map(|u| (u.unit, u.groups, per_group * f64::from(u.groups) / u.clocks as f64))
        .collect()
}

impl Judgement {
    /// The flag of a result above a known peak beyond what its uncertainty allows, if it is one.
    pub fn implausible(&self) -> Option<Flag> {
        let peak = self.peak.as_ref().filter(|p| p.percent > p.allowed.unwrap_or(IMPLAUSIBLE_PERCENT))?;
        let why = match (peak.ceiling, self.clock_uncertainty) {
            (Ceiling::HostLink, _) => "a cache on the GPU's side of the link served the bytes",
            // The witness reads windows of the work on one compute unit: the work may have run
            // faster between them.
            (_, Some(_)) => {
                "the samples ran at a higher clock than the witness read, or the compiler removed work"
            }
            (_, None) => "the compiler may have removed work",
        };
        Some(Flag::Implausible {
            percent: peak.percent,
            ceiling: peak.ceiling.name().to_owned(),
            peak: peak.peak.value_text(),
            why: Some(why.to_owned()),
            allowed: peak.allowed,
        })
    }

    /// The flag of a case whose clock is [`THROTTLE_FRACTION`] or more below `median` MHz,
    /// beyond its clock's uncertainty.
    pub fn throttled(&self, median: Option<f64>) -> Option<Flag> {
        throttled(self.clock_mhz?, median?, self.clock_uncertainty)
    }
}

/// Every flag of a timed case's result, in the order lines print them: noisy, unsettled, over the
/// submission cap, a clock that changed during the samples, below the warm-up's clock, throttled
/// (against the run's `median` clock), implausible, and re-measured (when the last try was in
/// trouble too). Empty otherwise. A clock below the warm-up's level that the case's own load
/// holds (it read the same after a re-warm) is no flag: that is the card under this work.
pub fn flags(outcome: &Outcome, judged: &Judgement, median: Option<f64>) -> Vec<Flag> {
    let Outcome::Timed { measurement, .. } = outcome else { return Vec::new() };
    let mut flags = Vec::new();
    if measurement.fenced {
        flags.push(Flag::Fenced);
    }
    if measurement.summary.is_noisy() {
        flags.push(Flag::Noisy);
    }
    if !measurement.settled {
        flags.push(Flag::Unsettled);
    }
    let cap_ms = crate::record::measurement::MAX_SUBMIT_MS;
    flags.extend(outcome.over_submission_cap().map(|(ms, groups, counted)| Flag::OverCap {
        ms,
        groups,
        counted,
        cap_ms,
    }));
    if let Some((before, after)) = measurement.unsteady() {
        let during = measurement.clock.source == crate::record::measurement::ClockSource::Witness;
        flags.push(Flag::Unsteady { before_mhz: before, after_mhz: after, during });
    }
    if let Some((mhz, reference)) = measurement.below_reference() {
        flags.push(Flag::BelowWarmUp { mhz, reference_mhz: reference });
    }
    if !measurement.clock.own_load {
        flags.extend(judged.throttled(median));
    }
    flags.extend(judged.implausible());
    if measurement.gave_up {
        flags.push(Flag::Remeasured { retries: measurement.retries.clone() });
    }
    flags
}

/// The flag of a ratio against a baseline with `flags` of its own that doubt its rate
/// ([`Flag::doubts_ratio`]), naming each (`noisy`, `throttled`); `None` if it has none.
pub fn baseline_flag(flags: &[Flag]) -> Option<Flag> {
    let doubts: Vec<String> = flags.iter().filter(|f| f.doubts_ratio()).map(Flag::name).collect();
    (!doubts.is_empty()).then_some(Flag::Baseline(doubts))
}

/// The flag of a case that ran at `mhz` (known to relative `uncertainty`, where it is) when the
/// run's median was `median`, if it is [`THROTTLE_FRACTION`] and its uncertainty or more below
/// it. A clock above the median is the case's own light load (the H100's SMs run faster while
/// one workgroup works than while all of them do): per-clock figures use it, and the rate is the
/// card's.
pub fn throttled(mhz: f64, median: f64, uncertainty: Option<f64>) -> Option<Flag> {
    let below = 1.0 - mhz / median;
    (below >= THROTTLE_FRACTION + uncertainty.unwrap_or(0.0))
        .then_some(Flag::Throttled { mhz, median_mhz: median })
}

/// The median of `clocks` (MHz), if there are any.
pub fn median_clock(clocks: impl IntoIterator<Item = f64>) -> Option<f64> {
    crate::record::stats::median(clocks.into_iter().filter(|c| c.is_finite()))
}

#[cfg(test)]
pub(crate) mod tests;
