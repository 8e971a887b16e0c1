//! Each compute unit's share of a grid: the records its workgroups left (the unit that ran each,
//! and that unit's clock before and after its work) turned into, per unit, its workgroups and
//! the span of its own clock from its first workgroup's start to its last one's end.

use serde::{Deserialize, Serialize};

/// Words a workgroup's record takes: unit, start low and high, end low and high, a 1 that says
/// it was written, and two words of padding.
pub const RECORD_WORDS: usize = 8;

/// One compute unit's part of a dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitSample {
    /// The unit's id (`gl_SMIDNV`).
    pub unit: u32,
    /// The workgroups it ran.
    pub groups: u32,
    /// Its clock's count from its first workgroup's start to its last one's end.
    pub clocks: u64,
}

/// The units of `groups` workgroups' records (`words`, [`RECORD_WORDS`] each), by unit id; or
/// why they cannot be used: a workgroup that wrote no record, or a unit whose clock ran backwards.
pub fn of_records(words: &[u32], groups: usize) -> Result<Vec<UnitSample>, String> {
    if words.len() < groups * RECORD_WORDS {
        return Err(format!("{} words of records for {groups} workgroups", words.len()));
    }
    let missing = words.chunks_exact(RECORD_WORDS).take(groups).filter(|r| r[5] != 1).count();
    if missing > 0 {
        return Err(format!(
            "{missing} of {groups} workgroups left no record: not all work is accounted for"
        ));
    }
    // Per unit: workgroups, the first start and the last end.
    let mut units: std::collections::BTreeMap<u32, (u32, u64, u64)> = std::collections::BTreeMap::new();
    for r in words.chunks_exact(RECORD_WORDS).take(groups) {
        let start = u64::from(r[1]) | u64::from(r[2]) << 32;
        let end = u64::from(r[3]) | u64::from(r[4]) << 32;
        if end < start {
            return Err(format!("unit {}'s clock ran backwards in a workgroup ({start} to {end})", r[0]));
        }
        let entry = units.entry(r[0]).or_insert((0, u64::MAX, 0));
        entry.0 += 1;
        entry.1 = entry.1.min(start);
        entry.2 = entry.2.max(end);
    }
    Ok(units
        .into_iter()
        .map(|(unit, (groups, start, end))| UnitSample { unit, groups, clocks: end - start })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(unit: u32, start: u64, end: u64) -> [u32; RECORD_WORDS] {
        [unit, start as u32, (start >> 32) as u32, end as u32, (end >> 32) as u32, 1, 0, 0]
    }

    #[test]
    fn a_unit_spans_its_first_start_to_its_last_end() {
        // Unit 3 runs two workgroups side by side, then a third; unit 7 one, across a carry.
        let words: Vec<u32> = [
            record(3, 1000, 5000),
            record(7, (1 << 32) - 10, (1 << 32) + 90),
            record(3, 1200, 5100),
            record(3, 5100, 9000),
        ]
        .concat();
        let units = of_records(&words, 4).unwrap();
        assert_eq!(
            units,
            [UnitSample { unit: 3, groups: 3, clocks: 8000 }, UnitSample { unit: 7, groups: 1, clocks: 100 }]
        );
    }

    #[test]
    fn a_workgroup_without_a_record_or_a_backward_clock_is_refused() {
        let mut words: Vec<u32> = [record(1, 0, 10), record(2, 0, 10)].concat();
        words[RECORD_WORDS + 5] = 0;
        assert_eq!(
            of_records(&words, 2).unwrap_err(),
            "1 of 2 workgroups left no record: not all work is accounted for"
        );
        let backwards = record(4, 10, 5);
        assert!(of_records(&backwards, 1).unwrap_err().contains("ran backwards"));
        assert!(of_records(&backwards, 2).is_err(), "too few words");
    }
}
