//! The clock probe: the shader clock's rate against the GPU timestamps, in MHz.
//!
//! With `shaderSubgroupClock` (VK_KHR_shader_clock), one invocation spins on the subgroup clock for
//! a short and a long span, each in a submission of its own between two timestamps. The clocks it
//! counted over the extra nanoseconds of the long span give the clock rate; the fixed cost of a
//! submission (launch, timestamps) is in both and cancels. The runner probes before and after
//! each case's samples, so a clock that changes during a run shows on the case it changed in.
//!
//! Why it is built so: docs/design/roofline.md.

use super::kernel::Kernel;
use super::verify;
use super::witness::Witness;
use crate::caps::{Feature, Requirements};
use crate::error::Result;
use crate::record::measurement::STEADY;
use crate::registry::{CaseSpec, Glsl, Push};
use crate::vk::{Context, TimestampPool};

const GLSL: Glsl = Glsl { file: "clock.glsl", source: include_str!("../../glsl/clock.glsl") };

/// Clocks of the short and the long spin: 1M clocks apart, half a millisecond at 2 GHz and
/// 10 ms at 100 MHz, so a microsecond of launch jitter is at most 0.2% of a 2 GHz reading.
const SPINS: [u32; 2] = [100_000, 1_100_000];

/// Readings outside this range (MHz) are not a GPU clock: the probe says unknown instead.
const PLAUSIBLE_MHZ: std::ops::RangeInclusive<f64> = 10.0..=10_000.0;

/// Readings taken to calibrate.
pub const CALIBRATION_READINGS: usize = 3;

/// Why a device can have no clock readings, before trying; `None` when the probe can run.
pub fn unavailable(ctx: &Context) -> Option<String> {
    if ctx.fenced {
        return Some(
            "unknown: timed by CPU fences, there are no GPU timestamps to measure the shader clock against, so \
             rates per clock are unknown"
                .into(),
        );
    }
    if !ctx.enabled.get(Feature::ShaderSubgroupClock) {
        return Some(
            "unknown: the device lacks shaderSubgroupClock (VK_KHR_shader_clock), so rates per clock are unknown"
                .into(),
        );
    }
    (ctx.info.kind == "Cpu").then(|| {
        "unknown: a CPU implementation's shader clock is not a GPU clock, so rates per clock are unknown"
            .into()
    })
}

/// The probe, calibrated, or why there is none: the header's `clock:` line; and the witness,
/// where the device can read its clock beside the work.
pub struct Clock<'ctx> {
    /// The probe, where the device has a steady shader clock.
    pub probe: Option<ClockProbe<'ctx>>,
    /// Why there is none (`unknown: ...`).
    pub unknown: Option<String>,
    /// The witness, calibrated, or why there is none.
    pub witness: std::result::Result<Witness<'ctx>, String>,
}

impl<'ctx> Clock<'ctx> {
    /// How cases read the clock: the witness beside the work where there is one, the probe
    /// around it otherwise (neither where the clock is unknown).
    pub fn readers(&self) -> Readers<'_, 'ctx> {
        let probe = self.probe.as_ref();
        Readers { probe, witness: probe.and(self.witness.as_ref().ok()) }
    }
}

/// What reads the clock of a case's samples: the witness beside their work, else the probe
/// around them; both `None` where the clock is unknown.
#[derive(Clone, Copy, Default)]
pub struct Readers<'a, 'ctx> {
    /// The probe.
    pub probe: Option<&'a ClockProbe<'ctx>>,
    /// The witness.
    pub witness: Option<&'a Witness<'ctx>>,
}

/// Calibration attempts before the clock counts as unknown: a GPU still ramping up from idle may
/// need more than one.
pub const CALIBRATION_ATTEMPTS: usize = 3;

/// The probe, not yet calibrated, or why the device can have none (`unknown: ...`). The probe is
/// optional: if it cannot be created, the clock is unknown and the run goes on.
pub fn probe(ctx: &Context) -> std::result::Result<ClockProbe<'_>, String> {
    if let Some(reason) = unavailable(ctx) {
        return Err(reason);
    }
    ClockProbe::new(ctx).map_err(|error| unknown(format!("the clock probe could not be created ({error})")))
}

fn unknown(why: String) -> String {
    format!("unknown: {why}, so rates per clock are unknown")
}

/// Checks that the clock `probe` reads is steady: [`CALIBRATION_READINGS`] readings must agree
/// within [`STEADY`] (in one of [`CALIBRATION_ATTEMPTS`] tries), or the clock is unknown (a
/// counter that is not a clock, or one the driver virtualises): then why (`unknown: ...`).
pub fn calibrate(probe: &ClockProbe<'_>) -> std::result::Result<(), String> {
    let mut why = String::new();
    for _ in 0..CALIBRATION_ATTEMPTS {
        let readings = (0..CALIBRATION_READINGS)
            .map(|_| probe.mhz())
            .collect::<Result<Vec<_>>>()
            .map_err(|error| unknown(format!("the clock probe failed ({error})")))?;
        match steady(&readings) {
            Ok(_) => return Ok(()),
            Err(reason) => why = reason,
        }
    }
    Err(unknown(why))
}

/// The mean of calibration `readings` if they are all there and agree within [`STEADY`].
pub fn steady(readings: &[Option<f64>]) -> std::result::Result<f64, String> {
    let known: Vec<f64> = readings.iter().flatten().copied().collect();
    if known.len() < readings.len() || known.is_empty() {
        return Err("the shader clock's readings were inconsistent with the timestamps".into());
    }
    let (low, high) = known.iter().fold((f64::MAX, f64::MIN), |(l, h), &c| (l.min(c), h.max(c)));
    if high / low - 1.0 > STEADY {
        return Err(format!(
            "the shader clock did not keep a steady rate against the timestamps ({low:.0} to {high:.0} MHz)"
        ));
    }
    Ok(known.iter().sum::<f64>() / known.len() as f64)
}

/// The probe's case: compiled and created like any case's pipeline.
fn case() -> CaseSpec {
    CaseSpec::new("clock probe", GLSL, [1, 1, 1])
        .push(Push::words(&[0, 0]))
        .requires(Requirements::new().feature(Feature::ShaderSubgroupClock))
}

/// The clock rate in MHz from two spins: clocks and milliseconds of each, short then long.
pub fn mhz_from(clocks: [u64; 2], ms: [f64; 2]) -> Option<f64> {
    let extra_clocks = clocks[1].checked_sub(clocks[0])? as f64;
    let extra_us = (ms[1] - ms[0]) * 1e3;
    let mhz = extra_clocks / extra_us;
    (extra_us > 0.0 && mhz.is_finite() && PLAUSIBLE_MHZ.contains(&mhz)).then_some(mhz)
}

/// The probe's kernel and timestamps. Fields drop in order: the timestamps, then the kernel.
pub struct ClockProbe<'ctx> {
    ctx: &'ctx Context,
    timestamps: TimestampPool<'ctx>,
    kernel: Kernel<'ctx>,
}

impl<'ctx> ClockProbe<'ctx> {
    /// The probe (the device must have been created with `shaderSubgroupClock`: see [`probe`]).
    fn new(ctx: &'ctx Context) -> Result<Self> {
        let kernel = Kernel::new(ctx, case(), 8 * 4)?;
        let timestamps = TimestampPool::new(ctx, "clock probe: timestamps")?;
        Ok(Self { ctx, timestamps, kernel })
    }

    /// The clock rate now, in MHz; `None` if the readings are inconsistent (a clock that
    /// stopped or wrapped, timestamps out of order).
    pub fn mhz(&self) -> Result<Option<f64>> {
        let mut clocks = [0u64; 2];
        let mut ms = [0f64; 2];
        for (slot, spin) in SPINS.into_iter().enumerate() {
            let Some(elapsed) = self.kernel.time_alone(self.ctx, &self.timestamps, &[spin, slot as u32])?
            else {
                return Ok(None);
            };
            let words = verify::words(&self.kernel.results()?[slot * 16..slot * 16 + 16]);
            let word = |i: usize| u64::from(words[i]);
            let (first, last) = (word(0) | word(1) << 32, word(2) | word(3) << 32);
            let Some(counted) = last.checked_sub(first) else { return Ok(None) };
            (clocks[slot], ms[slot]) = (counted, elapsed);
        }
        Ok(mhz_from(clocks, ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixed_cost_cancels() {
        // 2 GHz, with 7 µs of launch and timestamps in each submission.
        let ms = |clocks: f64| clocks / 2e9 * 1e3 + 0.007;
        let mhz = mhz_from([100_000, 1_100_000], [ms(1e5), ms(1.1e6)]).unwrap();
        assert!((mhz - 2000.0).abs() < 1e-6, "{mhz}");
    }

    #[test]
    fn a_clock_is_steady_or_unknown() {
        assert_eq!(steady(&[Some(1980.0), Some(1981.0), Some(1979.0)]), Ok(1980.0));
        let unsteady = steady(&[Some(1021.0), Some(1506.0), Some(1153.0)]).unwrap_err();
        assert_eq!(
            unsteady,
            "the shader clock did not keep a steady rate against the timestamps (1021 to 1506 MHz)"
        );
        assert!(steady(&[Some(1980.0), None, Some(1980.0)]).is_err());
        assert!(steady(&[]).is_err());
    }

    #[test]
    fn inconsistent_readings_are_unknown_not_zero_or_infinite() {
        assert_eq!(mhz_from([100, 1_000_100], [0.5, 0.5]), None, "no extra time");
        assert_eq!(mhz_from([1_000_100, 100], [0.1, 0.5]), None, "fewer clocks in the long spin");
        assert_eq!(mhz_from([0, 1], [0.1, 0.5]), None, "a clock far below any GPU's");
        assert_eq!(mhz_from([0, 1 << 40], [0.1, 0.5]), None, "a clock far above any GPU's");
    }
}
