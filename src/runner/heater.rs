//! The warm-up load: multiply-add chains over as many workgroups as fill a requested time, so
//! every compute unit works while the clock ramps up (the policy is in [`super::warmup`], the
//! runner's warm state in [`super::warmth`]).

use std::cell::Cell;

use super::clock::{ClockProbe, Readers};
use super::kernel::Kernel;
use super::scaling::{dispatch_shape, shape_groups, Policy};
use super::warmup::Heat;
use super::witness::Witness;
use crate::error::Result;
use crate::registry::{CaseSpec, Glsl, Push};
use crate::vk::commands::submit;
use crate::vk::Context;

const GLSL: Glsl = Glsl { file: "warmup.glsl", source: include_str!("../../glsl/warmup.glsl") };

/// Multiply-add steps per chain and invocation: about a thousand clocks per workgroup.
const STEPS: u32 = 256;
/// Invocations per workgroup: within every device's limits (at least 128).
const LOCAL_SIZE: u32 = 64;

/// Where the witness reads the clock in a submission of a quarter of the load: from 1 ms in, for 2 ms.
const READING_DELAY_US: f64 = 1000.0;
const READING_US: f64 = 2000.0;

/// The time each submission of the load aims for, ms: a case's sample (the default
/// `--target-ms`), so a driver that resets the device after a shorter wait than the warm-up's
/// slices (lavapipe under `MESA_VK_MAX_TIMEOUT=50`) still gets through the warm-up.
const SUBMIT_MS: f64 = 20.0;

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
    /// to take about 20 ms each, a sample's time (growing from the last size); returns the milliseconds
    /// spent.
    pub fn heat(&self, ms: f64) -> Result<f64> {
        let max = self.ctx.info.max_group_count;
        let policy = Policy::for_device(ms.min(SUBMIT_MS), max);
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

    /// The clock under this load, as `witness` reads it beside one submission of a quarter of a
    /// sample's load, 1 ms into it for 2 ms (the probe, in a submission of its own, would read the
    /// clock of a device that just stopped working); `None` where it read none.
    pub fn clock_beside(&self, witness: &Witness<'_>) -> Result<Option<f64>> {
        let max = self.ctx.info.max_group_count;
        let shape = dispatch_shape((self.groups.get() / 4).max(1), max);
        let (delay, spin) = (witness.ticks(READING_DELAY_US), witness.ticks(READING_US));
        witness.next_tag();
        let mut bound = Ok(());
        submit(self.ctx, |rec| {
            bound = witness.record(rec, 0, delay, spin).and_then(|()| self.kernel.bind_beside(rec, &[STEPS]));
            rec.dispatch(shape);
            rec.host_barrier();
        })?;
        bound?;
        Ok(witness.reading(0, delay, spin)?.map(|r| r.mhz))
    }
}

/// The device to warm: the heater's load, and what reads its clock where there is one.
pub struct Warming<'a, 'ctx> {
    /// The load.
    pub heater: &'a Heater<'ctx>,
    /// The witness beside the load, else the probe between slices of it.
    pub clocks: Readers<'a, 'ctx>,
}

impl Heat for Warming<'_, '_> {
    fn heat(&mut self, ms: f64) -> Result<f64> {
        self.heater.heat(ms)
    }

    fn has_clock(&self) -> bool {
        self.clocks.probe.is_some()
    }

    fn clock_mhz(&mut self) -> Result<Option<f64>> {
        match (self.clocks.witness, self.clocks.probe) {
            (Some(witness), _) => self.heater.clock_beside(witness),
            (None, probe) => probe.map_or(Ok(None), ClockProbe::mhz),
        }
    }
}
