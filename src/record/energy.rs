//! What an energy sensor counted while a case's work was held on the device, as the worker
//! records it: the window between two readings, the joules between them, and how many of the
//! case's measurements ran in it; and the one place of energy's arithmetic: watts, how busy,
//! the joules above idle, picojoules per unit of work (`results::energy` applies it to a case).

/// A window of a case's work held between two readings of the device's energy sensor.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Held {
    /// Seconds between the two readings.
    pub seconds: f64,
    /// Joules the sensor counted between them (the board's; a CPU driver's package).
    pub joules: f64,
    /// The case's measurements (each as one of its samples) that ended between them.
    pub measurements: u64,
    /// Their GPU time inside the window, seconds: over [`Held::seconds`], how busy the window kept
    /// the GPU.
    #[serde(default)]
    pub gpu_s: f64,
}

impl Held {
    /// Average watts over the window.
    pub fn watts(&self) -> f64 {
        watts(self.joules, self.seconds)
    }

    /// The share of the window the GPU ran the case's work (the rest: between measurements); at
    /// most 1, though the GPU's clock and the host's, which time the two, differ a little.
    pub fn busy(&self) -> f64 {
        (self.gpu_s / self.seconds).min(1.0)
    }

    /// The joules above `idle_watts` held for the window: what the work added to the idle board.
    pub fn above(&self, idle_watts: f64) -> f64 {
        self.joules - idle_watts * self.seconds
    }

    /// Picojoules per unit of work, of `joules` spent on the window's measurements that each did
    /// `amount` units.
    pub fn picojoules(&self, joules: f64, amount: f64) -> f64 {
        joules / (amount * self.measurements as f64) * 1e12
    }
}

/// Average watts of `joules` over `seconds`: the one division every energy figure's watts are.
pub fn watts(joules: f64, seconds: f64) -> f64 {
    joules / seconds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_gives_watts_energy_above_idle_and_picojoules_per_unit() {
        // The H100's HBM stream of results/energy/h100-cuda-energy.txt: 406.7 W for 4.10 s at
        // 3.105 TB/s, idle 125.6 W; as one measurement of all its bytes.
        let held = Held { seconds: 4.10, joules: 406.7 * 4.10, measurements: 1, gpu_s: 4.10 };
        assert!((held.watts() - 406.7).abs() < 1e-9);
        let bytes = 3.105e12 * 4.10;
        let board = held.picojoules(held.joules, bytes);
        let above = held.picojoules(held.above(125.6), bytes);
        assert!((board - 131.0).abs() < 0.1, "{board}");
        assert!((above - 90.53).abs() < 0.1, "{above}");
        assert_eq!(held.busy(), 1.0);
    }
}
