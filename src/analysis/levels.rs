//! Where the cache levels are: the plateaus of a bandwidth-against-working-set sweep, and where each ends.
//!
//! A sweep's points, by size, fall into plateaus: a point below [`DROP`] times its plateau's best
//! rate starts the next one. A plateau between two others that spans less than [`SPAN`] in size
//! is a knee (the hit rate falling from one level to the next), not a level, and is dropped; a
//! plateau not below [`DROP`] times the one before it (noise split them) joins it; an edge point
//! more than [`KNEE`] off its plateau's median belongs to the knee. Each level's rate is the median
//! of its points; it ends at its largest size. The last level is DRAM when the sweep reached
//! [`DRAM_FROM`] (larger than any GPU cache); the others are L1, L2, ... only when the sweep starts
//! in the L1 and shows at least three levels, and are numbered otherwise.

use crate::registry::Unit;
use crate::results::levels::{Level, Levels};
use crate::results::model::{CaseResult, Run, Status};

/// A point below this fraction of its plateau's best rate starts the next plateau.
pub const DROP: f64 = 0.75;
/// A level between two others spans at least this factor in working-set size; a shorter run of
/// points is the knee between them.
pub const SPAN: u64 = 4;
/// A plateau's edge point further than this from its median is part of the knee next to it.
pub const KNEE: f64 = 0.10;
/// A sweep that starts at or below this size begins in the L1 (no GPU's L1 is smaller).
pub const L1_FROM: u64 = 64 << 10;
/// A sweep whose largest set is at least this big ends in DRAM: no GPU cache is this large.
pub const DRAM_FROM: u64 = 256 << 20;

/// The plateaus of `points` (working-set bytes, rate), in any order; empty for fewer than 3.
pub fn levels(points: &[(u64, f64)]) -> Vec<Level> {
    let mut points: Vec<(u64, f64)> =
        points.iter().copied().filter(|(_, r)| r.is_finite() && *r > 0.0).collect();
    points.sort_by_key(|(bytes, _)| *bytes);
    if points.len() < 3 {
        return Vec::new();
    }
    let mut segments: Vec<Vec<(u64, f64)>> = vec![vec![points[0]]];
    let mut best = points[0].1;
    for &(bytes, rate) in &points[1..] {
        if rate < DROP * best {
            segments.push(Vec::new());
            best = rate;
        }
        best = best.max(rate);
        segments.last_mut().expect("never empty").push((bytes, rate));
    }
    // A short plateau between two others is the knee between them.
    let kept = drop_knees(segments);
    // A plateau that is not clearly below the one before it is the same level, split by noise.
    let mut merged: Vec<Vec<(u64, f64)>> = Vec::new();
    for segment in kept {
        match merged.last_mut() {
            Some(last) if median(&segment) >= DROP * median(last) => last.extend(segment),
            _ => merged.push(segment),
        }
    }
    // Edge points well off their plateau's median are the knee between two levels.
    let count = merged.len();
    let kept: Vec<Vec<(u64, f64)>> = merged
        .into_iter()
        .enumerate()
        .map(|(i, mut segment)| {
            let off = |s: &[(u64, f64)], p: (u64, f64)| (p.1 / median(s) - 1.0).abs() > KNEE;
            while i > 0 && segment.len() > 1 && off(&segment, segment[0]) {
                segment.remove(0);
            }
            while i + 1 < count && segment.len() > 1 && off(&segment, segment[segment.len() - 1]) {
                segment.pop();
            }
            segment
        })
        .collect();
    // Trimming can leave a middle plateau too short to be a level: it is part of a knee too.
    let kept = drop_knees(kept);
    let reaches_dram = points.last().is_some_and(|(bytes, _)| *bytes >= DRAM_FROM) && kept.len() > 1;
    // Cache levels are named only when the sweep spans L1 to DRAM and shows one level between:
    // two plateaus could be L1 and DRAM, or one of them two levels merged (a load bound by its
    // own instructions looks the same in L1 and L2).
    let named = reaches_dram && points[0].0 <= L1_FROM && kept.len() >= 3;
    let count = kept.len();
    kept.into_iter()
        .enumerate()
        .map(|(i, segment)| {
            let rate = median(&segment);
            let name = match i {
                _ if reaches_dram && i + 1 == count => "DRAM".to_owned(),
                _ if named => format!("L{}", i + 1),
                _ => format!("level {}", i + 1),
            };
            Level { name, rate, from_bytes: segment[0].0, to_bytes: segment[segment.len() - 1].0 }
        })
        .collect()
}

/// The median rate of `points` (a plateau, never empty; NaN only if it were).
fn median(points: &[(u64, f64)]) -> f64 {
    crate::record::stats::median(points.iter().map(|(_, r)| *r)).unwrap_or(f64::NAN)
}

/// `segments` without the middle ones that span less than [`SPAN`] in size: knees, not levels.
fn drop_knees(segments: Vec<Vec<(u64, f64)>>) -> Vec<Vec<(u64, f64)>> {
    let count = segments.len();
    segments
        .into_iter()
        .enumerate()
        .filter(|(i, s)| *i == 0 || *i + 1 == count || s[s.len() - 1].0 >= SPAN * s[0].0)
        .map(|(_, s)| s)
        .collect()
}

/// The unit of latency levels: their `rate` is nanoseconds per load.
pub const LATENCY: &str = "ns per load";

/// The levels of every variant of `run` swept over a bytes axis: from its byte rates (B/s), or
/// for a pointer chase from its dependent loads, as latencies (the plateaus are found on the rate,
/// which falls as the latency grows).
pub fn of_run(run: &Run) -> Vec<Levels> {
    /// A variant, the unit of its levels, and its (bytes, rate) points.
    type Sweep<'a> = (&'a str, &'static str, Vec<(u64, f64)>);
    let mut variants: Vec<Sweep<'_>> = Vec::new();
    // Only working-set sweeps have levels (a copy's size is not a working set).
    let sweeps: Vec<&str> = run.families.iter().filter(|f| f.levels).map(|f| f.name.as_str()).collect();
    for case in run.cases.iter().filter(|c| c.status == Status::Ok && sweeps.contains(&c.family.as_str())) {
        let (Some(bytes), Some((rate, unit))) = (bytes_axis(case), sweep_rate(case)) else { continue };
        match variants.iter_mut().find(|(v, _, _)| *v == case.variant) {
            Some((_, _, points)) => points.push((bytes, rate)),
            None => variants.push((&case.variant, unit, vec![(bytes, rate)])),
        }
    }
    variants
        .into_iter()
        .map(|(variant, unit, points)| {
            let mut found = levels(&points);
            if unit == LATENCY {
                found.iter_mut().for_each(|l| l.rate = 1e9 / l.rate);
            }
            Levels { variant: variant.to_owned(), unit: unit.to_owned(), levels: found }
        })
        .filter(|l| !l.levels.is_empty())
        .collect()
}

fn bytes_axis(case: &CaseResult) -> Option<u64> {
    case.axes.iter().find(|(name, _)| name.contains("bytes")).map(|(_, v)| *v)
}

/// The rate a sweep follows, and the unit its levels are given in.
fn sweep_rate(case: &CaseResult) -> Option<(f64, &'static str)> {
    let find = |unit: Unit| case.rates.iter().find(|a| a.rate_unit() == Some(unit)).map(|a| a.value);
    let bytes = find(Unit::Byte).map(|r| (r, Unit::Byte.rate_name()));
    bytes.or_else(|| find(Unit::DependentLoad).map(|r| (r, LATENCY)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: u64 = 1 << 10;
    const M: u64 = 1 << 20;

    /// The H100's shape from CUDA: L1 to 192 KiB, L2 to 48 MiB, a knee at 64 MiB, DRAM.
    fn h100_like() -> Vec<(u64, f64)> {
        let mut points = Vec::new();
        let mut bytes = 16 * K;
        while bytes <= 2048 * M {
            let rate = match bytes {
                b if b <= 128 * K => 32.0e12,
                b if b <= 192 * K => 30.0e12,
                b if b <= 48 * M => 9.5e12 + (b as f64).log2() * 1e9,
                b if b <= 64 * M => 5.7e12,
                _ => 3.13e12,
            };
            points.push((bytes, rate));
            bytes = if bytes == 128 * K {
                192 * K
            } else if bytes == 192 * K {
                256 * K
            } else {
                bytes * 2
            };
        }
        points
    }

    #[test]
    fn finds_three_levels_and_drops_the_knee() {
        let found = levels(&h100_like());
        let names: Vec<&str> = found.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["L1", "L2", "DRAM"]);
        assert_eq!((found[0].from_bytes, found[0].to_bytes), (16 * K, 192 * K));
        assert_eq!(found[1].to_bytes, 32 * M, "the last L2 point before the knee");
        assert_eq!(found[2].from_bytes, 128 * M, "64 MiB is the knee, in no level");
        assert!((found[2].rate - 3.13e12).abs() < 1.0);
        assert!((found[0].rate - 32.0e12).abs() < 1.0, "the median, not the mean");
    }

    #[test]
    fn a_gradual_fall_between_levels_is_a_knee_not_a_level() {
        // The H100's vec4 random sweep: the L1's hit rate falls over 256 KiB - 2 MiB.
        let points = [
            (16 * K, 22.4e12),
            (128 * K, 22.4e12),
            (256 * K, 20.8e12),
            (512 * K, 18.3e12),
            (M, 13.2e12),
            (2 * M, 10.7e12),
            (4 * M, 9.1e12),
            (8 * M, 8.4e12),
            (16 * M, 8.2e12),
            (32 * M, 7.0e12),
            (64 * M, 5.5e12),
            (128 * M, 3.1e12),
            (256 * M, 2.9e12),
        ];
        let found = levels(&points);
        let names: Vec<&str> = found.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["L1", "L2", "DRAM"], "{found:?}");
        assert_eq!((found[1].from_bytes, found[1].to_bytes), (4 * M, 16 * M), "32 MiB starts the fall");
    }

    #[test]
    fn order_and_noise_do_not_matter() {
        let mut points = h100_like();
        points.reverse();
        // 10% jitter within a plateau is not a new level.
        for (i, p) in points.iter_mut().enumerate() {
            p.1 *= if i % 2 == 0 { 1.05 } else { 0.95 };
        }
        assert_eq!(levels(&points).len(), 3);
    }

    #[test]
    fn a_dip_that_recovers_is_one_level() {
        // lavapipe: 6.5, a dip to 4.6 for two sizes, then 5.5 again: the second plateau's median
        // (5.1) is not 25% below the first's, so it is one level.
        let points =
            [(16 * K, 6.5e9), (64 * K, 6.5e9), (M, 4.6e9), (4 * M, 4.7e9), (16 * M, 5.5e9), (64 * M, 5.6e9)];
        let found = levels(&points);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].from_bytes, found[0].to_bytes), (16 * K, 64 * M));
        // A plateau that rises after a real drop joins the lower one, not the first.
        let points =
            [(16 * K, 30e12), (64 * K, 30e12), (M, 9e12), (4 * M, 8e12), (16 * M, 9.5e12), (64 * M, 9e12)];
        let names: Vec<String> = levels(&points).into_iter().map(|l| l.name).collect();
        assert_eq!(names, ["level 1", "level 2"]);
    }

    #[test]
    fn knee_points_at_a_plateaus_edge_belong_to_no_level() {
        // The H100's latency chase (as rates: loads per second), 16 KiB to 2 GiB.
        let ns = [
            24.0, 24.0, 24.2, 24.2, 118.9, 146.0, 147.0, 147.0, 147.0, 147.0, 149.5, 274.8, 355.6, 353.0,
            354.0, 355.5, 355.6, 356.6,
        ];
        let points: Vec<(u64, f64)> =
            ns.iter().enumerate().map(|(i, ns)| ((16 * K) << i, 1e9 / ns)).collect();
        let found = levels(&points);
        let spans: Vec<(&str, u64, u64)> =
            found.iter().map(|l| (l.name.as_str(), l.from_bytes, l.to_bytes)).collect();
        assert_eq!(spans, [("L1", 16 * K, 128 * K), ("L2", 512 * K, 16 * M), ("DRAM", 64 * M, 2048 * M)]);
    }

    #[test]
    fn a_slow_fall_through_the_l2_is_no_level() {
        // The H200's vec4 random sweep (TB/s), 16 KiB to 2 GiB: past the L1 the rate falls in
        // steps (short plateaus) all the way to DRAM, with no flat L2 to report.
        let tbs = [
            22.42, 22.43, 22.42, 22.42, 20.8, 18.73, 14.57, 12.46, 10.67, 9.85, 8.46, 7.02, 6.44, 5.48, 4.37,
            4.31, 4.27, 4.27,
        ];
        let points: Vec<(u64, f64)> =
            tbs.iter().enumerate().map(|(i, t)| ((16 * K) << i, t * 1e12)).collect();
        let found = levels(&points);
        let names: Vec<&str> = found.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["level 1", "DRAM"], "{found:?}");
        assert_eq!((found[0].to_bytes, found[1].from_bytes), (256 * K, 256 * M));
    }

    #[test]
    fn two_plateaus_are_not_called_l1() {
        // Float loads bound by their own index arithmetic: flat from 16 KiB into the L2, then DRAM.
        let points = [(16 * K, 8.6e12), (M, 8.6e12), (32 * M, 8.4e12), (256 * M, 2.9e12), (2048 * M, 2.9e12)];
        let names: Vec<String> = levels(&points).into_iter().map(|l| l.name).collect();
        assert_eq!(names, ["level 1", "DRAM"]);
        // A sweep that starts above any L1 names no cache level either.
        let points = [(M, 11e12), (4 * M, 9e12), (16 * M, 9e12), (64 * M, 3e12), (1024 * M, 3e12)];
        let names: Vec<String> = levels(&points).into_iter().map(|l| l.name).collect();
        assert_eq!(names, ["level 1", "DRAM"]);
    }

    #[test]
    fn a_short_sweep_does_not_claim_dram() {
        let points = [(16 * K, 30e12), (64 * K, 30e12), (M, 9e12), (4 * M, 9e12)];
        let names: Vec<String> = levels(&points).into_iter().map(|l| l.name).collect();
        assert_eq!(names, ["level 1", "level 2"]);
        assert!(levels(&points[..2]).is_empty(), "two points are no sweep");
        let flat = [(16 * K, 1e9), (32 * K, 1.1e9), (64 * K, 0.95e9)];
        assert_eq!(levels(&flat)[0].name, "level 1");
    }
}
