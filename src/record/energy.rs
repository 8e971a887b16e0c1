//! What an energy sensor counted while a case's work was held on the device, as the worker
//! records it: the window between two readings, the joules between them, and how many of the
//! case's measurements ran in it. The joules per unit of work come later, from the case's work per
//! measurement (`results::energy`).

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
        self.joules / self.seconds
    }

    /// The share of the window the GPU ran the case's work (the rest: between measurements); at
    /// most 1, though the GPU's clock and the host's, which time the two, differ a little.
    pub fn busy(&self) -> f64 {
        (self.gpu_s / self.seconds).min(1.0)
    }
}
