//! The warm-up on the GPU: a load of multiply-add chains over as many workgroups as fill a
//! requested time, so every compute unit works while the clock ramps up, and the runner's warm
//! state: the first warm-up's level, the check before each case, the re-warm before a retry (the
//! policy is in [`super::warmup`]).

use std::cell::Cell;
use std::time::Instant;

use super::clock::ClockProbe;
use super::kernel::Kernel;
use super::scaling::{dispatch_shape, shape_groups, Policy, MAX_SUBMIT_MS};
use super::warmup::{warm_up, Heat, WarmUp, PLAN};
use crate::error::Result;
use crate::registry::{CaseSpec, Glsl, Push};
use crate::vk::commands::submit;
use crate::vk::Context;

const GLSL: Glsl = Glsl { file: "warmup.glsl", source: include_str!("../../glsl/warmup.glsl") };

/// Multiply-add steps per chain and invocation: about a thousand clocks per workgroup.
const STEPS: u32 = 256;
/// Invocations per workgroup: within every device's limits (at least 128).
const LOCAL_SIZE: u32 = 64;

/// The load's kernel and the workgroup count that last filled a submission.
pub struct Heater<'ctx> {
    ctx: &'ctx Context,
    kernel: Kernel<'ctx>,
    groups: Cell<u64>,
}

impl<'ctx> Heater<'ctx> {
    /// Builds the load's pipeline.
    pub fn new(ctx: &'ctx Context) -> Result<Self> {
        let case = CaseSpec::new("warm-up load", GLSL, [LOCAL_SIZE, 1, 1]).push(Push::words(&[0]));
        let kernel = Kernel::new(ctx, case, 4 * u64::from(LOCAL_SIZE))?;
        Ok(Self { ctx, kernel, groups: Cell::new(1) })
    }

    /// Keeps the device busy for at least `ms` milliseconds of wall time, in submissions sized
    /// to take about `ms` each (growing from the last size, never above [`MAX_SUBMIT_MS`]);
    /// returns the milliseconds spent.
    pub fn heat(&self, ms: f64) -> Result<f64> {
        let max = self.ctx.info.max_group_count;
        let policy = Policy {
            target_ms: ms,
            max_submit_ms: MAX_SUBMIT_MS,
            max_groups: u64::from(max[0]) * u64::from(max[1]),
        };
        let mut spent = 0.0;
        while spent < ms {
            let shape = dispatch_shape(self.groups.get(), max);
            let mut bound = Ok(());
            let wall = submit(self.ctx, |rec| {
                bound = self.kernel.bind(rec, &[STEPS]);
                rec.dispatch(shape);
            })?;
            bound?;
            let wall_ms = (wall.as_secs_f64() * 1e3).max(1e-3);
            spent += wall_ms;
            self.groups.set(policy.next(shape_groups(shape), wall_ms));
        }
        Ok(spent)
    }
}

/// The device to warm: the heater's load, and the probe's readings where there is a clock.
struct Warming<'a, 'ctx> {
    heater: &'a Heater<'ctx>,
    probe: Option<&'a ClockProbe<'ctx>>,
}

impl Heat for Warming<'_, '_> {
    fn heat(&mut self, ms: f64) -> Result<f64> {
        self.heater.heat(ms)
    }

    fn clock_mhz(&mut self) -> Result<Option<f64>> {
        self.probe.map_or(Ok(None), ClockProbe::mhz)
    }
}

/// The runner's warm state: the load, the first warm-up, the level later cases are held to, and
/// when the device last worked.
pub struct Warmth<'ctx> {
    heater: Heater<'ctx>,
    /// The first warm-up, before any case.
    pub first: WarmUp,
    /// The level cases are held to, MHz: where the clock settled in the first warm-up, or later in
    /// a re-warm that settled elsewhere (the level the device sustains moved). `None` without a
    /// calibrated clock, or if the first warm-up did not settle.
    reference: Cell<Option<f64>>,
    last_work: Cell<Instant>,
}

impl<'ctx> Warmth<'ctx> {
    /// Warms the device up before the first timed case, reading the clock with `probe` (not yet
    /// calibrated: the clock is read at the level the cases will see).
    pub fn start(ctx: &'ctx Context, probe: Option<&ClockProbe<'ctx>>) -> Result<Self> {
        let heater = Heater::new(ctx)?;
        let first = warm_up(&mut Warming { heater: &heater, probe }, &PLAN, None)?;
        let reference = Cell::new(first.settled_mhz);
        Ok(Self { heater, first, reference, last_work: Cell::new(Instant::now()) })
    }

    /// The level cases are held to now, MHz.
    pub fn reference(&self) -> Option<f64> {
        self.reference.get()
    }

    /// Drops the reference: the clock that the first warm-up read is not one (the probe failed
    /// calibration).
    pub fn forget_reference(&self) {
        self.reference.set(None);
    }

    /// Before a case's measurement: back to the reference level if the clock fell below it (one
    /// clock reading when it did not), or, without a reference, a refresh after an idle gap. Returns a
    /// note when it loaded the device.
    pub fn before_case(&self, probe: Option<&ClockProbe<'ctx>>) -> Result<Option<String>> {
        let idle_ms = self.last_work.get().elapsed().as_secs_f64() * 1e3;
        let note = match (self.reference.get(), probe) {
            (Some(level), Some(_)) => self.back_to(level, probe)?,
            _ if idle_ms >= PLAN.idle_ms => {
                let load_ms = self.heater.heat(PLAN.refresh_ms)?;
                Some(format!(
                    "warmed up again first after {:.1} s idle: {:.2} s of load, a fixed time (no clock to watch)",
                    idle_ms / 1e3,
                    load_ms / 1e3
                ))
            }
            _ => None,
        };
        self.worked();
        Ok(note)
    }

    /// Before a retry: back to the reference level, or a refresh without one. Returns the level
    /// to hold the next try to.
    pub fn rewarm(&self, probe: Option<&ClockProbe<'ctx>>) -> Result<Option<f64>> {
        match (self.reference.get(), probe) {
            (Some(level), Some(_)) => {
                self.back_to(level, probe)?;
            }
            _ => {
                self.heater.heat(PLAN.refresh_ms)?;
            }
        }
        Ok(self.reference.get())
    }

    /// Loads the device until its clock is back at `level`; a clock that settles elsewhere
    /// becomes the new reference. Returns a note when it loaded the device.
    fn back_to(&self, level: f64, probe: Option<&ClockProbe<'ctx>>) -> Result<Option<String>> {
        let warm = warm_up(&mut Warming { heater: &self.heater, probe }, &PLAN, Some(level))?;
        if warm.load_ms == 0.0 {
            return Ok(None);
        }
        let mut note = format!("warmed up again first: {}", warm.text());
        if let Some(moved) = warm.settled_mhz.filter(|mhz| super::measure::off(*mhz, level)) {
            self.reference.set(Some(moved));
            note.push_str(&format!(
                "; the clock settled there instead of at {level:.0} MHz, so later cases are held to {moved:.0} MHz"
            ));
        }
        Ok(Some(note))
    }

    /// Notes that the device just worked (a measurement ended).
    pub fn worked(&self) {
        self.last_work.set(Instant::now());
    }
}
