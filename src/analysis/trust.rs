//! The trust layer: each rate per clock per compute unit, as a % of a known peak, and its flags.
//!
//! A timed case's rates are divided by the clock it ran at (the probe's reading around its
//! samples) and the device's compute units; a work unit bounded by a [`Ceiling`] of a known
//! [`Architecture`] becomes a % of that peak. Anything unknown stays unknown (`None`, printed
//! "unknown"), never 0 or inf.
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

/// Above this % of a known peak a result is implausible: 100% plus 2% for the error of the clock
/// reading (0.2%) and of the rate (0.35% run to run), with room to spare, so only work the
/// hardware cannot do is flagged.
pub const IMPLAUSIBLE_PERCENT: f64 = 102.0;
/// A case whose clock is this fraction or more off the run's median clock ran throttled (or boosted).
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
    /// The highest clock the board is set to, MHz, where perftest knows the board.
    pub max_clock_mhz: Option<f64>,
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
}

/// What the trust layer says of one timed case.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Judgement {
    /// The clock the samples ran at, MHz (at most the board's highest).
    pub clock_mhz: Option<f64>,
    /// What the probe read and the board's highest clock, MHz, where the reading was above it.
    pub above_max: Option<(f64, f64)>,
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
            max_clock_mhz: crate::caps::boards::board(info.vendor_id, info.device_id)
                .map(|b| b.max_clock_mhz),
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
        // A reading above the board's highest clock is not taken as the clock: per-clock figures
        // use the highest, and the case is flagged with what the probe read.
        let reading = measurement.clock_mhz();
        let above_max = reading.zip(self.max_clock_mhz).filter(|(mhz, max)| mhz > max);
        let clock_mhz = above_max.map_or(reading, |(_, max)| Some(max));
        // Bytes across the host link are a share of the link, whatever the clock.
        let mut judgement =
            Judgement { clock_mhz, above_max, peak: self.link_share(outcome), ..Judgement::default() };
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
                    judgement.peak = Some(PeakShare { percent, ceiling, peak });
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
        Some(PeakShare { percent: rate / link * 100.0, ceiling: Ceiling::HostLink, peak })
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
    /// The flag of a result above a known peak, if it is one.
    pub fn implausible(&self) -> Option<Flag> {
        let peak = self.peak.as_ref().filter(|p| p.percent > IMPLAUSIBLE_PERCENT)?;
        let why = match peak.ceiling {
            Ceiling::HostLink => "a cache on the GPU's side of the link served the bytes",
            _ => "the compiler may have removed work",
        };
        Some(Flag::Implausible {
            percent: peak.percent,
            ceiling: peak.ceiling.name().to_owned(),
            peak: peak.peak.value_text(),
            why: Some(why.to_owned()),
        })
    }

    /// The flag of a case whose clock is [`THROTTLE_FRACTION`] or more off `median` MHz.
    pub fn throttled(&self, median: Option<f64>) -> Option<Flag> {
        throttled(self.clock_mhz?, median?)
    }
}

/// Every flag of a timed case's result, in the order lines print them: noisy, unsettled, over the
/// submission cap, a clock that changed during the samples, below the warm-up's clock, above the
/// board's highest clock, throttled
/// (against the run's `median` clock), implausible, and re-measured (when the last try was in
/// trouble too). Empty otherwise.
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
        flags.push(Flag::Unsteady { before_mhz: before, after_mhz: after });
    }
    if let Some((mhz, reference)) = measurement.below_reference() {
        flags.push(Flag::BelowWarmUp { mhz, reference_mhz: reference });
    }
    if let Some((mhz, max)) = judged.above_max {
        flags.push(Flag::AboveMax { mhz, max_mhz: max });
    }
    flags.extend(judged.throttled(median));
    flags.extend(judged.implausible());
    if measurement.gave_up {
        flags.push(Flag::Remeasured { retries: measurement.retries.clone() });
    }
    flags
}

/// The flag of a ratio against a baseline with `flags` of its own, naming each (`noisy`,
/// `throttled`); `None` if it has none.
pub fn baseline_flag(flags: &[Flag]) -> Option<Flag> {
    (!flags.is_empty()).then(|| Flag::Baseline(flags.iter().map(Flag::name).collect()))
}

/// The flag of a case that ran at `mhz` when the run's median was `median`, if it is
/// [`THROTTLE_FRACTION`] or more off.
pub fn throttled(mhz: f64, median: f64) -> Option<Flag> {
    crate::record::measurement::off(mhz, median).then_some(Flag::Throttled { mhz, median_mhz: median })
}

/// The median of `clocks` (MHz), if there are any.
pub fn median_clock(clocks: impl IntoIterator<Item = f64>) -> Option<f64> {
    crate::record::stats::median(clocks.into_iter().filter(|c| c.is_finite()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::record::measurement::Measurement;
    use crate::record::stats::summarize;
    use crate::registry::Work;

    /// The H100 as perftest sees it: 132 SMs, Hopper.
    pub(crate) fn h100() -> Trust {
        Trust {
            compute_units: Some(ComputeUnits { count: 132, name: "SM", source: "VK_NV_shader_sm_builtins" }),
            architecture: peaks::architecture(0x10de, 0x2330),
            host_link: Some(Lanes { gts: 32.0, width: 16 }),
            max_clock_mhz: Some(1980.0),
        }
    }

    /// A timed outcome of `work` (amount per measurement) in 10 ms at `clocks` MHz.
    pub(crate) fn timed(work: Vec<(f64, Work)>, clocks: Vec<f64>) -> Outcome {
        let summary = summarize(&[10.0, 10.0, 10.0]).unwrap();
        let measurement = Measurement {
            groups: 1000,
            samples: vec![10.0; 3],
            summary,
            warmup_runs: 4,
            settled: true,
            clocks_mhz: clocks,
            reference_mhz: None,
            retries: Vec::new(),
            gave_up: false,
            fenced: false,
            phases: Default::default(),
            shader: Box::default(),
        };
        Outcome::Timed { measurement, work, ratio: None, with_time: false, counted: Counted::Workgroups }
    }

    /// Bytes per 10 ms that make `per_clock` B/clk/SM on 132 SMs at 1980 MHz.
    pub(crate) fn bytes_for(per_clock: f64) -> f64 {
        per_clock * 132.0 * 1980e6 * 0.010
    }

    #[test]
    fn a_clock_read_above_the_boards_highest_is_not_taken_as_the_clock() {
        let bytes = Work::new(4096.0, Unit::Byte).bounded_by(Ceiling::L1Bytes);
        let outcome = timed(vec![(bytes_for(100.0), bytes)], vec![2080.0, 2086.0]);
        let judged = h100().judge(&outcome);
        assert_eq!(judged.clock_mhz, Some(1980.0));
        assert_eq!(judged.above_max, Some((2083.0, 1980.0)));
        assert!(
            (judged.per_clock[0].0 - 100.0).abs() < 1e-9,
            "per clock at 1980 MHz: {:?}",
            judged.per_clock
        );
        let flags = flags(&outcome, &judged, None);
        assert_eq!(flags, [Flag::AboveMax { mhz: 2083.0, max_mhz: 1980.0 }]);
        let unknown = Trust { max_clock_mhz: None, ..h100() }.judge(&outcome);
        assert_eq!((unknown.clock_mhz, unknown.above_max), (Some(2083.0), None), "an unknown board");
        let at_max = h100().judge(&timed(vec![(bytes_for(100.0), bytes)], vec![1980.0, 1980.0]));
        assert_eq!((at_max.clock_mhz, at_max.above_max), (Some(1980.0), None));
    }

    #[test]
    fn work_above_the_peak_is_implausible() {
        // A shader that dropped its loads: 40x the bytes the L1 can deliver.
        let bytes = Work::new(4096.0, Unit::Byte).bounded_by(Ceiling::L1Bytes);
        let judged = h100().judge(&timed(vec![(bytes_for(5120.0), bytes)], vec![1980.0]));
        let flag = judged.implausible().unwrap();
        assert_eq!(
            flag,
            "implausible: 4000% of the L1 peak (128.0 B/clk/SM): the compiler may have removed work"
        );
        // Just under the margin is not flagged; just over is.
        let near = |per_clock: f64| h100().judge(&timed(vec![(bytes_for(per_clock), bytes)], vec![1980.0]));
        assert_eq!(near(128.0 * 1.019).implausible(), None);
        assert!(near(128.0 * 1.021).implausible().is_some());
    }

    #[test]
    fn per_clock_figures_keep_four_significant_digits_and_never_read_zero() {
        let cases = [
            (124.75, "124.8"),
            (15.5, "15.50"),
            (7.794, "7.794"),
            (0.086, "0.08600"),
            (3.0e-4, "0.0003000"),
            (3.0e-7, "3.000e-7"),
            (2048.4, "2048"),
        ];
        for (value, text) in cases {
            assert_eq!(crate::format::sig4(value), text, "{value}");
        }
    }

    #[test]
    fn a_clock_five_percent_off_the_median_is_throttling() {
        assert_eq!(throttled(1980.0, 1980.0), None);
        assert_eq!(throttled(1890.0, 1980.0), None, "4.5% off");
        assert_eq!(throttled(1395.0, 1980.0).unwrap(), "throttled: ran at 1395 MHz, run median 1980 MHz");
        assert!(throttled(2100.0, 1980.0).is_some(), "a boost counts too: the case is not comparable");
        assert_eq!(median_clock([1980.0, 1395.0, 1980.0, 1965.0]), Some(1972.5));
        assert_eq!(median_clock([]), None);
    }

    #[test]
    fn a_clock_that_changes_during_the_samples_is_flagged() {
        let flop = Work::new(2048.0, Unit::Flop).bounded_by(Ceiling::Fp32Fma);
        let outcome = timed(vec![(1e11, flop)], vec![1980.0, 1755.0]);
        let judged = h100().judge(&outcome);
        assert_eq!(judged.clock_mhz, Some(1867.5), "the mean of the readings");
        let all = flags(&outcome, &judged, Some(1867.5));
        assert_eq!(all, ["unsteady clock: 1980 MHz before the samples, 1755 MHz after"]);
        let steady = timed(vec![(1e11, flop)], vec![1980.0, 1975.0]);
        assert!(flags(&steady, &h100().judge(&steady), Some(1980.0)).is_empty());
    }

    #[test]
    fn a_case_off_the_warm_up_clock_after_its_retries_says_so() {
        let flop = Work::new(2048.0, Unit::Flop).bounded_by(Ceiling::Fp32Fma);
        let mut outcome = timed(vec![(1e11, flop)], vec![1700.0, 1702.0]);
        if let Outcome::Timed { measurement, .. } = &mut outcome {
            measurement.reference_mhz = Some(1980.0);
            measurement.retries = vec!["it ran at 1690 MHz, the warm-up reached 1980 MHz".into(); 2];
            measurement.gave_up = true;
        }
        let all = flags(&outcome, &h100().judge(&outcome), None);
        assert_eq!(
            all,
            [
                "below the warm-up clock: ran at 1701 MHz, the warm-up reached 1980 MHz",
                "re-measured 2 times: it ran at 1690 MHz, the warm-up reached 1980 MHz; then it ran at 1690 MHz, the \
                 warm-up reached 1980 MHz"
            ]
        );
        // Its ratio lines name the flags, not their detail.
        let line_flags =
            h100().flags(&timed(vec![(1e11, flop)], vec![]), &Judgement::default(), Some(&outcome));
        assert_eq!(
            line_flags.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["ratio against a flagged baseline (below the warm-up clock, re-measured 2 times)"]
        );
        let clean = timed(vec![(1e11, flop)], vec![1980.0, 1980.0]);
        assert!(h100().flags(&clean, &h100().judge(&clean), Some(&clean)).is_empty());
    }

    #[test]
    fn a_latency_is_the_shader_clocks_count_where_the_chain_read_it() {
        // 1e6 dependent operations in 10 ms: 10 ns each, 19.8 clocks at 1980 MHz.
        let op = Work::new(1.0, Unit::DependentOp);
        let by_time = h100().judge(&timed(vec![(1e6, op)], vec![1980.0, 1980.0]));
        assert!((by_time.per_clock[0].0 - 19.8).abs() < 1e-9, "{:?}", by_time.per_clock);
        assert!(!by_time.shader_clocked);
        // The shader counted 20.5 M clocks over the same operations: 20.5 clocks each, whatever
        // the clock read around the samples (here above the board's highest).
        let mut counted = timed(vec![(1e6, op)], vec![2080.0, 2086.0]);
        if let Outcome::Timed { measurement, .. } = &mut counted {
            measurement.shader.chain_clocks = Some(20.5e6);
        }
        let judged = h100().judge(&counted);
        assert!((judged.per_clock[0].0 - 20.5).abs() < 1e-9, "{:?}", judged.per_clock);
        assert_eq!(judged.per_clock[0].1.to_string(), "clk/op");
        assert!(judged.shader_clocked);
    }
}
