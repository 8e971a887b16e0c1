//! The energy meter with a scripted sensor: the window's arithmetic on readings at given
//! instants, and its threads against the real clock.

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

/// `Watch`'s ends for readings every `every` from `t0` of a sensor whose reading at an instant
/// `at` after `t0` is `reading(at)`, and a window of `span`.
fn ends(t0: Instant, span: Duration, every: Duration, reading: impl Fn(Duration) -> Reading) -> Ends {
    let mut watch = Watch::new(t0, span, reading(Duration::ZERO), t0);
    (1..)
        .find_map(|i| watch.take(reading(every * i), t0 + every * i))
        .expect("the counter updates")
        .expect("a window closes")
}

#[test]
fn a_window_opens_and_closes_at_counter_updates_and_holds_the_measurements_ending_between() {
    // A 300 W board whose counter updates every 20 ms (by 6 J), read every 1.5 ms; a 0.4 s window.
    let t0 = Instant::now();
    let board = |at: Duration| Reading::Joules((at.as_micros() / 20_000 * 6) as f64);
    let window = ends(t0, Duration::from_millis(400), Duration::from_micros(1500), board);
    // It opens at the first update at least SETTLE (250 ms) in, the one at 260 ms, read at
    // 261.0; it closes at the first update 400 ms after that: the one at 660 ms is read at
    // 660.0, 399 ms after, so the one at 680 ms, read at 681.0.
    assert_eq!((window.first.0 - t0, window.first.1), (Duration::from_millis(261), 78.0));
    assert_eq!((window.last.0 - t0, window.last.1), (Duration::from_millis(681), 204.0));
    // 2 ms measurements ending every 2 ms: those ending at 262 to 680 ms are in the window, the
    // first of them only its last millisecond.
    let ran: Vec<(Instant, f64)> = (1..400).map(|k| (t0 + Duration::from_millis(2 * k), 0.002)).collect();
    let held = tally(&ran, window).unwrap();
    assert_eq!(held.measurements, 210);
    assert!((held.seconds - 0.42).abs() < 1e-12 && (held.gpu_s - 0.419).abs() < 1e-12, "{held:?}");
    // Both ends read 1 ms after their update: the board's own watts.
    assert!((held.watts() - 300.0).abs() < 1e-9, "{held:?}");
    // 50 ms measurements: those ending at 300 to 650 ms, too few to know the window's ends.
    let sparse: Vec<(Instant, f64)> = (1..20).map(|k| (t0 + Duration::from_millis(50 * k), 0.05)).collect();
    let why = tally(&sparse, window).unwrap_err();
    assert_eq!(
        why,
        "the 0.42 s window held 8 measurements, fewer than 10: give --energy-window at least 10 measurements' time"
    );
}

#[test]
fn a_power_reading_is_held_over_the_time_since_the_last() {
    // A driver's average of 250 W read every 3 ms: each reading stands for the time since the
    // last, so every reading moves the joules. The window opens at the first reading 250 ms in
    // (252 ms) and closes at the first 100 ms after it (354 ms): 102 ms of 250 W.
    let t0 = Instant::now();
    let window = ends(t0, Duration::from_millis(100), Duration::from_millis(3), |_| Reading::Watts(250.0));
    assert_eq!(
        (window.first.0 - t0, window.last.0 - t0),
        (Duration::from_millis(252), Duration::from_millis(354))
    );
    let joules = window.last.1 - window.first.1;
    assert!((joules - 25.5).abs() < 1e-9, "{joules} J");
}

#[test]
fn the_sensor_is_read_on_a_thread_beside_the_work() {
    use std::sync::atomic::AtomicUsize;
    // A counter of the work's measurements whose every reading waits for one to end meanwhile:
    // read between measurements, on the work's own thread, it would wait in vain.
    struct Beside(Arc<AtomicUsize>);
    impl Gauge for Beside {
        fn read(&mut self) -> std::result::Result<Reading, String> {
            let (before, start) = (self.0.load(Ordering::SeqCst), Instant::now());
            while self.0.load(Ordering::SeqCst) == before {
                if start.elapsed() > Duration::from_secs(5) {
                    return Err("no measurement ended while the sensor was read".into());
                }
                std::thread::sleep(Duration::from_micros(100));
            }
            Ok(Reading::Joules(self.0.load(Ordering::SeqCst) as f64))
        }
    }
    struct Counted(Arc<AtomicUsize>);
    impl Timer for Counted {
        fn time_ms(&mut self, _: u64) -> Result<f64> {
            std::thread::sleep(Duration::from_millis(1));
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(1.0)
        }
    }
    let count = Arc::new(AtomicUsize::new(0));
    let mut meter = Meter::new(Beside(count.clone()), Duration::from_millis(100));
    let held = meter.hold(&mut Counted(count), 1).unwrap().unwrap();
    assert!(held.seconds >= 0.1 && held.measurements >= MIN_MEASUREMENTS as u64, "{held:?}");
    // A 300 W board whose counter updates every 20 ms and takes 1 ms to read, held 0.4 s with
    // 2 ms measurements, against the real clock: what this machine's timing cannot change.
    let watts = Arc::new(Mutex::new(300.0));
    let board = Board {
        watts: watts.clone(),
        update: Duration::from_millis(20),
        start: Instant::now(),
        read: Duration::from_millis(1),
    };
    let mut meter = Meter::new(board, Duration::from_millis(400));
    let held = meter.hold(&mut Work { ms: 2.0 }, 1).unwrap().unwrap();
    assert!(held.seconds >= 0.4 && held.measurements >= MIN_MEASUREMENTS as u64, "{held:?}");
    assert!(held.gpu_s > 0.0 && held.gpu_s <= held.seconds + 1e-9, "{held:?}");
    assert!(held.watts() > 0.0, "{held:?}");
    *watts.lock().unwrap() = 120.0;
    assert!(meter.idle_watts().unwrap() > 0.0);
    // Measurements longer than the window's tenth: always too few.
    let mut meter = Meter::new(
        Board { watts, update: Duration::from_millis(5), start: Instant::now(), read: Duration::ZERO },
        Duration::from_millis(100),
    );
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
