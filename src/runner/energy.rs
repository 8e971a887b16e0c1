//! The energy of a case's work: after its samples, the worker runs the same measurement back to
//! back while a thread of its own reads the device's energy sensor, from one update of the counter
//! to the first update a window later (NVML's counter updates about every 100 ms: a window that
//! starts and ends where it changes is known to within one measurement, not one update); and the
//! idle device's power, read the same way with no work, before the warm-up and after the last case.
//!
//! How far to trust it: docs/design/energy.md.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::measure::Timer;
use crate::error::Result;
use crate::record::energy::Held;
use crate::sensors::energy::{EnergySensor, Reading};

/// What the hold reads: the device's energy sensor, or a script in tests. It is read on a thread
/// of its own while the work runs, so it must be `Send`.
pub trait Gauge: Send {
    /// The sensor now.
    fn read(&mut self) -> std::result::Result<Reading, String>;
}

impl Gauge for EnergySensor {
    fn read(&mut self) -> std::result::Result<Reading, String> {
        EnergySensor::read(self)
    }
}

/// Work before the window opens: the power settles after the samples' pauses.
const SETTLE: Duration = Duration::from_millis(250);

/// The fewest measurements a window holds: each end of it is known to within one.
pub const MIN_MEASUREMENTS: usize = 10;

/// The pause between two readings of the sensor (an NVML reading itself takes milliseconds).
const POLL: Duration = Duration::from_micros(500);

/// The window a sensor is held for unless `--energy-window` says: 4 s for NVML's counter (its
/// updates come about every 100 ms; results/energy/ measured 0.1% to 0.5% between repeats at 4 s),
/// 1 s for a counter the kernel keeps (RAPL and hwmon update about every millisecond), 4 s for a
/// power reading (a driver's running average).
pub fn default_window(sensor: &EnergySensor) -> Duration {
    match (sensor.counts_energy(), sensor.name.starts_with("NVML")) {
        (true, false) => Duration::from_secs(1),
        _ => Duration::from_secs(4),
    }
}

/// What a sensor measured, or why it could not (the outer error is the work's own).
pub type Measured<T> = Result<std::result::Result<T, String>>;

/// A device's sensor and the window each case's work is held for.
pub struct Meter<G> {
    gauge: G,
    window: Duration,
}

/// The window's two ends: where the counter updated, and the joules since the first reading.
#[derive(Clone, Copy, Debug)]
struct Ends {
    first: (Instant, f64),
    last: (Instant, f64),
}

impl<G: Gauge> Meter<G> {
    /// Holds windows of `window` with `gauge`.
    pub fn new(gauge: G, window: Duration) -> Self {
        Meter { gauge, window }
    }

    /// The window each case's work is held for.
    pub fn window(&self) -> Duration {
        self.window
    }

    /// Watts of the idle device: its sensor read for a window with nothing submitted; or why the
    /// sensor could not say.
    pub fn idle_watts(&mut self) -> std::result::Result<f64, String> {
        let ends = window(&mut self.gauge, self.window, Instant::now(), &AtomicBool::new(false))?;
        Ok((ends.last.1 - ends.first.1) / (ends.last.0 - ends.first.0).as_secs_f64())
    }

    /// Runs `timer`'s measurement of `groups` back to back while the sensor is read on a thread of
    /// its own, until a window from one update of its counter to the first update `window` later:
    /// the joules between the two, and the measurements that ended between them (each end known
    /// to within one measurement; fewer than [`MIN_MEASUREMENTS`] are too few). Or why the sensor
    /// could not say; an error of the work's own is the outer one, and costs the case.
    pub fn hold(&mut self, timer: &mut dyn Timer, groups: u64) -> Measured<Held> {
        let (span, start, stop) = (self.window, Instant::now(), AtomicBool::new(false));
        let gauge = &mut self.gauge;
        let (ends, ran) = std::thread::scope(|scope| {
            let sensor = scope.spawn(|| window(gauge, span, start, &stop));
            let mut ran: Vec<(Instant, f64)> = Vec::new();
            while !sensor.is_finished() {
                match timer.time_ms(groups) {
                    Ok(ms) => ran.push((Instant::now(), ms * 1e-3)),
                    Err(error) => {
                        stop.store(true, Ordering::SeqCst);
                        let _ = sensor.join();
                        return (Err(String::new()), Err(error));
                    }
                }
            }
            let ends = sensor.join().unwrap_or_else(|_| Err("the sensor's thread panicked".into()));
            (ends, Ok(ran))
        });
        let ran = ran?;
        Ok(ends.and_then(|ends| tally(&ran, ends)))
    }
}

/// What the window between `ends` held of the measurements `ran` (each as the instant it ended
/// and its GPU seconds): those that ended in it, with the part of each one's GPU time inside it
/// (the first began before the window opened); too few to know its ends is an error.
fn tally(ran: &[(Instant, f64)], ends: Ends) -> std::result::Result<Held, String> {
    let within: Vec<f64> = ran
        .iter()
        .filter(|(at, _)| *at > ends.first.0 && *at <= ends.last.0)
        .map(|(at, s)| s.min((*at - ends.first.0).as_secs_f64()))
        .collect();
    let seconds = (ends.last.0 - ends.first.0).as_secs_f64();
    if within.len() < MIN_MEASUREMENTS {
        return Err(format!(
            "the {seconds:.2} s window held {}, fewer than {MIN_MEASUREMENTS}: give --energy-window at least \
             {MIN_MEASUREMENTS} measurements' time",
            crate::format::count(within.len(), "measurement")
        ));
    }
    Ok(Held {
        seconds,
        joules: ends.last.1 - ends.first.1,
        measurements: within.len() as u64,
        gpu_s: within.iter().sum(),
    })
}

/// Reads `gauge` until a window from its first update at least [`SETTLE`] after `start` to the
/// first update `span` after that one ([`Watch`]); gives up on a sensor that stops updating, or
/// when `stop` is set (the work failed).
fn window(
    gauge: &mut dyn Gauge,
    span: Duration,
    start: Instant,
    stop: &AtomicBool,
) -> std::result::Result<Ends, String> {
    let mut watch = Watch::new(start, span, gauge.read()?, Instant::now());
    loop {
        std::thread::sleep(POLL);
        let now = Instant::now();
        if let Some(ends) = watch.take(gauge.read()?, now) {
            return ends;
        }
        if stop.load(Ordering::SeqCst) {
            return Err("stopped: the work failed".into());
        }
    }
}

/// A window being found in a sensor's readings, each taken with the instant it was read: it
/// opens at the first update of the counter [`SETTLE`] after the start and closes at the first
/// update its span after that.
struct Watch {
    start: Instant,
    span: Duration,
    energy: Energy,
    /// The joules of the reading before.
    last: f64,
    first: Option<(Instant, f64)>,
}

impl Watch {
    /// A window of `span` from `start`, the sensor first read at `at`.
    fn new(start: Instant, span: Duration, reading: Reading, at: Instant) -> Self {
        let mut energy = Energy::default();
        let last = energy.take(reading, at);
        Watch { start, span, energy, last, first: None }
    }

    /// Takes `reading`, read at `at`: the window's ends once it closes, an error once the sensor
    /// has not closed it long past its time (it stopped updating), else nothing yet.
    fn take(&mut self, reading: Reading, at: Instant) -> Option<std::result::Result<Ends, String>> {
        let joules = self.energy.take(reading, at);
        let updated = joules != self.last;
        self.last = joules;
        if updated {
            match self.first {
                None if at - self.start >= SETTLE => self.first = Some((at, joules)),
                Some(first) if at - first.0 >= self.span => {
                    return Some(Ok(Ends { first, last: (at, joules) }));
                }
                _ => {}
            }
        }
        let give_up = SETTLE + self.span * 3 + Duration::from_secs(2);
        (at - self.start > give_up)
            .then(|| Err(format!("the energy sensor did not update within {:.1} s", give_up.as_secs_f64())))
    }
}

/// Joules since the first reading, whichever the sensor gives: a counter's own, or a power
/// reading's watts held since the reading before (a driver's average, so each reading stands for
/// the time since the last).
#[derive(Default)]
struct Energy {
    joules: f64,
    last: Option<Instant>,
}

impl Energy {
    fn take(&mut self, reading: Reading, at: Instant) -> f64 {
        match reading {
            Reading::Joules(joules) => self.joules = joules,
            Reading::Watts(watts) => {
                if let Some(last) = self.last {
                    self.joules += watts * (at - last).as_secs_f64();
                }
            }
        }
        self.last = Some(at);
        self.joules
    }
}

#[cfg(test)]
mod tests;
