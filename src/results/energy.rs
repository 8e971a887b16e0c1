//! Energy as a run's record keeps it (format 9): the run's sensor and the idle device's power, and
//! per case the window its work was held for, its joules (the watts are computed from them), and
//! the picojoules per unit of work, for the board and above the idle board.

use serde::{Deserialize, Serialize};

use super::measure::{Amount, Measure};
use crate::record::energy::Held;
use crate::registry::Work;

/// How a run measured energy (`--energy`), or why it could not.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunEnergy {
    /// The sensor (`NVML total energy`); none where there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensor: Option<String>,
    /// Why energy is unknown, where it is (no sensor, or it failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown: Option<String>,
    /// The window each case's work was held for at least, seconds (none without a sensor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_s: Option<f64>,
    /// The idle device's watts before the warm-up (what "above idle" is above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_w: Option<f64>,
    /// The idle device's watts after the last case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_end_w: Option<f64>,
}

impl RunEnergy {
    /// The header's line: `NVML total energy, each case's work held 4 s between two readings; idle
    /// 123.5 W before the warm-up, 124.8 W after the last case`, or `unknown (why)`.
    pub fn line(&self) -> String {
        let Some(sensor) = &self.sensor else {
            return format!("unknown ({})", self.unknown.as_deref().unwrap_or("no sensor"));
        };
        let idle = |w: Option<f64>| w.map_or("unknown".to_owned(), |w| format!("{w:.1} W"));
        // The live header comes before the last case: the idle power after it is not known yet.
        let end = self.idle_end_w.map_or(String::new(), |w| format!(", {w:.1} W after the last case"));
        format!(
            "{sensor}, each case's work held {} s between two readings; idle {} before the warm-up{end}",
            self.window_s.map_or("?".into(), seconds),
            idle(self.idle_w),
        )
    }
}

/// Seconds as the header says them: `4`, `0.5`, `2.25`.
fn seconds(s: f64) -> String {
    format!("{s:.2}").trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// What one case's work cost in energy.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CaseEnergy {
    /// The window's seconds.
    pub seconds: f64,
    /// The joules the sensor counted in it.
    pub joules: f64,
    /// The case's measurements that ran in it.
    pub measurements: u64,
    /// Their GPU time over the window's: how busy the work kept the GPU (the rest is the time
    /// between measurements, where the board's energy counts and the work's does not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy: Option<f64>,
    /// Picojoules per unit of each of the case's work units (`pJ/FLOP`), for the board.
    pub per_unit: Vec<Amount>,
    /// The same above the idle board: what the work added (empty where the idle power is unknown,
    /// or the work drew no more than it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub above_idle: Vec<Amount>,
}

impl CaseEnergy {
    /// The energy of a window `held` of measurements that each did `work`, above `idle_w` where
    /// known; `None` for a window without work or energy.
    pub fn of(held: &Held, work: &[(f64, Work)], idle_w: Option<f64>) -> Option<Self> {
        if !(held.seconds > 0.0 && held.joules > 0.0 && held.measurements > 0) {
            return None;
        }
        let per = |joules: f64| -> Vec<Amount> {
            work.iter()
                .filter(|(amount, _)| *amount > 0.0)
                .map(|(amount, w)| Amount {
                    value: held.picojoules(joules, *amount),
                    unit: Measure::Energy(w.unit),
                })
                .collect()
        };
        // Above idle only where the work added at least 1% to the board: less is within the noise.
        let above = idle_w.map(|idle| held.above(idle)).filter(|j| *j >= 0.01 * held.joules);
        Some(CaseEnergy {
            seconds: held.seconds,
            joules: held.joules,
            measurements: held.measurements,
            busy: (held.gpu_s > 0.0).then(|| held.busy()),
            per_unit: per(held.joules),
            above_idle: above.map(per).unwrap_or_default(),
        })
    }

    /// The board's average watts over the window (computed: files of format 9 that kept it are
    /// read, and the kept figure ignored).
    pub fn watts(&self) -> f64 {
        crate::record::energy::watts(self.joules, self.seconds)
    }

    /// The board's picojoules per the case's first work unit, with the unit.
    pub fn first(&self) -> Option<&Amount> {
        self.per_unit.first()
    }

    /// Picojoules per unit of `unit` (`B`), for the board and above idle.
    pub fn per(&self, unit: crate::registry::Unit) -> (Option<f64>, Option<f64>) {
        let find = |all: &[Amount]| all.iter().find(|a| a.unit.unit() == Some(unit)).map(|a| a.value);
        (find(&self.per_unit), find(&self.above_idle))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Unit;

    #[test]
    fn a_window_gives_picojoules_per_unit_for_the_board_and_above_idle() {
        // The H100's HBM stream of results/energy/h100-cuda-energy.txt: 400 W for 4 s at 3.07
        // TB/s, idle 123.5 W; 20 ms measurements of 61.4 GB each.
        let held = Held { seconds: 4.0, joules: 1600.0, measurements: 200, gpu_s: 3.98 };
        let work = [(61.4e9, Work::new(1.0, Unit::Byte)), (3.84e9, Work::new(1.0, Unit::Load))];
        let e = CaseEnergy::of(&held, &work, Some(123.5)).unwrap();
        assert_eq!(e.watts(), 400.0);
        let (board, above) = e.per(Unit::Byte);
        assert!((board.unwrap() - 130.29).abs() < 0.01, "{board:?}");
        assert!((above.unwrap() - 90.06).abs() < 0.01, "{above:?}");
        assert_eq!(e.per_unit[1].unit.to_string(), "pJ/loads");
        assert!((e.per(Unit::Load).0.unwrap() - 2083.3).abs() < 0.1);
        // Without the idle power, or at it, nothing above it.
        assert!(CaseEnergy::of(&held, &work, None).unwrap().above_idle.is_empty());
        assert!(CaseEnergy::of(&held, &work, Some(400.0)).unwrap().above_idle.is_empty());
        assert!(CaseEnergy::of(&held, &work, Some(398.0)).unwrap().above_idle.is_empty(), "0.5% above idle");
        assert_eq!(CaseEnergy::of(&Held { measurements: 0, ..held }, &work, None), None);
        assert_eq!(CaseEnergy::of(&Held { joules: 0.0, ..held }, &work, None), None);
    }

    #[test]
    fn the_header_says_the_sensor_and_idle_or_why_energy_is_unknown() {
        let known = RunEnergy {
            sensor: Some("NVML total energy".into()),
            unknown: None,
            window_s: Some(4.0),
            idle_w: Some(123.46),
            idle_end_w: None,
        };
        assert_eq!(
            known.line(),
            "NVML total energy, each case's work held 4 s between two readings; idle 123.5 W before the \
             warm-up"
        );
        let ended = RunEnergy { idle_end_w: Some(124.84), ..known };
        assert!(ended.line().ends_with("123.5 W before the warm-up, 124.8 W after the last case"));
        let unknown = RunEnergy { unknown: Some("no RAPL counter".into()), ..Default::default() };
        assert_eq!(unknown.line(), "unknown (no RAPL counter)");
    }
}
