//! A reference per GPU model: from a healthy screen, each case's median and spread, kept as a
//! file, against which a run is judged alone (a node of one GPU, a health check) by the rules
//! that judge it among siblings ([`super::judge_against`]).
//!
//! Each case's median is over the screen's devices (each device's rate the median over its runs)
//! where [`MIN_VALUES`] devices or more timed it, else over the runs of a single device (one GPU
//! measured three times, said in [`Expected::basis`]; two devices give none); its spread is the devices' or the single
//! runs', whichever is wider, since a check judges a single run.

use serde::{Deserialize, Serialize};

use super::device::{devices, measured, unit_of};
use super::{GroupKey, Member, MAD_SCALE};
use crate::analysis::confirm::Baseline;
use crate::record::stats::{median, median_mad};
use crate::results::model::Settings;

/// The reference file's format; a newer one is refused with what to do.
pub const FORMAT: u32 = 1;
/// The fewest values (devices, else runs) a case needs to be in a reference.
pub const MIN_VALUES: usize = 3;

/// A site's references: one model per device model, driver and settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// [`FORMAT`] of the writer.
    pub perftest_reference: u32,
    /// The perftest that wrote it.
    pub perftest_version: String,
    /// When it was made (RFC 3339, UTC).
    pub made: String,
    /// One per group of the screen it was made from.
    pub models: Vec<Model>,
    /// The tolerance a run is judged at against it (a fraction; [`super::TOLERANCE`] where
    /// absent): a site sets it once, with `--tolerance` when making it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
}

/// What a healthy GPU of one model, driver and settings measures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// The group's device, driver and settings.
    pub key: GroupKey,
    /// The settings of its first run, from which a health check runs the same cases.
    pub settings: Settings,
    /// The devices it was made from, as the screen labelled them.
    pub devices: Vec<String>,
    /// The runs it was made from.
    pub runs: usize,
    /// The first and last run's dates.
    pub dates: (String, String),
    /// Each case a healthy device measures.
    pub cases: Vec<Expected>,
}

/// Over what a case's median and spread were taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Across devices, each the median of its runs: a fleet's spread.
    Devices,
    /// Across the runs of one device (fewer than [`MIN_VALUES`] devices timed the case, and only
    /// one was given): a GPU's own figure, which vouches for that GPU alone.
    Runs,
}

/// One case of a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expected {
    /// The case.
    pub case: String,
    /// The unit of its rate.
    pub unit: String,
    /// The median rate.
    pub median: f64,
    /// The spread: 1.4826 times the median absolute deviation of the devices' medians or of
    /// the single runs, whichever is wider, in the unit.
    pub spread: f64,
    /// How many values the median is of.
    pub values: usize,
    /// Devices or runs.
    pub basis: Basis,
    /// The farthest any single run of it strayed from the median, as a fraction: a case whose
    /// healthy runs stray past the tolerance is heavy-tailed: it weighs in an effect only beyond it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<f64>,
    /// Of a case whose bits no CPU knows (the `sdc` family's transcendentals), the fingerprint
    /// every run of every GPU gave: a GPU checked against the reference must give the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<u32>,
}

impl Expected {
    /// What a case measured again is held to: its median, its run-to-run spread and, where it is
    /// heavy-tailed at `tolerance`, its tail, as the screen weighs it.
    pub fn baseline(&self, tolerance: f64) -> Option<Baseline> {
        (self.median > 0.0).then(|| Baseline {
            rate: self.median,
            spread: self.spread / self.median,
            tail: self.tail.filter(|t| *t > tolerance).unwrap_or(0.0),
            run_to_run: true,
        })
    }
}

impl Model {
    /// The expected figures of `case`, where the reference has them.
    pub fn case(&self, case: &str) -> Option<&Expected> {
        self.cases.iter().find(|e| e.case == case)
    }
}

impl Reference {
    /// The model to judge a run of `key` against: the same device, driver and settings, else the
    /// same device and settings under another driver (named in the verdict: the reference wants
    /// refreshing), else none.
    pub fn model(&self, key: &GroupKey) -> Option<&Model> {
        let like = |m: &&Model| m.key.device == key.device && m.key.settings == key.settings;
        self.models.iter().find(|m| m.key == *key).or_else(|| self.models.iter().find(like))
    }

    /// Why this file cannot be used, if it cannot: no model, or figures no screen could give (a
    /// newer format is refused before its fields are read: `session::fleet::load_reference`).
    pub fn problem(&self) -> Option<String> {
        if self.models.is_empty() {
            return Some("holds no model".into());
        }
        if let Some(t) = self.tolerance.filter(|t| !(0.001..=0.5).contains(t)) {
            return Some(format!("holds a tolerance of {} %, outside 0.1 to 50", t * 100.0));
        }
        for (n, model) in self.models.iter().enumerate() {
            // Two models of one key: which one judges would be an accident of order.
            if self.models[..n].iter().any(|m| m.key == model.key) {
                return Some(format!(
                    "holds the model {} ({}, {}) twice",
                    model.key.device, model.key.driver, model.key.settings
                ));
            }
            // The settings a health check runs are the ones its key was judged with.
            let s = &model.settings;
            if GroupKey::settings_text(s) != model.key.settings {
                return Some(format!(
                    "holds a model of {} whose settings ({}) are not those of its key ({})",
                    model.key.device,
                    GroupKey::settings_text(s),
                    model.key.settings
                ));
            }
            if !(0.5..=100.0).contains(&s.target_ms)
                || !(3..=1000).contains(&s.samples)
                || s.verify
                || s.compile_only
            {
                return Some(format!(
                    "holds settings no screen could have run for {} ({} ms, {} samples{})",
                    model.key.device,
                    s.target_ms,
                    s.samples,
                    if s.verify || s.compile_only { ", untimed" } else { "" }
                ));
            }
            if let Some(e) = model
                .cases
                .iter()
                .enumerate()
                .find_map(|(i, e)| model.cases[..i].iter().any(|known| known.case == e.case).then_some(e))
            {
                return Some(format!("holds the case {} of {} twice", e.case, model.key.device));
            }
            for e in &model.cases {
                let sane = e.median.is_finite() && e.median > 0.0 && e.spread.is_finite() && e.spread >= 0.0;
                if !sane || e.values == 0 {
                    return Some(format!(
                        "holds a figure no screen gives: {} of {} (median {}, spread {}, {} values)",
                        e.case, model.key.device, e.median, e.spread, e.values
                    ));
                }
            }
        }
        None
    }
}

impl Reference {
    /// The reference at `path`, checked: a file that is no reference, or one no screen could have
    /// written, is refused (exit 10) with what to do.
    pub fn load(path: &std::path::Path) -> crate::error::Result<Reference> {
        let bad =
            |problem: String| crate::error::Error::ResultsFile { path: path.display().to_string(), problem };
        let text = crate::bounded::read_json(
            path,
            crate::results::model::MAX_FILE_BYTES,
            "a reference written by perftest fleet --write-reference",
        )
        .map_err(bad)?;
        // A newer perftest's reference says so before its fields are read.
        let format = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("perftest_reference").and_then(serde_json::Value::as_u64));
        if let Some(newer) = format.filter(|f| *f > u64::from(FORMAT)) {
            return Err(bad(format!(
                "is reference format {newer}, newer than this perftest's {FORMAT}: use a newer perftest"
            )));
        }
        let reference: Reference = serde_json::from_str(&text).map_err(|e| {
            bad(format!("is not a perftest reference ({e}): make one with perftest fleet --write-reference"))
        })?;
        let axes = reference.models.iter().flat_map(|m| m.settings.axes.iter());
        let axis = axes.map(|a| (a, crate::registry::parse_setting(a))).find(|(_, parsed)| parsed.is_err());
        let problem = reference.problem().or_else(|| {
            axis.map(|(text, parsed)| {
                format!("holds an axis perftest cannot run ({text}: {})", parsed.err().unwrap_or_default())
            })
        });
        match problem {
            Some(problem) => {
                Err(bad(format!("{problem}: make it again with perftest fleet --write-reference")))
            }
            None => Ok(reference),
        }
    }
}

/// The reference a screen's `members` make: each group a model, each case timed on
/// [`MIN_VALUES`] devices (else runs) with its median and spread. `made` is the date to record.
pub fn make(members: &[Member<'_>], made: String, tolerance: Option<f64>) -> Reference {
    let timed = members.iter().filter(|m| !m.run.settings.verify && !m.run.settings.compile_only);
    let groups = super::grouped(timed, |m| GroupKey::of(m.run));
    let models = groups.into_iter().map(|(key, group)| model(key, &group)).filter(|m| !m.cases.is_empty());
    Reference {
        perftest_reference: FORMAT,
        perftest_version: env!("CARGO_PKG_VERSION").to_owned(),
        made,
        models: models.collect(),
        tolerance,
    }
}

/// The devices of `fleet` that disagree with their group beyond its tolerance either way, as
/// `label (size)`: a reference made of them would pass a slow GPU (or fail a healthy one).
pub fn astray(fleet: &super::Fleet) -> Vec<String> {
    let beyond = |g: &super::Group, s: &super::Standing| {
        s.effects.iter().any(|e| e.significant() && e.change.abs() > g.tolerance)
    };
    let groups = fleet.groups.iter();
    groups
        .flat_map(|g| g.ranking.iter().filter(move |s| beyond(g, s)))
        .map(|s| format!("{} ({})", s.label, s.size_text()))
        .collect()
}

/// The models of `reference` whose typical case (the median over its cases) spreads more than
/// `tolerance`, as `model: 2.3% typical spread`: such a reference cannot tell a slowdown of the
/// tolerance from its own noise.
pub fn too_wide(reference: &Reference, tolerance: f64) -> Vec<String> {
    reference
        .models
        .iter()
        .filter_map(|m| {
            let typical = median(m.cases.iter().map(|e| e.spread / e.median))?;
            (typical > tolerance).then(|| format!("{}: {:.2}% typical spread", m.key.device, typical * 100.0))
        })
        .collect()
}

/// One group's model.
fn model(key: GroupKey, members: &[&Member<'_>]) -> Model {
    let devices = devices(members);
    let names = super::case_names(members);
    let mut cases = Vec::new();
    for name in names {
        let Some(unit) = unit_of(&devices, name) else { continue };
        let per_device: Vec<f64> =
            devices.iter().filter_map(|d| measured(d, name, Some(&unit))).map(|m| m.rate).collect();
        // Every run's first case of the name (a lookup per device, not a search of every run).
        let per_run: Vec<f64> = devices
            .iter()
            .flat_map(|d| d.cases_named(name))
            .filter_map(|c| c.timed_rate().filter(|r| r.unit == unit).map(|r| r.value))
            .collect();
        // Three devices make a fleet's figure; one device's runs make its own; two devices
        // cannot say which of them is right, and their pooled runs would hide the slower one.
        let (values, basis) = match (per_device.len(), devices.len()) {
            (n, _) if n >= MIN_VALUES => (&per_device, Basis::Devices),
            (_, 1) => (&per_run, Basis::Runs),
            _ => continue,
        };
        if values.len() < MIN_VALUES {
            continue;
        }
        let Some((median, mad)) = median_mad(values) else { continue };
        // A check judges one run, which strays from its GPU's median as runs do: the spread is
        // the devices' or the single runs', whichever is wider.
        let runs_mad = median_mad(&per_run).map_or(0.0, |(_, mad)| mad);
        let tail = per_run.iter().map(|r| (r / median - 1.0).abs()).fold(0.0, f64::max);
        cases.push(Expected {
            case: name.to_owned(),
            unit: unit.to_string(),
            median,
            spread: MAD_SCALE * mad.max(runs_mad),
            values: values.len(),
            basis,
            tail: Some(tail),
            fingerprint: super::fingerprint::common(&devices, name),
        });
    }
    let mut dates: Vec<&str> = members.iter().map(|m| m.run.date.as_str()).collect();
    dates.sort();
    Model {
        settings: members[0].run.settings.clone(),
        devices: devices.iter().map(|d| d.label.clone()).collect(),
        runs: members.len(),
        dates: (
            dates.first().copied().unwrap_or_default().to_owned(),
            dates.last().copied().unwrap_or_default().to_owned(),
        ),
        key,
        cases,
    }
}
