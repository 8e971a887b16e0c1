//! What to doubt about a result: one variant per reason, carrying its numbers (`Throttled {
//! mhz, median_mhz }`); `Display` makes the sentence lines and tables print (`throttled: ran at
//! 1395 MHz, run median 1978 MHz`). Format 7 files keep the numbers; files before it kept the
//! sentences, which [`Flag::parse`] reads back.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::record::outcome::Counted;

/// How the flag of a ratio against a flagged baseline starts.
pub const BASELINE: &str = "ratio against a flagged baseline";

/// One reason to doubt a timed result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    /// Timed by the CPU around each submission and its fence, not by GPU timestamps.
    Fenced,
    /// The samples' coefficient of variation is above 3%.
    Noisy,
    /// The warm-up's rates did not agree.
    Unsettled,
    /// One measurement takes longer than a submission should, even at one workgroup.
    OverCap {
        /// Milliseconds per measurement (the median).
        ms: f64,
        /// How many of `counted` each measurement dispatched.
        groups: u64,
        /// What `groups` counts.
        counted: Counted,
        /// The most a submission should take, ms.
        cap_ms: f64,
    },
    /// The clock changed by 5% or more during the samples.
    Unsteady {
        /// The clock before the samples (the witness: its first window), MHz.
        before_mhz: f64,
        /// The clock after them (the witness: the window farthest from the first), MHz.
        after_mhz: f64,
        /// Whether the witness read both during the samples (format 8), not the probe around them.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        during: bool,
    },
    /// The clock was 5% or more below the warm-up's level.
    BelowWarmUp {
        /// The case's clock, MHz.
        mhz: f64,
        /// The level the warm-up reached, MHz.
        reference_mhz: f64,
    },
    /// The clock was 5% or more off the run's median. Only the whole run knows it, so lines
    /// leave it to the summary after the cases.
    Throttled {
        /// The case's clock, MHz.
        mhz: f64,
        /// The run's median clock, MHz.
        median_mhz: f64,
    },
    /// Above a known peak, beyond the measurement's uncertainty.
    Implausible {
        /// The share of the peak, percent.
        percent: f64,
        /// The ceiling (`L1`, `host link`).
        ceiling: String,
        /// The peak's value (`128.0 B/clk/SM`).
        peak: String,
        /// What probably happened (absent in files before format 6's wording).
        why: Option<String>,
        /// The share the measurement's own uncertainty allows, percent (absent before format 8,
        /// which held every result to a fixed 102%).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        allowed: Option<f64>,
    },
    /// The clock read above the board's highest (files before format 8: the probe read the clock
    /// after the samples, when it steps above the board's listed highest; perftest no longer
    /// writes it).
    AboveMax {
        /// What the probe read, MHz.
        mhz: f64,
        /// The board's highest clock, MHz.
        max_mhz: f64,
    },
    /// Re-measured, and the last try was in trouble too.
    Remeasured {
        /// Why each try was measured again, in order.
        retries: Vec<String>,
    },
    /// The ratio is against a baseline with flags of its own, named here (`noisy`, `throttled`).
    Baseline(Vec<String>),
    /// A flag this perftest does not know (a newer file's), kept as written.
    Other(String),
}

/// The numbers in `text`, in order (`ran at 1395 MHz, run median 1978 MHz`: 1395, 1978).
fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|word| word.trim_matches('.').parse().ok())
        .collect()
}

impl Flag {
    /// The sentences of the flags that carry no detail.
    const FENCED: &'static str = "timed by CPU fences";
    const NOISY: &'static str = "noisy: cv above 3%";
    const UNSETTLED: &'static str = "unsettled: warm-up rates did not agree";

    /// The flag a sentence written by [`fmt::Display`] stands for (the form files before format 7
    /// kept). A sentence whose numbers do not read back as the same sentence is kept as written.
    pub fn parse(text: &str) -> Flag {
        let owned = || text.to_owned();
        match text {
            Self::FENCED => return Flag::Fenced,
            Self::NOISY => return Flag::Noisy,
            Self::UNSETTLED => return Flag::Unsettled,
            _ => {}
        }
        if let Some(names) = text.strip_prefix(BASELINE).and_then(|r| r.strip_prefix(" (")?.strip_suffix(')'))
        {
            return Flag::Baseline(names.split(", ").map(str::to_owned).collect());
        }
        let starts = |prefix: &str| text.starts_with(prefix);
        let n = numbers(text);
        let pair = |i: usize, j: usize| Some((*n.get(i)?, *n.get(j)?));
        let typed = if starts("over the submission cap") {
            let counted = Counted::ALL.into_iter().find(|c| text.contains(&format!(" {c}, above")));
            match (n.as_slice(), counted) {
                ([ms, groups, cap_ms, ..], Some(counted)) => {
                    Some(Flag::OverCap { ms: *ms, groups: *groups as u64, counted, cap_ms: *cap_ms })
                }
                _ => None,
            }
        } else if let Some(one) = text.strip_prefix("re-measured once: ") {
            Some(Flag::Remeasured { retries: vec![one.to_owned()] })
        } else if starts("re-measured ") {
            let list = text.split_once(" times: ").map(|(_, list)| list);
            list.map(|list| Flag::Remeasured { retries: list.split("; then ").map(str::to_owned).collect() })
        } else if starts("unsteady clock") {
            let during = text.ends_with("during the samples");
            pair(0, 1).map(|(before_mhz, after_mhz)| Flag::Unsteady { before_mhz, after_mhz, during })
        } else if starts("below the warm-up clock") {
            pair(0, 1).map(|(mhz, reference_mhz)| Flag::BelowWarmUp { mhz, reference_mhz })
        } else if starts("throttled") {
            pair(0, 1).map(|(mhz, median_mhz)| Flag::Throttled { mhz, median_mhz })
        } else if starts("clock above the board's maximum") {
            pair(0, 1).map(|(mhz, max_mhz)| Flag::AboveMax { mhz, max_mhz })
        } else if starts("implausible: ") {
            Self::parse_implausible(text)
        } else {
            None
        };
        typed.filter(|flag| *flag == text).unwrap_or_else(|| Flag::Other(owned()))
    }

    /// `implausible: 5191% of the L1 peak (128.0 B/clk/SM): the compiler may have removed work`, or
    /// as format 8 writes it, `implausible: 101.5% of the L1 peak (128.0 B/clk/SM), beyond the
    /// 100.4% its uncertainty allows: ...`.
    fn parse_implausible(text: &str) -> Option<Flag> {
        const ALLOWS: &str = "% its uncertainty allows";
        let rest = text.strip_prefix("implausible: ")?;
        let (percent, rest) = rest.split_once("% of the ")?;
        let (ceiling, rest) = rest.split_once(" peak (")?;
        let (peak, allowed, why) = match rest.split_once(ALLOWS) {
            Some((head, tail)) => {
                let (peak, allowed) = head.rsplit_once("), beyond the ")?;
                let why = match tail {
                    "" => None,
                    tail => Some(tail.strip_prefix(": ")?.to_owned()),
                };
                (peak, Some(allowed.parse().ok()?), why)
            }
            None => match rest.rsplit_once("): ") {
                Some((peak, why)) => (peak, None, Some(why.to_owned())),
                None => (rest.strip_suffix(')')?, None, None),
            },
        };
        let (ceiling, peak) = (ceiling.to_owned(), peak.to_owned());
        Some(Flag::Implausible { percent: percent.parse().ok()?, ceiling, peak, why, allowed })
    }

    /// Whether a baseline with this flag makes the ratios against it doubtful: a flag that doubts
    /// the baseline's rate does; one about how it was timed (CPU fences, as every case on that
    /// queue is), how long its submissions were, or its clock reading (which no ratio uses) does not.
    pub fn doubts_ratio(&self) -> bool {
        !matches!(self, Flag::Fenced | Flag::OverCap { .. } | Flag::AboveMax { .. } | Flag::Baseline(_))
    }

    /// Whether running the case again could clear the flag: noise and the clock can change from
    /// run to run; a result above the hardware's peak (the compiler), a submission over the cap
    /// (the axis value) or CPU timing (the queue) cannot.
    pub fn rerun_helps(&self) -> bool {
        match self {
            Flag::Noisy
            | Flag::Unsettled
            | Flag::Unsteady { .. }
            | Flag::BelowWarmUp { .. }
            | Flag::Throttled { .. }
            | Flag::Remeasured { .. } => true,
            Flag::Baseline(names) => !names.is_empty(),
            _ => false,
        }
    }

    /// What each kind of flag is called, as its sentence starts (docs/output.md documents each).
    pub const KINDS: [&'static str; 12] = [
        Self::FENCED,
        "noisy",
        "unsettled",
        "over the submission cap",
        "unsteady clock",
        "below the warm-up clock",
        "throttled",
        "implausible",
        "clock above the board's maximum",
        "re-measured",
        BASELINE,
        "a flag this perftest does not know",
    ];

    /// Which of [`Flag::KINDS`] the flag is.
    pub fn kind(&self) -> &'static str {
        Self::KINDS[match self {
            Flag::Fenced => 0,
            Flag::Noisy => 1,
            Flag::Unsettled => 2,
            Flag::OverCap { .. } => 3,
            Flag::Unsteady { .. } => 4,
            Flag::BelowWarmUp { .. } => 5,
            Flag::Throttled { .. } => 6,
            Flag::Implausible { .. } => 7,
            Flag::AboveMax { .. } => 8,
            Flag::Remeasured { .. } => 9,
            Flag::Baseline(_) => 10,
            Flag::Other(_) => 11,
        }]
    }

    /// The flag's name without its detail: `throttled` for `throttled: ran at ...`, `re-measured
    /// once`, and the baseline flag's first words.
    pub fn name(&self) -> String {
        let text = self.to_string();
        let name = text.split(':').next().unwrap_or(&text);
        name.split(" (").next().unwrap_or(name).trim().to_owned()
    }

    /// The flag as a result line shows it: the flags only the whole run knows are left to the
    /// summary after the cases (a throttled case, a baseline's throttling), so a line says what
    /// was known when its case finished, live or shown again from a file.
    pub fn in_line(&self) -> Option<Flag> {
        match self {
            Flag::Throttled { .. } => None,
            Flag::Baseline(names) => {
                let known: Vec<String> = names.iter().filter(|n| *n != "throttled").cloned().collect();
                (!known.is_empty()).then_some(Flag::Baseline(known))
            }
            other => Some(other.clone()),
        }
    }
}

impl fmt::Display for Flag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Flag::Fenced => f.write_str(Self::FENCED),
            Flag::Noisy => f.write_str(Self::NOISY),
            Flag::Unsettled => f.write_str(Self::UNSETTLED),
            Flag::Baseline(names) => write!(f, "{BASELINE} ({})", names.join(", ")),
            Flag::Unsteady { before_mhz, after_mhz, during: false } => {
                write!(f, "unsteady clock: {before_mhz:.0} MHz before the samples, {after_mhz:.0} MHz after")
            }
            Flag::Unsteady { before_mhz, after_mhz, during: true } => {
                write!(f, "unsteady clock: {before_mhz:.0} MHz, then {after_mhz:.0} MHz during the samples")
            }
            Flag::BelowWarmUp { mhz, reference_mhz } => write!(
                f,
                "below the warm-up clock: ran at {mhz:.0} MHz, the warm-up reached {reference_mhz:.0} MHz"
            ),
            Flag::Throttled { mhz, median_mhz } => {
                write!(f, "throttled: ran at {mhz:.0} MHz, run median {median_mhz:.0} MHz")
            }
            Flag::Implausible { percent, ceiling, peak, why, allowed } => {
                match allowed {
                    Some(allowed) => write!(
                        f,
                        "implausible: {percent:.1}% of the {ceiling} peak ({peak}), beyond the {allowed:.1}% its \
                         uncertainty allows"
                    )?,
                    None => write!(f, "implausible: {percent:.0}% of the {ceiling} peak ({peak})")?,
                }
                match why {
                    Some(why) => write!(f, ": {why}"),
                    None => Ok(()),
                }
            }
            Flag::AboveMax { mhz, max_mhz } => write!(
                f,
                "clock above the board's maximum: read {mhz:.0} MHz, the board's highest is {max_mhz:.0} MHz; \
                 per-clock figures use {max_mhz:.0} MHz"
            ),
            Flag::OverCap { ms, groups, counted, cap_ms } => write!(
                f,
                "over the submission cap: {ms:.0} ms per measurement at {groups} {counted}, above the {cap_ms} ms \
                 a submission may take before GPU watchdogs reset it; lower the case's axis value"
            ),
            Flag::Remeasured { retries } => match retries.as_slice() {
                [one] => write!(f, "re-measured once: {one}"),
                _ => write!(f, "re-measured {} times: {}", retries.len(), retries.join("; then ")),
            },
            Flag::Other(text) => f.write_str(text),
        }
    }
}

/// Flags as any format wrote them: format 7's typed flags, or the sentences of older files.
pub fn deserialize_flags<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<Flag>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Typed(Flag),
        Sentence(String),
    }
    let written = Vec::<Written>::deserialize(deserializer)?;
    Ok(written
        .into_iter()
        .map(|w| match w {
            Written::Typed(flag) => flag,
            Written::Sentence(text) => Flag::parse(&text),
        })
        .collect())
}

/// A flag equals its sentence (`Flag::Noisy == "noisy: cv above 3%"`).
impl PartialEq<&str> for Flag {
    // The sentence is made to compare it: a flag equals the text lines print for it.
    #[allow(clippy::cmp_owned)]
    fn eq(&self, text: &&str) -> bool {
        self.to_string() == *text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_reads_back_as_itself() {
        let implausible = |why: Option<&str>| Flag::Implausible {
            percent: 140.0,
            ceiling: "L1".into(),
            peak: "128.0 B/clk/SM".into(),
            why: why.map(str::to_owned),
            allowed: None,
        };
        let bounded = |why: Option<&str>| Flag::Implausible {
            percent: 101.5,
            ceiling: "fp32 add".into(),
            peak: "128.0 ops/clk/SM".into(),
            why: why.map(str::to_owned),
            allowed: Some(100.4),
        };
        let flags = [
            Flag::Fenced,
            Flag::Noisy,
            Flag::Unsettled,
            Flag::OverCap { ms: 501.0, groups: 1, counted: Counted::Workgroups, cap_ms: 100.0 },
            Flag::Unsteady { before_mhz: 1980.0, after_mhz: 1755.0, during: false },
            Flag::Unsteady { before_mhz: 1873.0, after_mhz: 1772.0, during: true },
            Flag::BelowWarmUp { mhz: 345.0, reference_mhz: 1980.0 },
            Flag::Throttled { mhz: 1395.0, median_mhz: 1978.0 },
            implausible(None),
            implausible(Some("the compiler may have removed work")),
            bounded(None),
            bounded(Some("the compiler may have removed work")),
            Flag::AboveMax { mhz: 2083.0, max_mhz: 1980.0 },
            Flag::Remeasured { retries: vec!["it ran at 345 MHz".into()] },
            Flag::Baseline(vec!["noisy".into(), "throttled".into()]),
            Flag::Other("a flag from a newer perftest".into()),
        ];
        let sentences = [
            "timed by CPU fences",
            "noisy: cv above 3%",
            "unsettled: warm-up rates did not agree",
            "over the submission cap: 501 ms per measurement at 1 workgroups, above the 100 ms a submission may \
             take before GPU watchdogs reset it; lower the case's axis value",
            "unsteady clock: 1980 MHz before the samples, 1755 MHz after",
            "unsteady clock: 1873 MHz, then 1772 MHz during the samples",
            "below the warm-up clock: ran at 345 MHz, the warm-up reached 1980 MHz",
            "throttled: ran at 1395 MHz, run median 1978 MHz",
            "implausible: 140% of the L1 peak (128.0 B/clk/SM)",
            "implausible: 140% of the L1 peak (128.0 B/clk/SM): the compiler may have removed work",
            "implausible: 101.5% of the fp32 add peak (128.0 ops/clk/SM), beyond the 100.4% its uncertainty allows",
            "implausible: 101.5% of the fp32 add peak (128.0 ops/clk/SM), beyond the 100.4% its uncertainty allows: \
             the compiler may have removed work",
            "clock above the board's maximum: read 2083 MHz, the board's highest is 1980 MHz; per-clock figures \
             use 1980 MHz",
            "re-measured once: it ran at 345 MHz",
            "ratio against a flagged baseline (noisy, throttled)",
            "a flag from a newer perftest",
        ];
        for (flag, sentence) in flags.iter().zip(sentences) {
            assert_eq!(flag.to_string(), sentence);
            assert!(matches!(flag, Flag::Other(_)) || sentence.starts_with(flag.kind()), "{sentence}");
            assert_eq!(&Flag::parse(sentence), flag, "an older file's sentence reads as the flag");
            let json = serde_json::to_string(std::slice::from_ref(flag)).unwrap();
            let mut read = serde_json::Deserializer::from_str(&json);
            assert_eq!(deserialize_flags(&mut read).unwrap(), std::slice::from_ref(flag), "{json}");
            let old = serde_json::to_string(&[sentence]).unwrap();
            let mut read = serde_json::Deserializer::from_str(&old);
            assert_eq!(deserialize_flags(&mut read).unwrap(), std::slice::from_ref(flag), "{old}");
        }
        let json = serde_json::to_string(&Flag::Throttled { mhz: 1395.0, median_mhz: 1978.0 }).unwrap();
        assert_eq!(json, r#"{"throttled":{"mhz":1395.0,"median_mhz":1978.0}}"#, "numbers, not a sentence");
        assert_eq!(
            Flag::parse("throttled: ran at 1395.5 MHz, run median 1978 MHz"),
            Flag::Other("throttled: ran at 1395.5 MHz, run median 1978 MHz".into()),
            "a sentence its numbers do not rebuild is kept as written"
        );
    }

    #[test]
    fn a_flag_says_what_it_doubts_and_whether_a_rerun_could_clear_it() {
        let implausible = Flag::parse("implausible: 140% of the L1 peak (128.0 B/clk/SM)");
        let above = Flag::AboveMax { mhz: 2083.0, max_mhz: 1980.0 };
        let over = Flag::OverCap { ms: 501.0, groups: 1, counted: Counted::Workgroups, cap_ms: 100.0 };
        for flag in [Flag::Noisy, Flag::Throttled { mhz: 1395.0, median_mhz: 1978.0 }, implausible.clone()] {
            assert!(flag.doubts_ratio(), "{flag}: a baseline's rate in doubt is every ratio's");
        }
        for flag in [Flag::Fenced, above.clone(), over.clone()] {
            assert!(!flag.doubts_ratio(), "{flag}: no ratio involves it");
        }
        assert!(Flag::Noisy.rerun_helps() && Flag::Unsettled.rerun_helps());
        for flag in [implausible, above, over, Flag::Fenced] {
            assert!(!flag.rerun_helps(), "{flag}: the same again on a rerun");
        }
    }

    #[test]
    fn names_drop_the_detail() {
        assert_eq!(Flag::Noisy.name(), "noisy");
        assert_eq!(Flag::Throttled { mhz: 1395.0, median_mhz: 1978.0 }.name(), "throttled");
        assert_eq!(Flag::Remeasured { retries: vec!["it ran at 345 MHz".into()] }.name(), "re-measured once");
        let twice = Flag::Remeasured { retries: vec!["a".into(), "b".into()] };
        assert_eq!(Flag::parse(&twice.to_string()), twice);
        // An older sentence whose numbers do not make it again is kept as written.
        let short = "over the submission cap: 501 ms per measurement at 1 workgroups";
        assert_eq!(Flag::parse(short), Flag::Other(short.into()));
        assert_eq!(Flag::Baseline(vec!["noisy".into()]).name(), BASELINE);
    }

    #[test]
    fn lines_leave_what_only_the_run_knows_to_the_summary() {
        assert_eq!(Flag::Throttled { mhz: 1395.0, median_mhz: 1978.0 }.in_line(), None);
        let both = Flag::Baseline(vec!["noisy".into(), "throttled".into()]);
        assert_eq!(both.in_line(), Some(Flag::Baseline(vec!["noisy".into()])));
        assert_eq!(Flag::Baseline(vec!["throttled".into()]).in_line(), None);
        assert_eq!(Flag::Noisy.in_line(), Some(Flag::Noisy));
    }
}
