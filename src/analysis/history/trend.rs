//! A slow drift in a series, which a step test does not see: the Mann-Kendall trend test (is the
//! series monotonic beyond chance?) and the Theil-Sen slope (how steep, robust to a few wild
//! runs). Both count pairs of points, so one outlying run moves neither much.

/// A monotonic trend in a series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trend {
    /// The two-sided p of Mann-Kendall's S (its normal approximation, continuity-corrected).
    pub p: f64,
    /// The Theil-Sen slope over the whole series (its first point to its last), as a fraction of
    /// the series' median: `-0.02` is 2% slower from first to last.
    pub change: f64,
}

/// The trend of `points` (position, value), in position order; `None` with fewer than 3 points
/// or a median that is no positive number.
pub fn trend(points: &[(f64, f64)]) -> Option<Trend> {
    let n = points.len();
    if n < 3 {
        return None;
    }
    let mut s = 0i64;
    let mut slopes = Vec::with_capacity(n * (n - 1) / 2);
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            s += match b.1.total_cmp(&a.1) {
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
            };
            if b.0 > a.0 {
                slopes.push((b.1 - a.1) / (b.0 - a.0));
            }
        }
    }
    let n = n as f64;
    let variance = n * (n - 1.0) * (2.0 * n + 5.0) / 18.0;
    let z = (s.abs() as f64 - 1.0).max(0.0) / variance.sqrt();
    let p = erfc(z / std::f64::consts::SQRT_2);
    let slope = crate::record::stats::median(slopes)?;
    let level = crate::record::stats::median(points.iter().map(|p| p.1))?;
    let span = points[points.len() - 1].0 - points[0].0;
    (level > 0.0).then(|| Trend { p, change: slope * span / level })
}

/// The complementary error function, to 1.2e-7 (Numerical Recipes' Chebyshev fit).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = [
        -1.26551223,
        1.00002368,
        0.37409196,
        0.09678418,
        -0.18628806,
        0.27886807,
        -1.13520398,
        1.48851587,
        -0.82215223,
        0.17087277,
    ];
    let sum = poly.iter().rev().fold(0.0, |acc, c| c + t * acc);
    // c0 + t(c1 + t(c2 + ...)): the polynomial in t that the fit exponentiates.
    let r = t * (-z * z + sum).exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfc_matches_its_table() {
        for (x, want) in [(0.0, 1.0), (0.5, 0.479_500_122), (1.0, 0.157_299_207), (2.0, 0.004_677_735)] {
            assert!((erfc(x) - want).abs() < 2e-7, "erfc({x}) = {}", erfc(x));
        }
        assert!((erfc(-1.0) - 1.842_700_793).abs() < 2e-7);
    }

    #[test]
    fn a_steady_slide_is_a_trend_and_one_wild_run_is_not() {
        // 60 runs sliding 2% in all, with noise of 0.3% (a fixed pattern).
        let noise = |i: usize| [0.003, -0.002, 0.001, -0.003, 0.002, 0.0][i % 6];
        let slide: Vec<(f64, f64)> =
            (0..60).map(|i| (i as f64, 100.0 * (1.0 - 0.02 * i as f64 / 59.0 + noise(i)))).collect();
        let t = trend(&slide).unwrap();
        assert!(t.p < 1e-6 && (t.change + 0.02).abs() < 0.003, "{t:?}");
        // Nine level runs, one of them half as fast: no trend, and no slope.
        let mut level: Vec<(f64, f64)> = (0..9).map(|i| (i as f64, 52.4 + noise(i) * 100.0)).collect();
        level[6].1 = 27.7;
        let t = trend(&level).unwrap();
        assert!(t.p > 0.05 && t.change.abs() < 0.01, "{t:?}");
        assert!(trend(&level[..2]).is_none());
    }

    /// Seeded series as `history` tests them (p <= 0.001, 1% or more), 1,000 of each kind: how
    /// often a trend is named in noise, and found in a drift.
    #[test]
    fn drift_study() {
        use crate::analysis::history::changes::tests::{rates, Rng};
        let named = |seed: u64, len: usize, cv: f64, level: &dyn Fn(usize) -> f64| {
            let mut rng = Rng::new(seed);
            let found = (0..1000)
                .filter(|_| {
                    let series = rates(&mut rng, len, cv, level);
                    let points: Vec<(f64, f64)> =
                        series.iter().enumerate().map(|(i, &r)| (i as f64, r)).collect();
                    trend(&points).is_some_and(|t| t.p <= 0.001 && t.change.abs() >= 0.01)
                })
                .count();
            found as f64 / 1000.0
        };
        let drift = |i: usize| 1.0 - 0.02 * i as f64 / 59.0;
        let (noise, slide) = (named(11, 60, 0.005, &|_| 1.0), named(12, 60, 0.005, &drift));
        let (noise9, noise9_wide) = (named(13, 9, 0.005, &|_| 1.0), named(14, 9, 0.02, &|_| 1.0));
        eprintln!(
            "drift study, 1000 series each: noise cv 0.5% over 60 runs {noise:.3}; a -2% drift over 60 runs \
             {slide:.3}; noise over 9 runs, cv 0.5% {noise9:.3}, cv 2% {noise9_wide:.3}"
        );
        assert!(noise <= 0.01 && noise9 <= 0.01 && noise9_wide <= 0.01, "a drift named in noise");
        assert!(slide >= 0.95, "a 2% drift missed");
    }
}
