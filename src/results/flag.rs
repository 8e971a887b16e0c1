//! What to doubt about a result: one variant per reason, written to files and lines as the
//! sentence it has always been (`noisy: cv above 3%`), and read back from that sentence.

use std::fmt;

/// How the flag of a ratio against a flagged baseline starts.
pub const BASELINE: &str = "ratio against a flagged baseline";

/// One reason to doubt a timed result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flag {
    /// Timed by the CPU around each submission and its fence, not by GPU timestamps.
    Fenced,
    /// The samples' coefficient of variation is above 3%.
    Noisy,
    /// The warm-up's rates did not agree.
    Unsettled,
    /// One measurement takes longer than a submission should, even at one workgroup; the sentence.
    OverCap(String),
    /// The clock changed during the samples; the sentence.
    Unsteady(String),
    /// The clock was below the warm-up's level; the sentence.
    BelowWarmUp(String),
    /// The clock was 5% or more off the run's median; the sentence. Only the whole run knows it,
    /// so lines leave it to the summary after the cases.
    Throttled(String),
    /// Above a known peak; the sentence.
    Implausible(String),
    /// The clock read above the board's highest; the sentence.
    AboveMax(String),
    /// Re-measured, and the last try was in trouble too; the sentence.
    Remeasured(String),
    /// The ratio is against a baseline with flags of its own, named here (`noisy`, `throttled`).
    Baseline(Vec<String>),
    /// A flag this perftest does not know (a newer file's), kept as written.
    Other(String),
}

impl Flag {
    /// The sentences of the flags that carry no detail.
    const FENCED: &'static str = "timed by CPU fences";
    const NOISY: &'static str = "noisy: cv above 3%";
    const UNSETTLED: &'static str = "unsettled: warm-up rates did not agree";

    /// The flag a sentence written by [`fmt::Display`] stands for.
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
        if starts("over the submission cap") {
            Flag::OverCap(owned())
        } else if starts("unsteady clock") {
            Flag::Unsteady(owned())
        } else if starts("below the warm-up clock") {
            Flag::BelowWarmUp(owned())
        } else if starts("throttled") {
            Flag::Throttled(owned())
        } else if starts("implausible") {
            Flag::Implausible(owned())
        } else if starts("clock above the board's maximum") {
            Flag::AboveMax(owned())
        } else if starts("re-measured") {
            Flag::Remeasured(owned())
        } else {
            Flag::Other(owned())
        }
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
            Flag::Throttled(_) => None,
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
            Flag::OverCap(text)
            | Flag::Unsteady(text)
            | Flag::BelowWarmUp(text)
            | Flag::Throttled(text)
            | Flag::Implausible(text)
            | Flag::AboveMax(text)
            | Flag::Remeasured(text)
            | Flag::Other(text) => f.write_str(text),
        }
    }
}

/// A flag equals its sentence (`Flag::Noisy == "noisy: cv above 3%"`).
impl PartialEq<&str> for Flag {
    fn eq(&self, text: &&str) -> bool {
        Flag::parse(text) == *self
    }
}

impl serde::Serialize for Flag {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Flag {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(Flag::parse(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_reads_back_as_itself() {
        let flags = [
            Flag::Fenced,
            Flag::Noisy,
            Flag::Unsettled,
            Flag::OverCap("over the submission cap: 501 ms per measurement at 1 workgroups".into()),
            Flag::Unsteady("unsteady clock: 1980 MHz before the samples, 1755 MHz after".into()),
            Flag::BelowWarmUp("below the warm-up clock: ran at 345 MHz, the warm-up reached 1980 MHz".into()),
            Flag::Throttled("throttled: ran at 1395 MHz, run median 1978 MHz".into()),
            Flag::Implausible("implausible: 140% of the L1 peak (128.0 B/clk/SM)".into()),
            Flag::AboveMax(
                "clock above the board's maximum: read 2083 MHz, the board's highest is 1980 MHz; per-clock \
                 figures use 1980 MHz"
                    .into(),
            ),
            Flag::Remeasured("re-measured once: it ran at 345 MHz".into()),
            Flag::Baseline(vec!["noisy".into(), "throttled".into()]),
            Flag::Other("a flag from a newer perftest".into()),
        ];
        for flag in flags {
            let json = serde_json::to_string(&flag).unwrap();
            assert_eq!(serde_json::from_str::<Flag>(&json).unwrap(), flag, "{json}");
        }
        assert_eq!(Flag::Noisy.to_string(), "noisy: cv above 3%");
        assert_eq!(
            Flag::Baseline(vec!["noisy".into()]).to_string(),
            "ratio against a flagged baseline (noisy)"
        );
    }

    #[test]
    fn names_drop_the_detail() {
        assert_eq!(Flag::Noisy.name(), "noisy");
        assert_eq!(
            Flag::Throttled("throttled: ran at 1395 MHz, run median 1978 MHz".into()).name(),
            "throttled"
        );
        assert_eq!(Flag::Remeasured("re-measured once: it ran at 345 MHz".into()).name(), "re-measured once");
        assert_eq!(Flag::Baseline(vec!["noisy".into()]).name(), BASELINE);
    }

    #[test]
    fn lines_leave_what_only_the_run_knows_to_the_summary() {
        assert_eq!(Flag::Throttled("throttled: ran at 1395 MHz, run median 1978 MHz".into()).in_line(), None);
        let both = Flag::Baseline(vec!["noisy".into(), "throttled".into()]);
        assert_eq!(both.in_line(), Some(Flag::Baseline(vec!["noisy".into()])));
        assert_eq!(Flag::Baseline(vec!["throttled".into()]).in_line(), None);
        assert_eq!(Flag::Noisy.in_line(), Some(Flag::Noisy));
    }
}
