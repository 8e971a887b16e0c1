//! An energy counter as the kernel and the vendors keep one: a whole number that only grows, in
//! some unit, and wraps to zero past a known range (RAPL's `max_energy_range_uj`) or never
//! (NVML's millijoules since the driver loaded, hwmon's 64-bit microjoules). [`Unwrapped`] turns
//! its readings into joules since the first, across wraps (the arithmetic of a window of them is
//! `record::energy`'s).

/// The readings of one counter, unwrapped.
#[derive(Clone, Debug, PartialEq)]
pub struct Unwrapped {
    /// Joules per count (1e-6 for microjoules, 1e-3 for millijoules).
    joules_per_count: f64,
    /// The count at which the counter wraps to zero, where it does.
    range: Option<u64>,
    /// The last raw reading.
    last: Option<u64>,
    /// Counts since the first reading.
    counts: u128,
}

impl Unwrapped {
    /// A counter of `joules_per_count` that wraps at `range` counts (`None`: it does not).
    pub fn new(joules_per_count: f64, range: Option<u64>) -> Self {
        Unwrapped { joules_per_count, range, last: None, counts: 0 }
    }

    /// Takes a raw reading and returns the joules since the first. A reading below the last is a
    /// wrap where the counter has a range; without one it cannot be (the counter was reset: a
    /// driver reload) and is an error.
    pub fn take(&mut self, raw: u64) -> Result<f64, String> {
        if let Some(last) = self.last {
            let step = match (raw >= last, self.range) {
                (true, _) => u128::from(raw - last),
                // Past the range it starts again from zero.
                (false, Some(range)) if last <= range => u128::from(range - last) + u128::from(raw),
                (false, _) => {
                    return Err(format!(
                        "the counter went back from {last} to {raw} (reset, or not a counter)"
                    ))
                }
            };
            self.counts += step;
        }
        self.last = Some(raw);
        Ok(self.counts as f64 * self.joules_per_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rapl_counter_unwraps_past_its_range() {
        // RAPL's package counter in µJ, wrapping at 262143328850 (a real max_energy_range_uj).
        let range = 262_143_328_850;
        let mut c = Unwrapped::new(1e-6, Some(range));
        assert_eq!(c.take(range - 1_000_000).unwrap(), 0.0);
        assert!((c.take(range - 400_000).unwrap() - 0.6).abs() < 1e-9);
        // Wrapped: 400000 to the range, then 2500000 past zero.
        assert!((c.take(2_500_000).unwrap() - 3.5).abs() < 1e-9);
        assert!((c.take(3_000_000).unwrap() - 4.0).abs() < 1e-9);
    }

    #[test]
    fn a_counter_without_a_range_that_goes_back_was_reset() {
        let mut c = Unwrapped::new(1e-3, None);
        c.take(5_000).unwrap();
        assert!((c.take(6_500).unwrap() - 1.5).abs() < 1e-12, "millijoules");
        let why = c.take(100).unwrap_err();
        assert!(why.contains("went back from 6500 to 100"), "{why}");
    }
}
