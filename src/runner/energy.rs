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
        Ok(ends.and_then(|ends| {
            // Each measurement that ended in the window, with the part of its GPU time inside it
            // (the first began before the window opened).
            let within: Vec<f64> = ran
                .iter()
                .filter(|(at, _)| *at > ends.first.0 && *at <= ends.last.0)
                .map(|(at, s)| s.min((*at - ends.first.0).as_secs_f64()))
                .collect();
            let seconds = (ends.last.0 - ends.first.0).as_secs_f64();
            if within.len() < MIN_MEASUREMENTS {
                return Err(format!(
                    "the {seconds:.2} s window held {}, fewer than {MIN_MEASUREMENTS}: give \
                     --energy-window at least {MIN_MEASUREMENTS} measurements' time",
                    crate::format::count(within.len(), "measurement")
                ));
            }
            Ok(Held {
                seconds,
                joules: ends.last.1 - ends.first.1,
                measurements: within.len() as u64,
                gpu_s: within.iter().sum(),
            })
        }))
    }
}

/// Reads `gauge` until a window from its first update at least [`SETTLE`] after `start` to the
/// first update `span` after that one; gives up on a sensor that stops updating, or when `stop`
/// is set (the work failed).
fn window(
    gauge: &mut dyn Gauge,
    span: Duration,
    start: Instant,
    stop: &AtomicBool,
) -> std::result::Result<Ends, String> {
    let give_up = SETTLE + span * 3 + Duration::from_secs(2);
    let mut energy = Energy::default();
    let mut last = energy.take(gauge.read()?, Instant::now());
    let mut first: Option<(Instant, f64)> = None;
    loop {
        std::thread::sleep(POLL);
        let now = Instant::now();
        let joules = energy.take(gauge.read()?, now);
        let updated = joules != last;
        last = joules;
        if updated {
            match first {
                None if now - start >= SETTLE => first = Some((now, joules)),
                Some(f) if now - f.0 >= span => return Ok(Ends { first: f, last: (now, joules) }),
                _ => {}
            }
        }
        if now - start > give_up {
            return Err(format!("the energy sensor did not update within {:.1} s", give_up.as_secs_f64()));
        }
        if stop.load(Ordering::SeqCst) {
            return Err("stopped: the work failed".into());
        }
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
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A board at `watts` whose counter (mJ) updates every `update`, read against the real clock;
    /// each reading takes `read` (an NVML reading on the H100 takes milliseconds).
    struct Board {
        watts: Arc<Mutex<f64>>,
        update: Duration,
        start: Instant,
        read: Duration,
    }

    impl Gauge for Board {
        fn read(&mut self) -> std::result::Result<Reading, String> {
            std::thread::sleep(self.read);
            let updates = (self.start.elapsed().as_secs_f64() / self.update.as_secs_f64()).floor();
            let joules = updates * self.update.as_secs_f64() * *self.watts.lock().unwrap();
            Ok(Reading::Joules((joules * 1e3).floor() * 1e-3))
        }
    }

    struct Work {
        ms: f64,
    }

    impl Timer for Work {
        /// What the measurement took, as a GPU's timestamps would say: the sleep as it ran (a
        /// busy machine oversleeps).
        fn time_ms(&mut self, _: u64) -> Result<f64> {
            let start = Instant::now();
            std::thread::sleep(Duration::from_secs_f64(self.ms * 1e-3));
            Ok(start.elapsed().as_secs_f64() * 1e3)
        }
    }

    #[test]
    fn a_window_between_counter_updates_gives_the_boards_watts_and_its_measurements() {
        // A 300 W board whose counter updates every 20 ms and takes 1 ms to read, held 0.4 s
        // with 2 ms measurements.
        let watts = Arc::new(Mutex::new(300.0));
        let board = Board {
            watts: watts.clone(),
            update: Duration::from_millis(20),
            start: Instant::now(),
            read: Duration::from_millis(1),
        };
        let mut meter = Meter::new(board, Duration::from_millis(400));
        let held = meter.hold(&mut Work { ms: 2.0 }, 1).unwrap().unwrap();
        assert!(held.seconds >= 0.4 && held.seconds < 0.5, "{held:?}");
        // Both ends are updates, each known to within one measurement (2 ms, plus the sleep's slack).
        let error = (held.watts() / 300.0 - 1.0).abs();
        assert!(error < 0.05, "{} W over {} s", held.watts(), held.seconds);
        // Each measurement at least its 2 ms, the first's GPU time only as far as it ran inside
        // the window.
        assert!(held.seconds / held.measurements as f64 >= 0.0019, "{held:?}");
        assert!(held.gpu_s <= held.seconds + 1e-9, "{held:?}");
        // The sensor is read beside the work, not between its measurements: a slow reading
        // leaves no gap (read between them, a 5 ms NVML reading left the H100 idle 20% of the
        // time; here each 1 ms reading would leave the work busy at most 2 ms of every 3).
        assert!(held.busy() > 0.75 && held.busy() <= 1.0, "{held:?}");
        *watts.lock().unwrap() = 120.0;
        let idle = meter.idle_watts().unwrap();
        assert!((idle / 120.0 - 1.0).abs() < 0.05, "{idle} W idle");
    }

    #[test]
    fn a_power_reading_is_held_over_the_time_since_the_last() {
        struct Power;
        impl Gauge for Power {
            fn read(&mut self) -> std::result::Result<Reading, String> {
                Ok(Reading::Watts(250.0))
            }
        }
        let mut meter = Meter::new(Power, Duration::from_millis(100));
        let held = meter.hold(&mut Work { ms: 5.0 }, 1).unwrap().unwrap();
        assert!((held.watts() - 250.0).abs() < 1e-6, "{held:?}");
        // 40 ms measurements in a 0.1 s window: too few to know its ends.
        let why = meter.hold(&mut Work { ms: 40.0 }, 1).unwrap().unwrap_err();
        assert!(why.contains("fewer than 10: give --energy-window at least"), "{why}");
    }

    #[test]
    fn a_sensor_that_never_updates_is_an_error_not_a_hang() {
        struct Stuck;
        impl Gauge for Stuck {
            fn read(&mut self) -> std::result::Result<Reading, String> {
                Ok(Reading::Joules(0.0))
            }
        }
        let mut meter = Meter::new(Stuck, Duration::from_millis(10));
        let why = meter.hold(&mut Work { ms: 5.0 }, 1).unwrap().unwrap_err();
        assert!(why.contains("did not update within 2.3 s"), "{why}");
        // A failing measurement stops the sensor's thread and is the case's error.
        struct Lost;
        impl Timer for Lost {
            fn time_ms(&mut self, _: u64) -> Result<f64> {
                Err(crate::Error::DeviceLost { case: "ALU fp32 FMA".into() })
            }
        }
        let lost = meter.hold(&mut Lost, 1).unwrap_err();
        assert!(lost.to_string().contains("VK_ERROR_DEVICE_LOST"), "{lost}");
        struct Broken;
        impl Gauge for Broken {
            fn read(&mut self) -> std::result::Result<Reading, String> {
                Err("NVML gives no energy counter".into())
            }
        }
        let why = Meter::new(Broken, Duration::from_millis(10)).idle_watts().unwrap_err();
        assert!(why.contains("NVML gives no energy counter"), "{why}");
    }
}
