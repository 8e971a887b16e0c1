//! Where a case's wall time went in the worker, phase by phase, and how much of it the GPU spent
//! on the timed samples themselves: what a run must cut to be faster without losing a digit.

use serde::{Deserialize, Serialize};

/// Milliseconds of wall clock per phase of one case (0 for a phase it did not have).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Phases {
    /// Building its pipeline just before it ran (a worker that builds each case's lazily).
    pub pipeline_ms: f64,
    /// Making its resources: buffers and images, inputs built on the CPU, uploads.
    pub setup_ms: f64,
    /// Scaling the dispatch from one workgroup to the target time.
    pub scale_ms: f64,
    /// Warming up at the target until two rates agree.
    pub warm_ms: f64,
    /// Taking the timed samples, with the clock reads around them.
    pub samples_ms: f64,
    /// The timed samples' own GPU time: their sum.
    pub samples_gpu_ms: f64,
    /// Re-warming the device before the case or between tries (a device gone cold).
    pub rewarm_ms: f64,
    /// Tries measured and then measured again (their scaling, warm-up and samples).
    pub remeasure_ms: f64,
    /// Checking its results against the CPU reference (`--verify`), the reference included.
    pub verify_ms: f64,
    /// Holding its work for the energy sensor's window (`--energy`).
    pub energy_ms: f64,
    /// Letting go of its resources: its buffers, images and descriptor set, and the kept contents
    /// and copy buffers no later case uses.
    pub free_ms: f64,
    /// The whole case in the worker, from its start to its record: the phases above, and what
    /// none of them names (reading its statistics, clock chains and fault log).
    pub total_ms: f64,
}

impl Phases {
    /// The named phases, each with its wall time in ms (not the samples' GPU time or the total).
    pub fn named(&self) -> [(&'static str, f64); 10] {
        [
            ("pipeline", self.pipeline_ms),
            ("setup", self.setup_ms),
            ("scaling", self.scale_ms),
            ("warm-up", self.warm_ms),
            ("samples", self.samples_ms),
            ("re-warming", self.rewarm_ms),
            ("re-measuring", self.remeasure_ms),
            ("verifying", self.verify_ms),
            ("energy", self.energy_ms),
            ("freeing", self.free_ms),
        ]
    }

    /// [`Phases::named`], largest first.
    pub fn largest_first(&self) -> Vec<(&'static str, f64)> {
        let mut named = self.named().to_vec();
        named.sort_by(|a, b| b.1.total_cmp(&a.1));
        named
    }

    /// The sum of `phases`, phase by phase.
    pub fn sum<'a>(phases: impl IntoIterator<Item = &'a Phases>) -> Phases {
        phases.into_iter().fold(Phases::default(), |a, p| Phases {
            pipeline_ms: a.pipeline_ms + p.pipeline_ms,
            setup_ms: a.setup_ms + p.setup_ms,
            scale_ms: a.scale_ms + p.scale_ms,
            warm_ms: a.warm_ms + p.warm_ms,
            samples_ms: a.samples_ms + p.samples_ms,
            samples_gpu_ms: a.samples_gpu_ms + p.samples_gpu_ms,
            rewarm_ms: a.rewarm_ms + p.rewarm_ms,
            remeasure_ms: a.remeasure_ms + p.remeasure_ms,
            verify_ms: a.verify_ms + p.verify_ms,
            energy_ms: a.energy_ms + p.energy_ms,
            free_ms: a.free_ms + p.free_ms,
            total_ms: a.total_ms + p.total_ms,
        })
    }

    /// Milliseconds since `start`.
    pub fn since(start: std::time::Instant) -> f64 {
        start.elapsed().as_secs_f64() * 1e3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_phase_by_phase_and_names_each() {
        let a = Phases {
            setup_ms: 1.0,
            samples_ms: 20.0,
            samples_gpu_ms: 19.0,
            total_ms: 25.0,
            ..Phases::default()
        };
        let b = Phases { setup_ms: 2.0, verify_ms: 5.0, free_ms: 0.5, total_ms: 8.0, ..Phases::default() };
        let sum = Phases::sum([&a, &b]);
        assert_eq!((sum.setup_ms, sum.samples_ms, sum.verify_ms, sum.free_ms), (3.0, 20.0, 5.0, 0.5));
        assert_eq!(sum.total_ms, 33.0);
        let named: f64 = sum.named().iter().map(|(_, ms)| ms).sum();
        assert_eq!(named, 28.5, "the GPU time and the total are not phases of their own");
        // A record without them (an older worker) reads as zeros.
        assert_eq!(serde_json::from_str::<Phases>("{}").unwrap(), Phases::default());
    }
}
