//! What a warm-up did: the load it applied and the clock readings on the way to a settled level.

use super::measurement::STEADY;

/// What a warm-up did.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WarmUp {
    /// Milliseconds of load applied.
    pub load_ms: f64,
    /// Whether there was a clock to watch (else the load was a fixed time; early format 4 files
    /// lack it, and had a clock where they have readings).
    #[serde(default)]
    pub watched: bool,
    /// Each clock reading in MHz, with the milliseconds of load before it (the first before any).
    pub readings: Vec<(f64, f64)>,
    /// The level the clock settled at, MHz: the mean of the readings that agreed (or the reading
    /// at the level a re-warm aimed for); `None` without a clock, or if it never settled.
    pub settled_mhz: Option<f64>,
    /// The level the first cases were held to (null: none, or not decided yet); a re-warm that
    /// settled 5% or more below it lowers it, as that case's notes say.
    #[serde(default)]
    pub reference_mhz: Option<f64>,
}

impl WarmUp {
    /// The first clock reading, MHz (before any load).
    pub fn first_mhz(&self) -> Option<f64> {
        self.readings.first().map(|(_, mhz)| *mhz)
    }

    /// One line for the header or a note: `1.4 s of load to reach 1980 MHz (from 345 MHz)`.
    pub fn text(&self) -> String {
        let seconds = self.load_ms / 1e3;
        let (first, settled) = (self.first_mhz(), self.settled_mhz);
        match (first, settled) {
            (None, _) if !self.watched => format!(
                "{seconds:.1} s of load, a fixed time: no clock to watch (the device has no usable shader clock)"
            ),
            (None, _) => format!("{seconds:.1} s of load; the clock probe could not read the clock"),
            (Some(first), Some(_)) if self.load_ms == 0.0 => {
                format!("none needed: the clock was at {first:.0} MHz")
            }
            (Some(first), Some(level)) => {
                format!("{seconds:.1} s of load to reach {level:.0} MHz (from {first:.0} MHz)")
            }
            (Some(first), None) => {
                let (low, high) = range(self.readings.iter().map(|(_, mhz)| *mhz));
                let last = self.readings.last().map_or(first, |(_, mhz)| *mhz);
                format!(
                    "{seconds:.1} s of load and the clock did not settle within {:.0}% (from {first:.0} MHz; \
                     {low:.0} to {high:.0} MHz; last {last:.0} MHz)",
                    STEADY * 100.0
                )
            }
        }
    }
}

/// The lowest and highest of `values`.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(v), h.max(v)))
}
