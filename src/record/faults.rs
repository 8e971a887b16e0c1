//! What a self-checking shader found: how many results it compared with their known bits during
//! timed work, how many differed, and the first few that did, each with the compute unit, the
//! workgroup and the bits (glsl/sdc.glsl writes the log; docs/corruption.md reads it).

use serde::{Deserialize, Serialize};

/// Words before the first record: the mismatch count, the records written, the injector's
/// ticket counter and its first flip's ticket (inverted), and padding.
pub const HEADER_WORDS: usize = 8;
/// Words one record takes: unit, workgroup, invocation, which result (low word), expected low and
/// high, observed low and high, which result (high word).
pub const RECORD_WORDS: usize = 9;
/// The header word a first pass sums its fingerprint into ([`crate::registry::FaultLog::fingerprint`]).
pub const FINGERPRINT_WORD: usize = 4;
/// The records a log keeps; later mismatches are counted, not recorded.
pub const RECORDS: usize = 64;
/// The log's size in bytes.
pub const LOG_BYTES: u64 = ((HEADER_WORDS + RECORDS * RECORD_WORDS) * 4) as u64;
/// The unit word of a device that does not say which unit ran an invocation.
pub const UNKNOWN_UNIT: u32 = u32::MAX;

/// One result that differed from its known bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// The compute unit that ran it (`gl_SMIDNV`); `None` where the device does not say.
    pub unit: Option<u32>,
    /// Its workgroup, counted across the dispatch's grid.
    pub workgroup: u32,
    /// Its invocation within the workgroup.
    pub invocation: u32,
    /// Which of the invocation's checked results (a chain; the memory pass's word, counted across
    /// its buffers).
    pub result: u64,
    /// The bits it should have had.
    pub expected: u64,
    /// The bits it had.
    pub observed: u64,
}

impl Fault {
    /// The bits that differ.
    pub fn flipped(&self) -> u64 {
        self.expected ^ self.observed
    }

    /// Where it was and what flipped, in one line: `unit 17, workgroup 3, invocation 5, result 2:
    /// expected 0x..., observed 0x... (bit 12 flipped)`.
    pub fn describe(&self) -> String {
        let unit = self.unit.map_or_else(
            || "unit unknown (no SM ID on this device, or for this case)".to_string(),
            |u| format!("unit {u}"),
        );
        let flipped = self.flipped();
        let bits: Vec<String> = (0..64).filter(|b| flipped >> b & 1 == 1).map(|b| b.to_string()).collect();
        let which = match bits.len() {
            1 => format!("bit {} flipped", bits[0]),
            n if n <= 4 => format!("bits {} flipped", bits.join(", ")),
            n => format!("{n} bits flipped"),
        };
        format!(
            "{unit}, workgroup {}, invocation {}, result {}: expected {:#x}, observed {:#x} ({which})",
            self.workgroup, self.invocation, self.result, self.expected, self.observed
        )
    }
}

/// A case's log: results checked, mismatches, the first [`RECORDS`] of them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FaultCount {
    /// Results compared with their known bits, over every dispatch of the case (scaling, samples,
    /// energy hold).
    pub checked: u64,
    /// Of them, the results that differed.
    pub mismatches: u64,
    /// The first of them (at most [`RECORDS`]).
    pub faults: Vec<Fault>,
    /// A fault the run injected on purpose (`PERFTEST_INJECT_FAULT`): what and where.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injected: Option<String>,
    /// Where a flip was injected: the share of the injector's draws (its unit's invocations, in
    /// the order they drew) that came before the first flip, 0 to 1; the time into the case's
    /// dispatches at which it came, near enough.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_flip: Option<f64>,
    /// Of results no CPU knows (transcendentals), a sum of the first pass's, each mixed with its
    /// place: every GPU of one model and driver gives the same; `perftest fleet` compares them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<u32>,
    /// Where results differed: the case's clock over its samples (the record's), MHz, where read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_mhz: Option<f64>,
    /// Where results differed: the GPU's temperature when its log was read, °C, where a sensor
    /// said (NVML on NVIDIA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature_c: Option<u32>,
}

impl FaultCount {
    /// The log in `words` of a case that checked `checked` results; or why it cannot be read.
    pub fn of_words(words: &[u32], checked: u64) -> Result<Self, String> {
        if words.len() < HEADER_WORDS + RECORDS * RECORD_WORDS {
            return Err(format!("the fault log holds {} words, not {}", words.len(), LOG_BYTES / 4));
        }
        let (mismatches, written) = (u64::from(words[0]), words[1] as usize);
        let kept = written.min(RECORDS).min(mismatches as usize);
        let faults = words[HEADER_WORDS..]
            .chunks_exact(RECORD_WORDS)
            .take(kept)
            .map(|r| Fault {
                unit: (r[0] != UNKNOWN_UNIT).then_some(r[0]),
                workgroup: r[1],
                invocation: r[2],
                result: u64::from(r[3]) | u64::from(r[8]) << 32,
                expected: u64::from(r[4]) | u64::from(r[5]) << 32,
                observed: u64::from(r[6]) | u64::from(r[7]) << 32,
            })
            .collect();
        let (draws, first) = (words[2], !words[3]);
        let first_flip = (words[3] != 0 && draws > 0).then(|| f64::from(first) / f64::from(draws));
        Ok(FaultCount { checked, mismatches, faults, first_flip, ..Default::default() })
    }

    /// The units its faults name, each with how many of the recorded faults it ran, most first:
    /// a unit named twice or more is a confirmed fault, once a single one.
    pub fn by_unit(&self) -> Vec<(Option<u32>, usize)> {
        let mut counts: std::collections::BTreeMap<Option<u32>, usize> = std::collections::BTreeMap::new();
        for fault in &self.faults {
            *counts.entry(fault.unit).or_default() += 1;
        }
        let mut out: Vec<_> = counts.into_iter().collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }

    /// The units its faults name, each with its count, most first: `unit 17 x3, unknown unit x1`.
    pub fn units_text(&self) -> String {
        let units: Vec<String> = self
            .by_unit()
            .iter()
            .map(|(unit, n)| unit.map_or_else(|| format!("unknown unit x{n}"), |u| format!("unit {u} x{n}")))
            .collect();
        units.join(", ")
    }

    /// The note a record carries: nothing wrong in N results, or the mismatches, the units, the
    /// first fault and the clock and temperature (with why the temperature is unknown, where
    /// `no_temperature` says; an injected fault's own note says what was injected).
    pub fn note(&self, no_temperature: Option<&str>) -> String {
        // Results no CPU knows are held to the first pass's bits, and fingerprinted for the fleet.
        let (known, fingerprint) = match self.fingerprint {
            Some(f) => ("the first pass's bits", format!("; fingerprint {f:#010x}")),
            None => ("their known bits", String::new()),
        };
        if self.mismatches == 0 {
            return format!(
                "corruption check: 0 of {} results differ from {known}{fingerprint}",
                self.checked
            );
        }
        let first = self.faults.first().map_or_else(String::new, |f| format!("; first: {}", f.describe()));
        format!(
            "corrupt: {} of {} results differ from {known} (recorded on {}){first}{fingerprint}; {}",
            self.mismatches,
            self.checked,
            self.units_text(),
            self.conditions(no_temperature)
        )
    }

    /// `at 1981 MHz and 41 °C`: the clock and temperature where results differed, or why each is
    /// unknown.
    fn conditions(&self, no_temperature: Option<&str>) -> String {
        let clock = self.clock_mhz.map_or_else(|| "a clock not read".to_owned(), |c| format!("{c:.0} MHz"));
        let temperature = match (self.temperature_c, no_temperature) {
            (Some(t), _) => format!("{t} °C"),
            (None, Some(why)) => format!("a temperature unknown ({why})"),
            (None, None) => "a temperature unknown".to_owned(),
        };
        format!("at {clock} and {temperature}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(records: &[[u32; RECORD_WORDS]], mismatches: u32) -> Vec<u32> {
        let mut words = vec![0u32; HEADER_WORDS + RECORDS * RECORD_WORDS];
        words[0] = mismatches;
        words[1] = records.len() as u32;
        for (i, r) in records.iter().enumerate() {
            words[HEADER_WORDS + i * RECORD_WORDS..][..RECORD_WORDS].copy_from_slice(r);
        }
        words
    }

    #[test]
    fn a_clean_log_says_how_many_results_it_checked() {
        let count = FaultCount::of_words(&log(&[], 0), 1 << 40).unwrap();
        assert_eq!(count.mismatches, 0);
        assert!(count.faults.is_empty());
        assert_eq!(
            count.note(None),
            "corruption check: 0 of 1099511627776 results differ from their known bits"
        );
    }

    #[test]
    fn a_fault_names_its_unit_and_the_bit_that_flipped() {
        let words = log(&[[17, 3, 5, 2, 0x4140_0000, 0, 0x4140_1000, 0, 0]], 1);
        let count = FaultCount::of_words(&words, 1000).unwrap();
        assert_eq!(count.faults[0].unit, Some(17));
        assert_eq!(count.faults[0].flipped(), 1 << 12);
        let note = count.note(None);
        assert!(note.starts_with("corrupt: 1 of 1000 results differ"), "{note}");
        assert!(note.contains("unit 17 x1") && note.contains("bit 12 flipped"), "{note}");
        // A memory word past 2^32: its index's high word is the record's last.
        let words = log(&[[17, 3, 5, 7, 1, 0, 0, 0, 2]], 1);
        assert_eq!(FaultCount::of_words(&words, 1000).unwrap().faults[0].result, (2 << 32) + 7);
    }

    #[test]
    fn more_mismatches_than_records_are_counted_and_units_ranked() {
        let records = [[4, 0, 0, 0, 1, 0, 0, 0, 0], [9, 0, 0, 0, 1, 0, 0, 0, 0], [9, 1, 0, 0, 1, 0, 2, 0, 0]];
        let count = FaultCount::of_words(&log(&records, 500), 10).unwrap();
        assert_eq!(count.mismatches, 500);
        assert_eq!(count.by_unit(), vec![(Some(9), 2), (Some(4), 1)]);
        assert_eq!(count.faults[2].describe().split(" (").nth(1), Some("bits 0, 1 flipped)"));
    }

    #[test]
    fn a_fingerprinted_log_says_its_fingerprint_and_what_it_was_held_to() {
        let mut count = FaultCount::of_words(&log(&[], 0), 100).unwrap();
        count.fingerprint = Some(0xAB);
        assert_eq!(
            count.note(None),
            "corruption check: 0 of 100 results differ from the first pass's bits; fingerprint 0x000000ab"
        );
    }

    #[test]
    fn the_first_flip_is_a_share_of_the_injectors_draws() {
        let mut words = log(&[], 0);
        assert_eq!(FaultCount::of_words(&words, 1).unwrap().first_flip, None);
        (words[2], words[3]) = (1000, !250);
        assert_eq!(FaultCount::of_words(&words, 1).unwrap().first_flip, Some(0.25));
    }

    #[test]
    fn an_unknown_unit_says_why_and_a_short_log_is_refused() {
        let words = log(&[[UNKNOWN_UNIT, 7, 0, 0, 0, 0, 1, 0, 0]], 1);
        let count = FaultCount::of_words(&words, 1).unwrap();
        assert_eq!(count.faults[0].unit, None);
        assert!(count.faults[0]
            .describe()
            .starts_with("unit unknown (no SM ID on this device, or for this case)"));
        assert!(FaultCount::of_words(&words[..10], 1).is_err());
    }
}
