//! A number and what it counts ([`Amount`]), typed: a total of a work unit (`loads`), its rate
//! (`loads/s`), its rate per clock per compute unit (`loads/clk/SM`), or the energy of one
//! (`pJ/loads`). Files hold the text (every format has), which reads back as the same type; a text
//! this perftest does not know (a newer file's) is kept as written.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::registry::Unit;

/// What an amount counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Measure {
    /// A total of the unit (`FLOP`, `loads`).
    Total(Unit),
    /// The unit per second (`FLOPS`, `loads/s`).
    PerSecond(Unit),
    /// The unit per clock per compute unit (`loads/clk/SM`).
    PerClock {
        /// The work unit.
        unit: Unit,
        /// What a compute unit is called (`SM`, `CU`).
        compute_unit: String,
    },
    /// Picojoules per unit (`pJ/FLOP`, `pJ/B`): what one unit of work cost in energy.
    Energy(Unit),
    /// A unit this perftest does not know, as written.
    Other(String),
}

impl Measure {
    /// The work unit it counts, whatever it is per (`None`: one this perftest does not know).
    pub fn unit(&self) -> Option<Unit> {
        match self {
            Measure::Total(unit)
            | Measure::PerSecond(unit)
            | Measure::PerClock { unit, .. }
            | Measure::Energy(unit) => Some(*unit),
            Measure::Other(_) => None,
        }
    }

    /// The text's measure, if it is one this perftest writes.
    fn parse(text: &str) -> Option<Measure> {
        let amount = |name: &str| Unit::ALL.into_iter().find(|u| u.amount_name() == name);
        let measure = if let Some(unit) = Unit::of_rate_name(text) {
            Measure::PerSecond(unit)
        } else if let Some(unit) = amount(text) {
            Measure::Total(unit)
        } else if let Some(unit) = text.strip_prefix("pJ/").and_then(amount) {
            Measure::Energy(unit)
        } else {
            let (name, compute_unit) = text.split_once("/clk/")?;
            Measure::PerClock { unit: amount(name)?, compute_unit: compute_unit.to_owned() }
        };
        // Only a text that the measure writes again is taken as it.
        (measure.to_string() == text).then_some(measure)
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Measure::Total(unit) => f.write_str(unit.amount_name()),
            Measure::PerSecond(unit) => f.write_str(unit.rate_name()),
            Measure::PerClock { unit, compute_unit } => {
                write!(f, "{}/clk/{compute_unit}", unit.amount_name())
            }
            Measure::Energy(unit) => write!(f, "pJ/{}", unit.amount_name()),
            Measure::Other(text) => f.write_str(text),
        }
    }
}

/// A number with its unit.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Amount {
    /// The number.
    pub value: f64,
    /// What it counts (`FLOP`, `loads/s`, `loads/clk/SM`).
    pub unit: Measure,
}

impl Amount {
    /// The work unit of a rate (`None`: not a rate, or a unit this perftest does not know).
    pub fn rate_unit(&self) -> Option<crate::registry::Unit> {
        match self.unit {
            Measure::PerSecond(unit) => Some(unit),
            _ => None,
        }
    }

    /// A rate of one operation at a time (dependent loads or ops) as the time each takes: its
    /// nanoseconds and what each is (`load`, `op`); `None` for every other amount.
    pub fn latency(&self) -> Option<(f64, &'static str)> {
        let each = self.rate_unit().and_then(crate::registry::Unit::latency_of)?;
        Some((1e9 / self.value, each))
    }

    /// The amount as text: SI-prefixed, or a dependent-load or dependent-op rate as the latency it
    /// is (`712.0 ns per load`), or a dispatch rate with the time each takes (`1.23 Mdispatches/s, 813.0 ns
    /// each`; `71.27 µs` from a microsecond).
    pub fn text(&self) -> String {
        use crate::format::{ns_text, si, sig4};
        use crate::registry::Unit;
        if let Some((ns, each)) = self.latency() {
            return format!("{} ns per {each}", sig4(ns));
        }
        match self.rate_unit() {
            Some(Unit::Dispatch | Unit::Submission) => {
                format!("{}, {} each", si(self.value, &self.unit.to_string()), ns_text(1e9 / self.value))
            }
            _ => si(self.value, &self.unit.to_string()),
        }
    }
}

impl From<String> for Measure {
    fn from(text: String) -> Self {
        Measure::parse(&text).unwrap_or(Measure::Other(text))
    }
}

impl From<&str> for Measure {
    fn from(text: &str) -> Self {
        Measure::from(text.to_owned())
    }
}

impl From<Measure> for String {
    fn from(measure: Measure) -> Self {
        measure.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unit_reads_back_as_itself_and_others_are_kept() {
        for unit in Unit::ALL {
            for measure in [
                Measure::Total(unit),
                Measure::PerSecond(unit),
                Measure::PerClock { unit, compute_unit: "SM".into() },
                Measure::Energy(unit),
            ] {
                let text = measure.to_string();
                assert_eq!(Measure::from(text.as_str()), measure, "{text}");
                assert_eq!(measure.unit(), Some(unit));
            }
        }
        assert_eq!(
            Measure::from("loads/clk/SM"),
            Measure::PerClock { unit: Unit::Load, compute_unit: "SM".into() }
        );
        assert_eq!(Measure::from("pJ/FLOP"), Measure::Energy(Unit::Flop));
        assert_eq!(Measure::from("furlongs/fortnight"), Measure::Other("furlongs/fortnight".into()));
        let json = serde_json::to_string(&Measure::PerSecond(Unit::Byte)).unwrap();
        assert_eq!(json, "\"B/s\"");
        assert_eq!(serde_json::from_str::<Measure>(&json).unwrap(), Measure::PerSecond(Unit::Byte));
    }
}
