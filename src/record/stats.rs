//! Sample statistics: median, min, max and coefficient of variation.

/// A summary of timed samples (milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Median sample.
    pub median: f64,
    /// Fastest sample.
    pub min: f64,
    /// Slowest sample.
    pub max: f64,
    /// Sample standard deviation over the mean.
    pub cv: f64,
    /// Number of samples.
    pub count: usize,
}

/// A coefficient of variation above this marks a result as noisy.
pub const NOISY_CV: f64 = 0.03;

/// The median of `values` (the mean of the middle two for an even count); `None` for none.
pub fn median(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut sorted: Vec<f64> = values.into_iter().collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// The median of `values` and their median absolute deviation from it; `None` for none.
pub fn median_mad(values: &[f64]) -> Option<(f64, f64)> {
    let m = median(values.iter().copied())?;
    Some((m, median(values.iter().map(|v| (v - m).abs()))?))
}

/// Summarizes `samples`; `None` for an empty slice.
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    let median = median(samples.iter().copied())?;
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let mean = sorted.iter().sum::<f64>() / n as f64;
    let variance =
        if n > 1 { sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
    Some(Summary { median, min: sorted[0], max: sorted[n - 1], cv: variance.sqrt() / mean, count: n })
}

impl Summary {
    /// Whether the spread is large enough to doubt the median.
    pub fn is_noisy(&self) -> bool {
        self.cv > NOISY_CV
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(summarize(&[3.0, 1.0, 2.0]).unwrap().median, 2.0);
        assert_eq!(summarize(&[4.0, 1.0, 3.0, 2.0]).unwrap().median, 2.5);
    }

    #[test]
    fn min_max_and_cv() {
        let s = summarize(&[10.0, 12.0, 8.0]).unwrap();
        assert_eq!((s.min, s.max, s.count), (8.0, 12.0, 3));
        assert!((s.cv - 0.2).abs() < 1e-12, "sd 2 over mean 10: {}", s.cv);
        assert!(s.is_noisy());
        assert!(!summarize(&[20.0, 20.1, 19.9]).unwrap().is_noisy());
    }

    #[test]
    fn the_median_and_mad_are_robust() {
        assert_eq!(median_mad(&[1.0, 2.0, 3.0, 4.0, 100.0]), Some((3.0, 1.0)));
        assert_eq!(median_mad(&[2.0, 4.0]), Some((3.0, 1.0)));
        assert_eq!(median_mad(&[]), None);
    }

    #[test]
    fn empty_has_no_summary() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(median([]), None);
    }
}
