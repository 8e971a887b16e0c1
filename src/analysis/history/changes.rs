//! Change-point detection in a benchmark's history by e-divisive means, run the way Apache Otava (formerly
//! Hunter) runs it: a windowed divisive split with a Student t significance test, then a merge pass.
//!
//! The method, in short (Matteson & James 2014; Fleming et al. 2023, <https://arxiv.org/abs/2301.03034>):
//!
//! 1. **Split.** The series is cut into overlapping windows of `window` points, advancing by `window / 2`
//!    (or to the last change point found, if that is further). Inside each window the e-divisive
//!    candidate is the split `τ` (with an end `κ`) that maximises the energy statistic `Q̂` over every
//!    current interval; it is kept if a two-sided pooled-variance t-test between the two sides of the
//!    interval gives `p ≤` a relaxed threshold, and the search repeats on the refined intervals until a
//!    candidate fails. The union over windows is the set of *weak* change points.
//! 2. **Merge.** Each weak point is re-tested against its neighbouring change points. The point with
//!    the largest p is dropped while that p exceeds `max_p`, then the point with the smallest relative
//!    magnitude is dropped while it is at most `min_magnitude`, re-testing the neighbours of each dropped
//!    point, until nothing changes.
//!
//! Distances are `|x − y|` (Otava's `α = 1`). Every block sum of the pairwise distance matrix comes from
//! a 2-D prefix sum, so evaluating all `(τ, κ)` of an interval of length `L` costs `O(L²)`.

/// Tuning of [`change_points`]; [`Options::default`] gives Otava's defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Length of the sliding window of the split pass, in points (Otava's `window_len`, default 50).
    /// Values below 2 are treated as 2.
    pub window: usize,
    /// Largest two-sided p-value for a change point to be kept (default 0.001).
    pub max_p: f64,
    /// A change point whose magnitude `max(|after/before − 1|, |before/after − 1|)` is at most this is
    /// dropped (default 0.0, which drops only changes of exactly zero).
    pub min_magnitude: f64,
}

impl Default for Options {
    /// Otava's defaults: window 50, `max_p` 0.001, `min_magnitude` 0.0.
    fn default() -> Self {
        Options { window: 50, max_p: 0.001, min_magnitude: 0.0 }
    }
}

/// One detected change point, described against its neighbouring change points (or the ends of the
/// series).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChangePoint {
    /// Index of the first point of the new level.
    pub index: usize,
    /// Two-sided p-value of the t-test between the segment before and the segment after.
    pub p: f64,
    /// Mean of the segment before (from the previous change point, or the start, up to `index`).
    pub before: f64,
    /// Mean of the segment after (from `index` up to the next change point, or the end).
    pub after: f64,
}

impl ChangePoint {
    /// Relative change `after / before − 1` (negative for a drop); 0 when `before` is 0, as in Otava.
    pub fn change(&self) -> f64 {
        relative(self.after, self.before)
    }

    /// Otava's magnitude: the larger of the forward and backward relative changes, in absolute value.
    fn magnitude(&self) -> f64 {
        relative(self.after, self.before).abs().max(relative(self.before, self.after).abs())
    }
}

/// Finds the change points of `series` (a history of one benchmark's rate, oldest first), sorted by
/// index. Series shorter than 4 points (each side of a change needs 2), or constant ones, have none.
pub fn change_points(series: &[f64], options: &Options) -> Vec<ChangePoint> {
    // Otava relaxes the threshold of the split pass so that the merge pass has candidates to choose
    // from. (Current Otava also doubles a `max_p` in [0.05, 0.5); this follows the 10×-below-0.05 rule.)
    let weak_p = if options.max_p < 0.05 { options.max_p * 10.0 } else { options.max_p };
    let weak = split(series, options.window, weak_p);
    merge(series, &weak, options.max_p, options.min_magnitude)
}

/// Two-sided p-value of Student's t-test with pooled variance between `left` and `right`, as Otava
/// computes it: scipy's `ttest_ind_from_stats` (equal variances) fed with the population standard
/// deviations (`ddof = 0`, numpy's default) and the sample sizes.
///
/// A side of one point is tested as scipy tests it (its variance 0, the other side's alone pooled,
/// `n1 + n2 − 2` degrees of freedom): a lone first run far below the rest is a change, and the
/// window's search goes on past it. An empty side, or two points in all, is not testable and gives
/// 1. When both sides have zero variance the result is 0 if the means differ and 1 if they are equal.
pub fn t_test(left: &[f64], right: &[f64]) -> f64 {
    let (n1, n2) = (left.len(), right.len());
    if n1 == 0 || n2 == 0 || n1 + n2 < 3 {
        return 1.0;
    }
    let (mean1, var1) = moments(left);
    let (mean2, var2) = moments(right);
    let (n1, n2) = (n1 as f64, n2 as f64);
    let df = n1 + n2 - 2.0;
    let pooled = ((n1 - 1.0) * var1 + (n2 - 1.0) * var2) / df;
    let se2 = pooled * (1.0 / n1 + 1.0 / n2);
    if se2 <= 0.0 || !se2.is_finite() {
        return if mean1 == mean2 { 1.0 } else { 0.0 };
    }
    let t = (mean1 - mean2) / se2.sqrt();
    student_t_two_sided(t, df)
}

/// `a / b − 1`, or 0 when `b` is 0.
fn relative(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        a / b - 1.0
    }
}

/// Mean and population variance (`ddof = 0`). A constant slice gives exactly its value and 0, so
/// that rounding cannot make two constant segments look different.
fn moments(xs: &[f64]) -> (f64, f64) {
    let Some(&first) = xs.first() else {
        return (0.0, 0.0);
    };
    if xs.iter().all(|&x| x == first) {
        return (first, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|&x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var)
}

// ---------------------------------------------------------------------------------------------------
// Split pass
// ---------------------------------------------------------------------------------------------------

/// Sorted, distinct weak change points of `series`: the union of the divisive search over sliding
/// windows of `window` points, each accepting splits with `p ≤ threshold`.
fn split(series: &[f64], window: usize, threshold: f64) -> Vec<usize> {
    let window = window.max(2);
    let step = window / 2;
    let mut points = Vec::new();
    let mut start = 0;
    while start < series.len() {
        let end = start.saturating_add(window).min(series.len());
        let found = divide(&series[start..end], threshold);
        // Like Otava, the next window starts at the last point found here if that is further than a step.
        let last = found.last().map_or(0, |&local| start + local);
        points.extend(found.iter().map(|&local| start + local));
        start = last.max(start.saturating_add(step));
    }
    points.sort_unstable();
    points.dedup();
    points
}

/// The divisive loop inside one window: indices (local to `window`, sorted) of the change points
/// accepted before the first candidate that fails the test.
fn divide(window: &[f64], threshold: f64) -> Vec<usize> {
    let distances = PairDistances::new(window);
    let mut found: Vec<usize> = Vec::new();
    loop {
        // Best candidate over all current intervals; ties keep the earliest interval.
        let mut best: Option<(usize, usize, usize, f64)> = None;
        let mut lo = 0;
        for &hi in found.iter().chain(std::iter::once(&window.len())) {
            if let Some((tau, q)) = distances.best_split(lo, hi) {
                let better = match best {
                    None => true,
                    Some((_, _, _, best_q)) => q > best_q,
                };
                if better {
                    best = Some((lo, tau, hi, q));
                }
            }
            lo = hi;
        }
        let Some((lo, tau, hi, _)) = best else {
            break;
        };
        if t_test(&window[lo..tau], &window[tau..hi]) <= threshold {
            let at = found.partition_point(|&c| c < tau);
            found.insert(at, tau);
        } else {
            break;
        }
    }
    found
}

/// Pairwise distances `|z_a − z_b|` of one window, held as a 2-D prefix sum so that the sum over any
/// rectangular block costs O(1).
struct PairDistances {
    /// Row stride of `prefix` (window length + 1).
    stride: usize,
    /// `prefix[i * stride + j]` = Σ_{a < i, b < j} |z_a − z_b|.
    prefix: Vec<f64>,
}

impl PairDistances {
    fn new(z: &[f64]) -> Self {
        let stride = z.len() + 1;
        let mut prefix = vec![0.0; stride * stride];
        for (i, &zi) in z.iter().enumerate() {
            let mut row = 0.0;
            for (j, &zj) in z.iter().enumerate() {
                row += (zi - zj).abs();
                prefix[(i + 1) * stride + j + 1] = prefix[i * stride + j + 1] + row;
            }
        }
        PairDistances { stride, prefix }
    }

    /// Σ |z_a − z_b| over a in [r0, r1), b in [c0, c1).
    fn block(&self, r0: usize, r1: usize, c0: usize, c1: usize) -> f64 {
        let p = |i: usize, j: usize| self.prefix[i * self.stride + j];
        p(r1, c1) - p(r0, c1) - p(r1, c0) + p(r0, c0)
    }

    /// Matteson & James's `Q̂ = mn/(m+n) · Ê` for X = z[s..tau) (n points), Y = z[tau..kappa)
    /// (m points), with U-statistic within-sums:
    /// `2/(n+m)·ΣΣ|X−Y| − 2m/((n+m)(n−1))·Σ_{i<k}|X_i−X_k| − 2n/((n+m)(m−1))·Σ_{j<k}|Y_j−Y_k|`,
    /// a within-term being 0 for a one-point side.
    fn q(&self, s: usize, tau: usize, kappa: usize) -> f64 {
        let n = (tau - s) as f64;
        let m = (kappa - tau) as f64;
        let total = n + m;
        let mut q = 2.0 / total * self.block(s, tau, tau, kappa);
        if n > 1.0 {
            q -= 2.0 * m / (total * (n - 1.0)) * (self.block(s, tau, s, tau) / 2.0);
        }
        if m > 1.0 {
            q -= 2.0 * n / (total * (m - 1.0)) * (self.block(tau, kappa, tau, kappa) / 2.0);
        }
        q
    }

    /// The e-divisive candidate of the interval [s, e): the `τ` of the pair s < τ < κ ≤ e maximising
    /// `Q̂`, with that maximum. Ties keep the smallest τ, then the smallest κ (numpy's `argmax` order).
    /// None for intervals of fewer than 2 points.
    fn best_split(&self, s: usize, e: usize) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for tau in s + 1..e {
            for kappa in tau + 1..=e {
                let q = self.q(s, tau, kappa);
                let better = match best {
                    None => true,
                    Some((_, best_q)) => q > best_q,
                };
                if better {
                    best = Some((tau, q));
                }
            }
        }
        best
    }
}

// ---------------------------------------------------------------------------------------------------
// Merge pass
// ---------------------------------------------------------------------------------------------------

/// Tests the point `index` between its neighbours `lo` and `hi` (lo < index < hi).
fn assess(series: &[f64], lo: usize, index: usize, hi: usize) -> ChangePoint {
    let (left, right) = (&series[lo..index], &series[index..hi]);
    ChangePoint { index, p: t_test(left, right), before: moments(left).0, after: moments(right).0 }
}

/// Re-tests `points[k]` against its current neighbours in `points`.
fn reassess(series: &[f64], points: &mut [ChangePoint], k: usize) {
    let lo = if k == 0 { 0 } else { points[k - 1].index };
    let hi = points.get(k + 1).map_or(series.len(), |c| c.index);
    points[k] = assess(series, lo, points[k].index, hi);
}

/// The merge pass over the sorted, distinct weak points.
fn merge(series: &[f64], weak: &[usize], max_p: f64, min_magnitude: f64) -> Vec<ChangePoint> {
    let mut points: Vec<ChangePoint> = weak
        .iter()
        .enumerate()
        .map(|(k, &index)| {
            let lo = if k == 0 { 0 } else { weak[k - 1] };
            let hi = weak.get(k + 1).copied().unwrap_or(series.len());
            assess(series, lo, index, hi)
        })
        .collect();
    // Weakest by p (first of equals); if it is acceptable, weakest by magnitude (first of equals).
    while let Some(by_p) = first_extreme(&points, |c| c.p, |a, b| a > b) {
        let drop = if points[by_p].p > max_p {
            by_p
        } else {
            match first_extreme(&points, ChangePoint::magnitude, |a, b| a < b) {
                Some(k) if points[k].magnitude() <= min_magnitude => k,
                _ => break,
            }
        };
        points.remove(drop);
        // The neighbours of the dropped point are now at drop − 1 and drop. Otava re-tests drop and
        // drop + 1 instead, leaving the left neighbour with stale statistics; its author suspects a bug
        // (apache/otava PR #96). This re-tests the two points whose segments actually changed.
        if drop > 0 {
            reassess(series, &mut points, drop - 1);
        }
        if drop < points.len() {
            reassess(series, &mut points, drop);
        }
    }
    points
}

/// Position of the first point whose `key` is extreme under `beats` (strictly better replaces).
fn first_extreme(
    points: &[ChangePoint],
    key: impl Fn(&ChangePoint) -> f64,
    beats: impl Fn(f64, f64) -> bool,
) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (k, point) in points.iter().enumerate() {
        let value = key(point);
        let better = match best {
            None => true,
            Some((_, best_value)) => beats(value, best_value),
        };
        if better {
            best = Some((k, value));
        }
    }
    best.map(|(k, _)| k)
}

// ---------------------------------------------------------------------------------------------------
// Student t distribution
// ---------------------------------------------------------------------------------------------------

/// Two-sided tail probability `P(|T| ≥ |t|)` of Student's t with `df` degrees of freedom:
/// `I_{df/(df+t²)}(df/2, 1/2)`.
fn student_t_two_sided(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return 1.0;
    }
    if t.is_infinite() {
        return 0.0;
    }
    let x = df / (df + t * t);
    incomplete_beta(df / 2.0, 0.5, x).clamp(0.0, 1.0)
}

/// Regularized incomplete beta function `I_x(a, b)` for a, b > 0, by its continued fraction (using the
/// symmetry `I_x(a, b) = 1 − I_{1−x}(b, a)` where the fraction converges slowly).
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x.is_nan() || a.is_nan() || b.is_nan() || a <= 0.0 || b <= 0.0 {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = a * x.ln() + b * (1.0 - x).ln() + ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b);
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_fraction(a, b, x) / a
    } else {
        1.0 - ln_front.exp() * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of the incomplete beta function, evaluated by the modified Lentz method.
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 1e-15;
    let guard = |v: f64| if v.abs() < TINY { TINY } else { v };
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
    let mut f = d;
    for k in 1..=500 {
        let k = f64::from(k);
        // Even step: d_{2k} = k(b − k)x / ((a + 2k − 1)(a + 2k)).
        let even = k * (b - k) * x / ((a + 2.0 * k - 1.0) * (a + 2.0 * k));
        d = 1.0 / guard(1.0 + even * d);
        c = guard(1.0 + even / c);
        f *= c * d;
        // Odd step: d_{2k+1} = −(a + k)(a + b + k)x / ((a + 2k)(a + 2k + 1)).
        let odd = -(a + k) * (a + b + k) * x / ((a + 2.0 * k) * (a + 2.0 * k + 1.0));
        d = 1.0 / guard(1.0 + odd * d);
        c = guard(1.0 + odd / c);
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < EPS {
            break;
        }
    }
    f
}

/// Natural log of the gamma function for x > 0, by the Lanczos approximation (g = 7, 9 terms),
/// with the reflection formula below 1/2.
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let s = (std::f64::consts::PI * x).sin().abs();
        return std::f64::consts::PI.ln() - s.ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = COEFFICIENTS[0];
    for (i, &c) in COEFFICIENTS.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
pub(crate) mod tests;
