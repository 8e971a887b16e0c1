//! What a run keeps of each family it ran, so that a saved file renders from itself (what the
//! family measures, its axes' units, whether it has levels or peaks), not from the registry of
//! whichever perftest reads it.

use serde::{Deserialize, Serialize};

use crate::registry::{AxisUnit, Env, Family};

/// One family's facts, as the registry of the perftest that ran it declared them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct FamilyFacts {
    /// Its short name (`load`).
    pub name: String,
    /// What it measures.
    pub measures: String,
    /// What the ratio in its lines is against (null: its lines have no ratio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_note: Option<String>,
    /// Whether its cases sweep a working set, so the run finds its memory levels.
    #[serde(default)]
    pub levels: bool,
    /// Whether a case of it (at the axes' defaults) counts work bounded by a known peak.
    #[serde(default)]
    pub has_peak: bool,
    /// Its axes, in declared order.
    #[serde(default)]
    pub axes: Vec<AxisFacts>,
    /// Its headline cases, what `--quick` runs of it (files before this field: filled on load
    /// from this perftest's registry, as the families of files before format 7 are).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quick: Vec<String>,
}

/// One axis of a family.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct AxisFacts {
    /// Its name (`n`, `bytes`).
    pub name: String,
    /// What a value counts (`iterations`, `rows`); null for a bytes axis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<String>,
}

impl FamilyFacts {
    /// The facts of `family`, as this perftest's registry declares it.
    pub fn of(family: &'static Family) -> Self {
        let cases = (family.expand)(&Env { family, settings: &[], device: None });
        FamilyFacts {
            name: family.name.to_owned(),
            measures: family.about.measures.to_owned(),
            ratio_note: family.ratio_note.map(str::to_owned),
            levels: family.levels,
            has_peak: cases.iter().flat_map(|c| &c.work).any(|w| w.ceiling.is_some()),
            axes: family
                .axes
                .iter()
                .map(|a| AxisFacts {
                    name: a.name.to_owned(),
                    counts: match a.unit {
                        AxisUnit::Count(what) => Some(what.to_owned()),
                        AxisUnit::Bytes => None,
                    },
                })
                .collect(),
            quick: family.quick.iter().map(|&name| name.to_owned()).collect(),
        }
    }

    /// Whether `case` is one of its headline cases (`--quick`'s).
    pub fn is_headline(&self, case: &str) -> bool {
        self.quick.iter().any(|name| name == case)
    }

    /// The facts of the registered families named in `names`, in run order (a name the
    /// registry does not know is left out).
    pub fn of_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<Self> {
        let names: std::collections::HashSet<&str> = names.into_iter().collect();
        crate::registry::families().into_iter().filter(|f| names.contains(f.name)).map(Self::of).collect()
    }
}
