//! The runner's warm state: the first warm-up's level, the check before each case, the re-warm
//! before a retry (the policy is in [`super::warmup`], the load in [`super::heater`]).

use std::cell::{Cell, RefCell};
use std::time::Instant;

use super::clock::Readers;
use super::heater::{Heater, Warming};
use super::warmup::{warm_up, Check, Plan};
use crate::error::Result;
use crate::record::measurement::below;
use crate::record::warmup::WarmUp;

/// The runner's warm state: the load, the first warm-up, the level later cases are held to, and
/// when the device last worked.
pub struct Warmth<'ctx> {
    heater: Heater<'ctx>,
    /// The first warm-up, before any case.
    pub first: WarmUp,
    /// The level cases are held to, MHz: where the clock settled in the first warm-up, or lower,
    /// where a re-warm settled 5% or more below it (the level the device sustains fell). `None`
    /// without a calibrated clock, or if the first warm-up did not settle.
    reference: Cell<Option<f64>>,
    last_work: Cell<Instant>,
    /// How long to load, and when: [`Plan::for_device`].
    plan: &'static Plan,
    /// The family of the case before and the clock its own load held it at, MHz, if it did.
    held: RefCell<Option<(String, f64)>>,
}

impl<'ctx> Warmth<'ctx> {
    /// Warms the device up with `heater` as `plan` says before the first timed case, reading the
    /// clock with `clocks` (beside the load where there is a witness), where there is one.
    pub fn start(heater: Heater<'ctx>, clocks: Readers<'_, 'ctx>, plan: &'static Plan) -> Result<Self> {
        let first = warm_up(&mut Warming { heater: &heater, clocks }, plan, None)?;
        let reference = Cell::new(first.settled_mhz);
        let (last_work, held) = (Cell::new(Instant::now()), RefCell::new(None));
        Ok(Self { heater, first, reference, last_work, plan, held })
    }

    /// The level cases are held to now, MHz.
    pub fn reference(&self) -> Option<f64> {
        self.reference.get()
    }

    /// The clock the case before was held at by its own load, MHz, if it was of `family` and was.
    pub fn held(&self, family: &str) -> Option<f64> {
        self.held.borrow().as_ref().filter(|(f, _)| f == family).map(|&(_, mhz)| mhz)
    }

    /// Keeps how a case of `family` ended: held at `mhz` by its own load, or not (`None`).
    pub fn keep_held(&self, family: &str, mhz: Option<f64>) {
        *self.held.borrow_mut() = mhz.map(|mhz| (family.to_owned(), mhz));
    }

    /// Before a case's measurement, by how long the device was idle ([`Plan::check`]): nothing
    /// after a short gap; else back to the reference level if the clock fell below it (one clock
    /// reading when it did not), or, without a reference, a refresh after an idle gap. After an
    /// idle gap of the plan's `idle_ms` or more, a slice of load comes first: the clock can still
    /// read high then and fall a moment later (the H200 after a 2 GiB upload: 1980 MHz at the
    /// check, 1140 before the samples). Returns a note when it loaded the device.
    ///
    /// [`Plan::check`]: super::warmup::Plan::check
    pub fn before_case(&self, clocks: Readers<'_, 'ctx>) -> Result<Option<String>> {
        let idle_ms = self.last_work.get().elapsed().as_secs_f64() * 1e3;
        let check = self.plan.check(idle_ms);
        let note = match (self.reference.get(), clocks.probe, check) {
            (_, _, Check::None) => None,
            (Some(level), Some(_), _) => {
                let idle = check == Check::SliceThenRead;
                let slice = if idle { self.heater.heat(self.plan.slice_ms)? } else { 0.0 };
                let back = self.back_to(level, clocks)?;
                back.or_else(|| {
                    idle.then(|| {
                        format!(
                            "warmed up again first after {:.1} s idle: {:.2} s of load, and the clock was at \
                             the level",
                            idle_ms / 1e3,
                            slice / 1e3
                        )
                    })
                })
            }
            (_, _, Check::SliceThenRead) => {
                let load_ms = self.heater.heat(self.plan.refresh_ms)?;
                Some(format!(
                    "warmed up again first after {:.1} s idle: {:.2} s of load, a fixed time (no clock level \
                     to return to)",
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
    pub fn rewarm(&self, clocks: Readers<'_, 'ctx>) -> Result<Option<f64>> {
        match (self.reference.get(), clocks.probe) {
            (Some(level), Some(_)) => {
                self.back_to(level, clocks)?;
            }
            _ => {
                self.heater.heat(self.plan.refresh_ms)?;
            }
        }
        Ok(self.reference.get())
    }

    /// Loads the device until its clock is back at `level`; a clock that settles 5% or more below
    /// it becomes the new reference (the device sustains less now; cases are never held to more
    /// than the first warm-up's level). Returns a note when it loaded the device.
    fn back_to(&self, level: f64, clocks: Readers<'_, 'ctx>) -> Result<Option<String>> {
        let warm = warm_up(&mut Warming { heater: &self.heater, clocks }, self.plan, Some(level))?;
        if warm.load_ms == 0.0 {
            return Ok(None);
        }
        let mut note = format!("warmed up again first: {}", warm.text());
        if let Some(moved) = warm.settled_mhz.filter(|mhz| below(*mhz, level)) {
            self.reference.set(Some(moved));
            note.push_str(&format!(
                "; the clock settled there instead of at {level:.0} MHz, so later cases are held to {moved:.0} MHz"
            ));
        }
        Ok(Some(note))
    }

    /// Keeps loading the device, a slice at a time, while `busy` says the CPU is still at work
    /// (the pipelines the warm-up hid): the GPU does not fall idle, and cool, waiting for them.
    pub fn hold_while(&self, busy: impl Fn() -> bool) -> Result<()> {
        while busy() {
            self.heater.heat(self.plan.slice_ms)?;
        }
        self.worked();
        Ok(())
    }

    /// Notes that the device just worked (a measurement ended).
    pub fn worked(&self) {
        self.last_work.set(Instant::now());
    }
}
