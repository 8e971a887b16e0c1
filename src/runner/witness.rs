//! The clock witness: the compute units' clock while a case's own work runs.
//!
//! One invocation reads the subgroup clock (its compute unit's cycles) and the device clock (a
//! timer of fixed rate: VK_KHR_shader_clock's `shaderDeviceClock`) together, spins for a share of
//! a dispatch's time, and reads both again (glsl/witness.glsl). Dispatched with no barrier just
//! before a case's dispatch, it runs beside that work: the cycles it counted over the time the
//! device clock measured are the clock the work ran at. Vulkan does not say the device clock's
//! rate (nanoseconds on NVIDIA), so it is calibrated once against the GPU timestamps, as the probe
//! ([`super::clock`]) measures the subgroup clock: a short and a long spin, each alone between two
//! timestamps, whose fixed costs cancel. A timer's rate does not move with load; the subgroup
//! clock's does, which is why the witness reads it beside the work and the probe cannot.
//!
//! Why it is built so: docs/design/clock.md.

use std::cell::Cell;

use super::kernel::Kernel;
use super::verify;
use crate::caps::{Feature, Requirements};
use crate::error::Result;
use crate::registry::{CaseSpec, Glsl, Push};
use crate::vk::commands::Recorder;
use crate::vk::{Context, TimestampPool};

const GLSL: Glsl = Glsl { file: "witness.glsl", source: include_str!("../../glsl/witness.glsl") };

/// Words per slot of the results buffer (glsl/witness.glsl writes fifteen).
const WORDS: usize = 16;
/// Slots: the readings one submission can carry.
pub const SLOTS: usize = 4;
/// Device-clock ticks of the calibration's short and long spin: 0.1 and 1.1 ms of a 1 GHz timer,
/// 1 and 11 ms of a 100 MHz one.
const CALIBRATION_SPINS: [u32; 2] = [100_000, 1_100_000];
/// Reads a calibration spin makes at most (a device clock that stands still): a fraction of a
/// second at any read rate a GPU has.
const CALIBRATION_LIMIT: u32 = 1 << 24;
/// Calibration readings of the device clock's rate, which must agree within [`CALIBRATION_AGREE`].
const CALIBRATION_READINGS: usize = 3;
/// How closely calibration readings of a fixed-rate timer agree: a tenth of a percent.
pub const CALIBRATION_AGREE: f64 = 0.001;
/// The longest a witness reads for beside work, µs: a 1 µs step of the device clock is then a 0.05%
/// reading.
pub const MAX_SPIN_US: f64 = 4000.0;
/// The shortest window worth a reading, µs: below it, the device clock's step is too coarse.
pub const MIN_SPIN_US: f64 = 50.0;
/// Where in a dispatch a witness reads: from this share of the dispatch's time (its work in full
/// flight, not starting) ...
pub const DELAY_SHARE: f64 = 0.25;
/// ... for this share of it, so it ends well inside the dispatch it runs beside.
pub const SPIN_SHARE: f64 = 0.5;
/// How many times the reads per tick the calibration saw a spin may make before it gives up: the
/// calibration may run on a GPU still at its idle clock (345 MHz on the H100, a sixth of its
/// working clock).
const LIMIT_FACTOR: f64 = 64.0;
/// Readings outside this range (MHz) are not a compute unit's clock.
const PLAUSIBLE_MHZ: std::ops::RangeInclusive<f64> = 10.0..=10_000.0;

/// The clock one witness read: MHz, and its relative uncertainty (the device clock's step and
/// calibration, and how far apart the subgroup-clock reads around each device-clock read were).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    /// The compute unit's clock, MHz.
    pub mhz: f64,
    /// Its relative uncertainty (0.001 is 0.1%).
    pub uncertainty: f64,
}

/// What one slot holds: the spin's cycles (at least and at most, by the subgroup-clock reads
/// around each device-clock read) and ticks, the device clock's smallest step, the reads it made,
/// and the submission that wrote it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Raw {
    /// Subgroup-clock cycles between the first device-clock read and the last, at least: from the
    /// read after the first to the read before the last.
    pub least: u64,
    /// At most: from the read before the first to the read after the last.
    pub most: u64,
    /// Device-clock ticks over the spin.
    pub ticks: u64,
    /// The smallest step of the device clock seen, ticks (`u32::MAX`: none seen).
    pub step: u32,
    /// Reads of the device clock made.
    pub reads: u32,
    /// The tag of the submission that wrote it.
    pub tag: u32,
}

impl Raw {
    /// The slot's words, or `None` if a clock went backwards.
    pub fn of(words: &[u32]) -> Option<Raw> {
        let wide = |i: usize| u64::from(words[i]) | u64::from(words[i + 1]) << 32;
        let (before_first, after_first, before_last, after_last) = (wide(0), wide(2), wide(4), wide(6));
        after_first.checked_sub(before_first)?;
        after_last.checked_sub(before_last)?;
        Some(Raw {
            least: before_last.checked_sub(after_first)?,
            most: after_last.checked_sub(before_first)?,
            ticks: wide(10).checked_sub(wide(8))?,
            step: words[12],
            reads: words[13],
            tag: words[14],
        })
    }
}

/// The clock `raw` read, with a device clock of `ticks_per_us` known to `rate_uncertainty`; `None`
/// where the spin gave up (`limit` reads), a clock stood still, or the reading is no GPU clock.
pub fn reading_of(raw: Raw, limit: u32, ticks_per_us: f64, rate_uncertainty: f64) -> Option<Reading> {
    if raw.reads >= limit || raw.ticks == 0 || raw.least == 0 || raw.step == u32::MAX {
        return None;
    }
    let us = raw.ticks as f64 / ticks_per_us;
    let (least, most) = (raw.least as f64, raw.most as f64);
    let mhz = (least + most) / 2.0 / us;
    // The device clock's reads happened somewhere between the subgroup clock's around them.
    let skew = (most - least) / (most + least);
    let step = 2.0 * f64::from(raw.step) / raw.ticks as f64;
    let uncertainty = step + skew + rate_uncertainty;
    (mhz.is_finite() && PLAUSIBLE_MHZ.contains(&mhz)).then_some(Reading { mhz, uncertainty })
}

/// The device clock's rate from calibration `readings` (ticks per µs, with each spin pair's own
/// uncertainty): their mean and its relative uncertainty (the larger of their spread and their
/// own), if they agree within [`CALIBRATION_AGREE`].
pub fn calibrated(readings: &[(f64, f64)]) -> std::result::Result<(f64, f64), String> {
    if readings.is_empty() {
        return Err("the witness's calibration read nothing".into());
    }
    let rates: Vec<f64> = readings.iter().map(|(rate, _)| *rate).collect();
    let (low, high) = rates.iter().fold((f64::MAX, f64::MIN), |(l, h), &r| (l.min(r), h.max(r)));
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    let spread = (high - low) / mean;
    if !(mean.is_finite() && mean > 0.0) || spread > CALIBRATION_AGREE {
        return Err(format!(
            "the device clock did not keep one rate against the timestamps ({low:.4} to {high:.4} ticks per µs)"
        ));
    }
    let own = readings.iter().map(|(_, u)| *u).fold(0.0, f64::max);
    Ok((mean, own.max(spread / 2.0)))
}

/// Where the witnesses of one measurement read: how long each waits into its dispatch and reads
/// for, µs, and the dispatches they run beside (one slot each, in order).
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// The wait before a window, µs.
    pub delay_us: f64,
    /// The window, µs.
    pub spin_us: f64,
    /// The dispatches a witness runs beside.
    pub at: Vec<u64>,
}

/// Where the witnesses go in a measurement of `dispatches` dispatches expected to take
/// `expect_ms`: beside up to [`SLOTS`] dispatches spread over the measurement, each reading the
/// middle of its dispatch ([`DELAY_SHARE`], [`SPIN_SHARE`], at most [`MAX_SPIN_US`]); `None` where
/// a dispatch is too short to read beside ([`MIN_SPIN_US`]).
pub fn placement(expect_ms: f64, dispatches: u64) -> Option<Placement> {
    if dispatches == 0 || !(expect_ms.is_finite() && expect_ms > 0.0) {
        return None;
    }
    let each_us = expect_ms * 1e3 / dispatches as f64;
    let spin_us = (each_us * SPIN_SHARE).min(MAX_SPIN_US);
    let delay_us = each_us * DELAY_SHARE;
    let slots = SLOTS as u64;
    let mut at: Vec<u64> =
        (0..slots.min(dispatches)).map(|k| k * dispatches / slots.min(dispatches)).collect();
    at.dedup();
    (spin_us >= MIN_SPIN_US).then_some(Placement { delay_us, spin_us, at })
}

/// Why a device can have no witness, before trying; `None` where it can.
pub fn unavailable(ctx: &Context) -> Option<String> {
    if ctx.fenced {
        return Some("timed by CPU fences: no GPU timestamps to calibrate the device clock against".into());
    }
    for feature in [Feature::ShaderSubgroupClock, Feature::ShaderDeviceClock] {
        if !ctx.enabled.get(feature) {
            return Some(format!("the device lacks {} (VK_KHR_shader_clock)", feature.vk_name()));
        }
    }
    (ctx.info.kind == "Cpu").then(|| "a CPU implementation's shader clock is not a GPU clock".into())
}

/// The witness's case: compiled and created like any case's pipeline.
fn case() -> CaseSpec {
    CaseSpec::new("clock witness", GLSL, [1, 1, 1]).push(Push::words(&[0, 0, 0, 0, 0])).requires(
        Requirements::new().feature(Feature::ShaderSubgroupClock).feature(Feature::ShaderDeviceClock),
    )
}

/// The witness, calibrated. Fields drop in order: the timestamps, then the kernel.
pub struct Witness<'ctx> {
    ctx: &'ctx Context,
    timestamps: TimestampPool<'ctx>,
    kernel: Kernel<'ctx>,
    /// Device-clock ticks per µs, against the GPU timestamps.
    ticks_per_us: f64,
    /// Its relative uncertainty.
    rate_uncertainty: f64,
    /// Reads of the device clock per tick in the calibration's long spin.
    reads_per_tick: f64,
    /// The tag of the submission being recorded.
    tag: Cell<u32>,
}

impl<'ctx> Witness<'ctx> {
    /// The witness calibrated on `ctx`, or why there is none.
    pub fn new(ctx: &'ctx Context) -> std::result::Result<Self, String> {
        if let Some(why) = unavailable(ctx) {
            return Err(why);
        }
        let created = Kernel::new(ctx, case(), (SLOTS * WORDS * 4) as u64)
            .and_then(|kernel| Ok((kernel, TimestampPool::new(ctx, "clock witness: timestamps")?)));
        let (kernel, timestamps) =
            created.map_err(|e| format!("the clock witness could not be created ({e})"))?;
        let mut witness = Witness {
            ctx,
            timestamps,
            kernel,
            ticks_per_us: f64::NAN,
            rate_uncertainty: 0.0,
            reads_per_tick: 0.0,
            tag: Cell::new(0),
        };
        let mut readings = Vec::new();
        let mut reads_per_tick: f64 = 0.0;
        for _ in 0..CALIBRATION_READINGS {
            let reading = witness.rate_alone().map_err(|e| format!("the clock witness failed ({e})"))?;
            let (rate, uncertainty, reads) = reading.ok_or_else(|| {
                "the device clock did not advance with the timestamps (or a spin gave up)".to_owned()
            })?;
            readings.push((rate, uncertainty));
            reads_per_tick = reads_per_tick.max(reads);
        }
        (witness.ticks_per_us, witness.rate_uncertainty) = calibrated(&readings)?;
        witness.reads_per_tick = reads_per_tick;
        Ok(witness)
    }

    /// The device clock's rate by one short and one long spin, each alone between timestamps:
    /// ticks per µs, its relative uncertainty, and the long spin's reads per tick.
    fn rate_alone(&self) -> Result<Option<(f64, f64, f64)>> {
        let info = &self.ctx.info;
        let mut spins = Vec::new();
        for spin in CALIBRATION_SPINS {
            let tag = self.next_tag();
            let push = [spin, 0, CALIBRATION_LIMIT, tag, 0];
            let elapsed = self.kernel.time_alone(self.ctx, &self.timestamps, &push)?;
            let raw = self.raw(0, tag)?.filter(|r| r.reads < CALIBRATION_LIMIT && r.ticks > 0);
            let (Some(ms), Some(raw)) = (elapsed, raw) else { return Ok(None) };
            spins.push((ms, raw));
        }
        let [(short_ms, short), (long_ms, long)] = spins[..] else { return Ok(None) };
        let Some(extra_ticks) = long.ticks.checked_sub(short.ticks).filter(|t| *t > 0) else {
            return Ok(None);
        };
        let extra_us = (long_ms - short_ms) * 1e3;
        let rate = extra_ticks as f64 / extra_us;
        if !(extra_us > 0.0 && rate.is_finite()) {
            return Ok(None);
        }
        // Each end of each spin is quantized by the device clock's step and the timestamps' period.
        let step = 2.0 * f64::from(short.step.min(long.step)) / extra_ticks as f64;
        let stamp = 2.0 * f64::from(info.timestamp_period) / 1e3 / extra_us;
        Ok(Some((rate, step + stamp, f64::from(long.reads) / long.ticks as f64)))
    }

    /// Starts a submission that carries the witness: its readings are told from earlier ones'.
    pub fn next_tag(&self) -> u32 {
        self.tag.set(self.tag.get().wrapping_add(1));
        self.tag.get()
    }

    /// The device-clock ticks of a spin of `us` µs.
    pub fn ticks(&self, us: f64) -> u32 {
        (us * self.ticks_per_us).clamp(1.0, f64::from(u32::MAX / 2)) as u32
    }

    /// The reads a spin of `spin` ticks may make before it gives up: [`LIMIT_FACTOR`] times what
    /// the calibration saw, and never fewer than a thousand.
    fn limit(&self, spin: u32) -> u32 {
        (f64::from(spin) * self.reads_per_tick * LIMIT_FACTOR + 1000.0).min(f64::from(u32::MAX)) as u32
    }

    /// Records the witness into slot `slot`, waiting `delay` ticks and then reading for `spin`
    /// ticks, with no barrier after it: the next dispatch runs beside it. The caller binds its own
    /// pipeline again afterwards.
    pub fn record(&self, rec: &Recorder<'_>, slot: usize, delay: u32, spin: u32) -> Result<()> {
        let limit = self.limit(spin.max(delay));
        self.kernel.bind_beside(rec, &[spin, slot as u32, limit, self.tag.get(), delay])?;
        rec.dispatch([1, 1, 1]);
        Ok(())
    }

    /// What slot `slot` holds, if the submission tagged `tag` wrote it.
    fn raw(&self, slot: usize, tag: u32) -> Result<Option<Raw>> {
        let bytes = self.kernel.results()?;
        let words = verify::words(&bytes[slot * WORDS * 4..(slot + 1) * WORDS * 4]);
        Ok(Raw::of(&words).filter(|r| r.tag == tag))
    }

    /// The clock the witness in slot `slot` read, after the submission that recorded it (the
    /// last tag) finished; `None` where it could not read one.
    pub fn reading(&self, slot: usize, delay: u32, spin: u32) -> Result<Option<Reading>> {
        let spin = spin.max(delay);
        let raw = self.raw(slot, self.tag.get())?;
        Ok(raw.and_then(|raw| reading_of(raw, self.limit(spin), self.ticks_per_us, self.rate_uncertainty)))
    }

    /// The device clock's calibrated rate, ticks per µs, and its relative uncertainty.
    pub fn rate(&self) -> (f64, f64) {
        (self.ticks_per_us, self.rate_uncertainty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slot's words for a spin of `cycles` and `ticks`, each device-clock read taking `skew`
    /// cycles between the subgroup-clock reads around it, from starting values that carry.
    fn slot(cycles: u64, skew: u64, ticks: u64, step: u32, reads: u32, tag: u32) -> Vec<u32> {
        let (c0, d0) = (0xFFFF_FF00_u64, 0x1_0000_0000_u64 - 5);
        let split = |v: u64| [v as u32, (v >> 32) as u32];
        let cycles = [c0, c0 + skew, c0 + skew + cycles, c0 + 2 * skew + cycles].map(split).concat();
        cycles.into_iter().chain(split(d0)).chain(split(d0 + ticks)).chain([step, reads, tag, 0]).collect()
    }

    fn words(cycles: u64, ticks: u64, step: u32, reads: u32, tag: u32) -> Vec<u32> {
        slot(cycles, 0, ticks, step, reads, tag)
    }

    #[test]
    fn a_slot_reads_across_a_carry_into_the_high_word() {
        let raw = Raw::of(&slot(1_980_000, 20, 1_000_000, 32, 40_000, 7)).unwrap();
        assert_eq!(
            raw,
            Raw { least: 1_980_000, most: 1_980_040, ticks: 1_000_000, step: 32, reads: 40_000, tag: 7 }
        );
        let mut backwards = words(10, 10, 1, 1, 1);
        backwards[4] = 0;
        backwards[5] = 0;
        assert_eq!(Raw::of(&backwards), None, "a subgroup clock that went backwards");
    }

    #[test]
    fn a_reading_is_cycles_over_the_device_clocks_time_with_its_uncertainty() {
        // 1 ms of a nanosecond timer with 32 ns steps, 1,980,000 cycles (1,980,040 at most): 1980 MHz.
        let raw = Raw::of(&slot(1_980_000, 20, 1_000_000, 32, 40_000, 1)).unwrap();
        let reading = reading_of(raw, 160_000, 1000.0, 1e-5).unwrap();
        assert!((reading.mhz - 1980.02).abs() < 1e-9, "{reading:?}");
        // Two 32-tick steps of 10^6, the reads' 40-cycle bracket, and the calibration's 10^-5.
        let expected = 64e-6 + 40.0 / 3_960_040.0 + 1e-5;
        assert!((reading.uncertainty - expected).abs() < 1e-12, "{reading:?}");
        // A 100 MHz timer (10 ns ticks): the same clock.
        let raw = Raw::of(&words(1_980_000, 100_000, 1, 40_000, 1)).unwrap();
        assert!((reading_of(raw, 160_000, 100.0, 0.0).unwrap().mhz - 1980.0).abs() < 1e-9);
    }

    #[test]
    fn a_witness_that_waited_long_to_issue_says_how_little_it_knows() {
        // Beside work that fills its compute unit, each device-clock read came 90,000 cycles
        // (45 µs) after the subgroup-clock read before it: the clock is known to 9%, not better.
        let raw = Raw::of(&slot(900_000, 90_000, 500_000, 32, 100, 1)).unwrap();
        let reading = reading_of(raw, 160_000, 1000.0, 0.0).unwrap();
        assert!((reading.mhz - 1980.0).abs() < 1e-9, "{reading:?}");
        assert!(
            (reading.uncertainty - (180_000.0 / 1_980_000.0 + 64.0 / 500_000.0)).abs() < 1e-12,
            "{reading:?}"
        );
    }

    #[test]
    fn a_spin_that_gave_up_or_a_clock_that_stood_still_reads_nothing() {
        let raw = |cycles, ticks, step, reads| Raw::of(&words(cycles, ticks, step, reads, 1)).unwrap();
        assert_eq!(reading_of(raw(1_980_000, 1_000_000, 32, 160_000), 160_000, 1000.0, 0.0), None, "gave up");
        assert_eq!(reading_of(raw(1_980_000, 0, u32::MAX, 100), 160_000, 1000.0, 0.0), None, "no tick");
        assert_eq!(reading_of(raw(0, 1_000_000, 32, 100), 160_000, 1000.0, 0.0), None, "no cycle");
        assert_eq!(reading_of(raw(1, 1_000_000, 32, 100), 160_000, 1000.0, 0.0), None, "1 kHz: no GPU clock");
    }

    #[test]
    fn calibration_readings_must_agree() {
        let (rate, uncertainty) = calibrated(&[(1000.0, 1e-5), (1000.2, 2e-5), (999.9, 1e-5)]).unwrap();
        assert!((rate - 1_000.033_333).abs() < 1e-3, "{rate}");
        assert!((uncertainty - 0.3 / 1_000.033_333 / 2.0).abs() < 1e-9, "the spread, halved: {uncertainty}");
        assert_eq!(
            calibrated(&[(1000.0, 0.0), (1010.0, 0.0)]).unwrap_err(),
            "the device clock did not keep one rate against the timestamps (1000.0000 to 1010.0000 ticks per µs)"
        );
        assert!(calibrated(&[]).is_err());
        assert!(calibrated(&[(0.0, 0.0)]).is_err(), "a timer that does not tick");
    }

    #[test]
    fn witnesses_read_the_middle_of_dispatches_spread_over_the_measurement() {
        // 20 ms over 4 dispatches: 5 ms each; from 1.25 ms into each, 2.5 ms, beside all four.
        let four = placement(20.0, 4).unwrap();
        assert_eq!(four, Placement { delay_us: 1250.0, spin_us: 2500.0, at: vec![0, 1, 2, 3] });
        // 20 ms over 18 dispatches of a problem: beside four of them, spread.
        let train = placement(20.0, 18).unwrap();
        assert_eq!(train.at, [0, 4, 9, 13]);
        assert!((train.spin_us - 20_000.0 / 18.0 * SPIN_SHARE).abs() < 1e-6);
        // One dispatch of 40 ms: a window of the cap, 10 ms in.
        assert_eq!(
            placement(40.0, 1),
            Some(Placement { delay_us: 10_000.0, spin_us: MAX_SPIN_US, at: vec![0] })
        );
        // 20 ms over 10,000 tiny dispatches: too short to read beside.
        assert_eq!(placement(20.0, 10_000), None);
        assert_eq!(placement(f64::NAN, 4), None);
        assert_eq!(placement(20.0, 0), None);
    }
}
