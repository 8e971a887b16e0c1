//! The slow compute unit: how close a case's per-unit rates are ([`UnitRate`], the `units`
//! family), the slowest and fastest against the median, and which units are slower than the
//! others beyond both their spread and a floor.

use serde::Serialize;

use super::robust::{MAD_SCALE, SPREAD_K};
use crate::record::stats::median_mad;
use crate::results::model::{CaseResult, UnitRate};

/// The least slowdown that marks a unit slow, whatever the spread: one timed dispatch's span on a
/// unit is quantized by its workgroups' ends, well under this.
pub const UNIT_FLOOR: f64 = 0.01;

/// One unit against the median.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct UnitChange {
    /// Its id.
    pub unit: u32,
    /// Its rate over the median, less one.
    pub change: f64,
}

/// How a case's units compare.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnitSpread {
    /// Units seen, and the units the device has, where known.
    pub seen: usize,
    /// The device's count, where the driver tells it.
    pub expected: Option<u32>,
    /// The median unit's rate per clock.
    pub median: f64,
    /// The spread: 1.4826 x the median absolute deviation, over the median.
    pub spread: f64,
    /// The change below which a unit is slow: [`SPREAD_K`] spreads or [`UNIT_FLOOR`] below the
    /// median, whichever is farther (negative).
    pub slow_below: f64,
    /// The slowest and the fastest unit.
    pub slowest: UnitChange,
    /// The fastest.
    pub fastest: UnitChange,
    /// The units whose change is below `slow_below`, slowest first.
    pub slow: Vec<UnitChange>,
}

impl UnitSpread {
    /// Whether every unit of the device ran some of the grid (unknown count: assumed).
    pub fn all_seen(&self) -> bool {
        self.expected.is_none_or(|n| n as usize == self.seen)
    }
}

/// The spread of `units` (a device of `expected` units, where known); `None` without rates.
pub fn spread_of(units: &[UnitRate], expected: Option<u32>) -> Option<UnitSpread> {
    let rates: Vec<f64> = units.iter().map(|u| u.per_clock).filter(|r| r.is_finite() && *r > 0.0).collect();
    let (median, mad) = median_mad(&rates)?;
    let spread = MAD_SCALE * mad / median;
    let slow_below = -UNIT_FLOOR.max(SPREAD_K * spread);
    let change = |u: &UnitRate| UnitChange { unit: u.unit, change: u.per_clock / median - 1.0 };
    let mut changes: Vec<UnitChange> = units.iter().map(change).collect();
    changes.sort_by(|a, b| a.change.total_cmp(&b.change));
    let slow = changes.iter().filter(|c| c.change < slow_below).copied().collect();
    Some(UnitSpread {
        seen: units.len(),
        expected,
        median,
        spread,
        slow_below,
        slowest: changes[0],
        fastest: changes[changes.len() - 1],
        slow,
    })
}

/// The spread of `case`'s units, on a device of `expected` units.
pub fn spread(case: &CaseResult, expected: Option<u32>) -> Option<UnitSpread> {
    spread_of(&case.units, expected)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::results::model::Amount;

    /// The sample run's first case as `Units fp32 FMA` at 65 TFLOPS, with [`units`]`(slow, by)`.
    pub(crate) fn units_case(slow: u32, by: f64) -> CaseResult {
        let mut case = crate::results::model::tests::sample_run().cases[0].clone();
        case.name = "Units fp32 FMA".into();
        case.rate = Some(Amount { value: 6.5e13, unit: "FLOPS".into() });
        case.units = units(slow, by);
        case
    }

    /// 132 units at 250 per clock, each moved by up to 0.1%; unit `slow` by a further `by`.
    pub(crate) fn units(slow: u32, by: f64) -> Vec<UnitRate> {
        (0..132u32)
            .map(|unit| {
                let jitter = 1.0 + f64::from((unit * 7919) % 21) / 20.0 * 0.002 - 0.001;
                let scale = if unit == slow { jitter * (1.0 - by) } else { jitter };
                UnitRate { unit, groups: 8, per_clock: 250.0 * scale }
            })
            .collect()
    }

    #[test]
    fn a_slowed_unit_is_found_and_healthy_ones_are_not() {
        let healthy = spread_of(&units(17, 0.0), Some(132)).unwrap();
        assert!(healthy.slow.is_empty() && healthy.all_seen());
        assert!(healthy.spread < 0.002, "{}", healthy.spread);
        assert!(healthy.slowest.change > -0.0011 && healthy.fastest.change < 0.0011);
        let slowed = spread_of(&units(17, 0.05), Some(132)).unwrap();
        assert_eq!(slowed.slow.len(), 1);
        assert_eq!(slowed.slowest.unit, 17);
        assert!((slowed.slowest.change + 0.05).abs() < 0.002);
        // A unit 0.5% slow is within the floor.
        assert!(spread_of(&units(17, 0.005), Some(132)).unwrap().slow.is_empty());
    }

    #[test]
    fn a_unit_that_ran_nothing_is_missed() {
        let mut some = units(0, 0.0);
        some.pop();
        assert!(!spread_of(&some, Some(132)).unwrap().all_seen());
        assert!(spread_of(&[], Some(132)).is_none());
    }
}
