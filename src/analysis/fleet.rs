//! `perftest fleet`: many runs of one kind of GPU, each judged against the others.
//!
//! Runs are grouped by device model, driver and settings (an H100 is never held against an H200),
//! and within a group by device: runs of one GPU (its UUID) are one device, its rate per case
//! their median and its noise at least their spread. A device with nothing to judge (every case
//! failed, hung or was too noisy) is named as such ([`Group::unjudged`]), never passed. Within a
//! group, each case's rates across the devices give a median and a robust spread: the
//! median absolute deviation (MAD), scaled by 1.4826 to estimate a standard deviation. A device's
//! rate is an outlier when it sits beyond both the fleet's spread ([`SPREAD_K`] of those) and the
//! case's own noise (as `compare` judges a change: [`FLOOR`](super::verdict::FLOOR) or [`NOISE_FACTOR`](super::verdict::NOISE_FACTOR) times its cv);
//! a case too noisy in that run ([`NOISY`](super::verdict::NOISY)) is not judged, unless it is
//! slow beyond three times its noise (evidence the noise cannot explain). A case needs [`MIN_DEVICES`] devices:
//! of two, neither can be told to be the odd one. Devices are ranked by how many of their cases
//! are slow outliers, then by how far.

use serde::Serialize;

use crate::results::model::Run;

pub use super::robust::{MAD_SCALE, SPREAD_K};
/// The fewest devices with a case for it to be judged.
pub const MIN_DEVICES: usize = 3;
pub use effect::{Effect, TOLERANCE};

/// One device's run in a fleet, and how it is named.
#[derive(Clone, Debug)]
pub struct Member<'a> {
    /// The file or label it came from.
    pub label: String,
    /// The run.
    pub run: &'a Run,
}

/// What makes runs comparable: the same device model, driver and settings.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
pub struct GroupKey {
    /// Device name.
    pub device: String,
    /// Driver name and version.
    pub driver: String,
    /// The settings that change what is measured (the header's settings, families, filters,
    /// axes, sampling).
    pub settings: String,
}

impl GroupKey {
    /// The key of `run`.
    pub fn of(run: &Run) -> Self {
        let settings = Self::settings_text(&run.settings);
        GroupKey { device: run.device.name.clone(), driver: run.device.driver.clone(), settings }
    }

    /// The settings as a key holds them: `10 ms per measurement, 5 samples, --quick`.
    pub fn settings_text(s: &crate::results::model::Settings) -> String {
        let mut settings = format!("{} ms per measurement, {} samples", s.target_ms, s.samples);
        let lists =
            [("--quick", s.quick.then(String::new)), ("--filter", s.filter.clone())].into_iter().chain(
                [("--family", &s.families), ("--skip", &s.skip), ("--axis", &s.axes), ("--case", &s.cases)]
                    .map(|(name, list)| (name, (!list.is_empty()).then(|| list.join(",")))),
            );
        for (name, value) in lists {
            match value {
                Some(v) if v.is_empty() => settings.push_str(&format!(", {name}")),
                Some(v) => settings.push_str(&format!(", {name} {v}")),
                None => {}
            }
        }
        settings
    }
}

/// One case of one device outside its fleet.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outlier {
    /// The device's index in its group.
    pub device: usize,
    /// The case.
    pub case: String,
    /// Its rate, and the fleet's median rate, in the case's unit.
    pub rate: f64,
    /// The fleet's median.
    pub median: f64,
    /// The unit of both.
    pub unit: String,
    /// Its rate over the median, less one (negative: slower).
    pub change: f64,
    /// How many scaled MADs from the median (infinite spread: `None`, all other devices equal).
    pub spreads: Option<f64>,
    /// The case's own noise on this device (cv).
    pub noise: f64,
    /// The clock the case ran at on this device, and the median over the fleet's devices, MHz,
    /// where known: a slow case at a low clock is a clock (power, heat) that held it back.
    pub clock_mhz: Option<(f64, f64)>,
}

/// A compute unit slower than the other units of its own device (the `units` family).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlowUnit {
    /// The device's index in its group.
    pub device: usize,
    /// The case.
    pub case: String,
    /// The unit's id.
    pub unit: u32,
    /// Its rate over its device's median unit's, less one.
    pub change: f64,
}

/// A device's standing in its group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// Its index in the group.
    pub device: usize,
    /// Its label.
    pub label: String,
    /// Its runs (more than one: the same GPU measured again).
    pub runs: usize,
    /// Over its cases, the median of the run-to-run spread (half the range over the median),
    /// where it has two runs or more.
    pub run_spread: Option<f64>,
    /// Cases slower than the fleet beyond both its spread and their noise.
    pub slower: usize,
    /// Cases faster likewise.
    pub faster: usize,
    /// Cases judged.
    pub judged: usize,
    /// The largest slowdown among its slow outliers (negative change), if any.
    pub worst: Option<f64>,
    /// The sum of its slow outliers' slowdowns (how far, in all).
    pub shortfall: f64,
    /// Its compute units slower than its others ([`crate::analysis::units`]), over its cases.
    pub slow_units: usize,
    /// The verdict: [`State::Slow`].
    pub slow: bool,
    /// Its state in this screen.
    pub state: State,
    /// The effect that decided it: the slowest slow one, else the slowest significant one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<Effect>,
    /// Its effects: per family, then over every case ([`effect`]).
    pub effects: Vec<Effect>,
    /// Its families that could not be judged: a slowdown past the tolerance neither found nor
    /// ruled out ([`Effect::unresolved`]). Never a pass: the verdict names them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<Effect>,
}

impl Standing {
    /// Its families not judged, in words: `dispatch -9.1% (± 2.59%, 5 cases)`, or empty.
    pub fn unresolved_text(&self) -> String {
        let each: Vec<String> = self.unresolved.iter().map(effect_words).collect();
        each.join("; ")
    }

    /// Its size in words: `alu -3.1% (± 0.2%, 12 cases)`, or `a slow compute unit`, or `none`.
    pub fn size_text(&self) -> String {
        match &self.size {
            Some(e) => effect_words(e),
            None if self.slow_units > 0 => crate::format::count(self.slow_units, "slow compute unit"),
            None => "none".to_owned(),
        }
    }
}

/// An effect in words: `alu -3.1% (± 0.20%, 12 cases)`.
fn effect_words(e: &Effect) -> String {
    format!(
        "{} {:+.1}% (± {:.2}%, {})",
        e.what(),
        e.change * 100.0,
        e.uncertainty * 100.0,
        crate::format::count(e.cases, "case")
    )
}

/// A device's state in a screen, the least alarming first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Within its fleet (or the reference) in every family and case.
    Healthy,
    /// Cases or a family beyond the noise, all within the tolerance: look, do not act.
    Differs,
    /// A family, or the whole GPU, slower than the tolerance and beyond its uncertainty, or a
    /// slow compute unit: a suspect until measured again.
    Slow,
}

impl State {
    /// Its word.
    pub fn word(self) -> &'static str {
        match self {
            State::Healthy => "healthy",
            State::Differs => "differs",
            State::Slow => "slow",
        }
    }
}

/// A case whose answers no CPU knows (the `sdc` family's transcendental chains) and whose every
/// run on every device of a group computed the same bits: the fleet-wide bitwise comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SameBits {
    /// The case.
    pub case: String,
    /// The fingerprint every run gave.
    pub fingerprint: u32,
    /// How many devices gave it.
    pub devices: usize,
    /// How many runs, over those devices.
    pub runs: usize,
    /// Whether the reference's fingerprint is the same too (else the devices were held to each other).
    pub reference: bool,
}

/// A case whose work cost one device more energy than its group (`--energy` runs): a board
/// drawing more for the same work.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hungry {
    /// The device's index in its group.
    pub device: usize,
    /// The case.
    pub case: String,
    /// Its picojoules per unit for the board (the median over its runs).
    pub picojoules: f64,
    /// The group's median.
    pub median: f64,
    /// The unit of both (`pJ/FLOP`).
    pub unit: String,
    /// Its energy over the median, less one.
    pub change: f64,
}

/// Energy per unit this fraction or more above the group's median, and beyond [`SPREAD_K`] of
/// its spread, is more than its siblings spend: the same card's figure moved 2% to 4% between
/// sittings minutes apart (results/energy/), boards of one model differ by a few percent.
pub const ENERGY_MARGIN: f64 = 0.10;

/// A device of a group that cannot be judged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unjudged {
    /// The device's index in its group.
    pub device: usize,
    /// Why, as a sentence's end (`every case failed, hung or was skipped ...`).
    pub why: String,
    /// Whether nothing was timed on it (every case failed, crashed or hung): the GPU itself, a
    /// node to drain; not for noise or a reference that lacks its cases.
    #[serde(skip)]
    pub broken: bool,
    /// Whether it lacks siblings only (fewer than [`MIN_DEVICES`] of its model and no
    /// reference): a reference can still be made of its runs.
    #[serde(skip)]
    pub alone: bool,
}

/// The reference a group was judged against instead of its siblings ([`mod@reference`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Against {
    /// Its last run's date.
    pub made: String,
    /// The driver it was measured with (where it is not the group's, the verdict says to refresh it).
    pub driver: String,
    /// How many devices it is of.
    pub devices: usize,
    /// How many runs.
    pub runs: usize,
}

/// One group's verdicts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    /// The tolerance its effects were held to (a fraction).
    pub tolerance: f64,
    /// What its runs share.
    pub key: GroupKey,
    /// The reference its cases were held against, where one was given (else its siblings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<Against>,
    /// Its devices' labels, in the order given (a device run several times: once).
    pub devices: Vec<String>,
    /// Devices with nothing to judge, and why: each fails the screen.
    pub unjudged: Vec<Unjudged>,
    /// Cases judged: with a rate on at least [`MIN_DEVICES`] devices, or on one and in the reference.
    pub judged: usize,
    /// Cases seen on fewer (too few to tell which device is odd), or not in the reference.
    pub too_few: usize,
    /// The median over judged cases of the fleet's relative spread (scaled MAD over median).
    pub typical_spread: Option<f64>,
    /// Every outlier, slowest first.
    pub outliers: Vec<Outlier>,
    /// The devices, those with the most slow outliers first, then the farthest.
    pub ranking: Vec<Standing>,
    /// Compute units slower than their own device's others, slowest first.
    pub slow_units: Vec<SlowUnit>,
    /// Cases whose work cost a device more energy than the group, the largest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hungry: Vec<Hungry>,
    /// Cases whose bits no CPU knows and every run of every device computed alike.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub same_bits: Vec<SameBits>,
    /// Judged cases that are heavy-tailed here (healthy runs of them stray past the tolerance:
    /// [`effect::HEAVY`]): listed where they are outliers, weighed in no effect.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub heavy: Vec<String>,
    /// Each judged case's median (the fleet's or the reference's), which a confirmation with no
    /// peer on its host holds a suspect to.
    #[serde(skip)]
    pub medians: std::collections::BTreeMap<String, f64>,
}

impl Group {
    /// Whether `standing` is a suspect to measure again: slow by an effect (a slow compute unit
    /// alone is slow without measuring again).
    pub fn is_suspect(&self, standing: &Standing) -> bool {
        standing.slow && standing.size.as_ref().is_some_and(|e| e.slow(self.tolerance))
    }

    /// The cases that made `standing` slow, in its `run`: its slow family's timed cases, or every
    /// timed case where the whole GPU was slow.
    pub fn slow_cases(&self, standing: &Standing, run: &Run) -> Vec<String> {
        let Some(effect) = standing.size.as_ref().filter(|e| e.slow(self.tolerance)) else {
            return Vec::new();
        };
        let timed = run.cases.iter().filter(|c| c.timed_rate().is_some());
        timed
            .filter(|c| effect.family.as_ref().is_none_or(|f| *f == c.family))
            .map(|c| c.name.clone())
            .collect()
    }
}

/// A run, or a file given as one, that the fleet could not take, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Left {
    /// The run's label or the file.
    pub label: String,
    /// Why (`another process used its GPU ...`, `is not a perftest run ...`).
    pub why: String,
}

/// The fleet's verdicts: one per group, and what no group could judge.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fleet {
    /// The groups, by device, driver and settings.
    pub groups: Vec<Group>,
    /// Runs that time nothing (`--verify`, `--compile-only`), which no group takes.
    pub untimed: Vec<String>,
    /// Runs whose GPU another process used meanwhile ([`super::screen::shared`]): a shared GPU's
    /// screen is no screen, and each fails it.
    pub shared: Vec<Left>,
    /// GPUs on which a case lost the device, crashed its worker or hung ([`super::screen::fault`]),
    /// or (`health`) whose perftest ended so before it measured: each fails, whatever its rates.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub faulty: Vec<Left>,
    /// GPUs whose self-checking cases computed wrong bits ([`super::screen::corruption`]): each
    /// fails, whatever its rates, before any other verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub corrupt: Vec<Left>,
    /// Devices that ran with others on a host but left no run among those given: each fails.
    pub missing: Vec<super::screen::Missing>,
    /// Files given that are not perftest runs (a verdict, a stray JSON), named and skipped.
    pub skipped: Vec<Left>,
    /// Runs judged against a reference that holds no model of their device and settings: each
    /// fails, for want of a judgement.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreferenced: Vec<Left>,
    /// The suspects measured again on their host (`perftest fleet --confirm`).
    pub confirmations: Vec<super::confirm::Confirmation>,
}

/// What a screen concludes, by the worst of its devices: the order in which the exit code says
/// it (a GPU fault, a slow GPU, then one that cannot be judged, interference, a suspect not yet
/// confirmed).
#[derive(Clone, Debug, PartialEq)]
pub enum Conclusion {
    /// GPUs that computed wrong bits (silent data corruption).
    Corrupt(Vec<String>),
    /// GPUs on which a case lost the device, crashed or hung.
    Faulty(Vec<String>),
    /// GPUs slow alone (confirmed), or with a compute unit slower than their others.
    Slow(Vec<String>),
    /// Devices with nothing to judge, shared GPUs, devices that left no run.
    Unjudged(Vec<String>),
    /// GPUs slow only beside their host's others.
    Interference(Vec<String>),
    /// GPUs slower than their fleet in these runs, not yet measured again alone.
    Unconfirmed(Vec<String>),
    /// Nothing to act on.
    Healthy,
}

impl Conclusion {
    /// Its ending: `Ok` when nothing is to be acted on, else the error whose exit code says it
    /// (21, 20, 16, 18, 17, 19).
    pub fn ending(self) -> crate::error::Result<()> {
        use crate::error::Error;
        match self {
            Conclusion::Healthy => Ok(()),
            Conclusion::Corrupt(devices) => Err(Error::Corrupt { count: devices.len(), devices }),
            Conclusion::Faulty(devices) => Err(Error::Faulty { count: devices.len(), devices }),
            Conclusion::Slow(devices) => Err(Error::SlowerThanFleet { count: devices.len(), devices }),
            Conclusion::Unjudged(devices) => Err(Error::Unjudged { count: devices.len(), devices }),
            Conclusion::Interference(devices) => Err(Error::Interference { count: devices.len(), devices }),
            Conclusion::Unconfirmed(devices) => Err(Error::Unconfirmed { count: devices.len(), devices }),
        }
    }
}

impl Fleet {
    /// The devices slower than their fleet ([`Standing::slow`]), group by group.
    pub fn slow_devices(&self) -> Vec<&Standing> {
        self.groups.iter().flat_map(|g| g.ranking.iter().filter(|s| s.slow)).collect()
    }

    /// What the screen concludes ([`Conclusion`]): each device named with why.
    pub fn conclusion(&self) -> Conclusion {
        use super::confirm::Verdict;
        let confirmed = |label: &str, verdict: Verdict| {
            self.confirmations.iter().any(|c| c.label == label && c.verdict == verdict)
        };
        let unconfirmed = |label: &str| !self.confirmations.iter().any(|c| c.label == label);
        let suspects = self.slow_devices();
        let slow: Vec<String> = suspects
            .iter()
            .filter(|s| s.slow_units > 0 || confirmed(&s.label, Verdict::Slow))
            .map(|s| s.label.clone())
            .collect();
        let mut unjudged = self.unjudged();
        unjudged.extend(self.confirmations.iter().filter(|c| c.verdict == Verdict::Unjudgeable).map(|c| {
            // The measurement that could not decide: alone, else with the host's others at once.
            let r = c.together.as_ref().filter(|_| c.alone.judgeable()).unwrap_or(&c.alone);
            format!(
                "{}: measured again ({} over {}), it can neither confirm nor rule out a slowdown past {:.1}%: \
                 measure it again on a quiet host",
                c.label,
                r.effect_text(),
                crate::format::count(r.noisy + r.judged, "case"),
                r.tolerance * 100.0
            )
        }));
        let interference: Vec<String> = self
            .confirmations
            .iter()
            .filter(|c| c.verdict == Verdict::Interference)
            .map(|c| format!("{} ({}, beside {})", c.label, c.families.join(", "), c.with.join(", ")))
            .collect();
        let waiting: Vec<String> = suspects
            .iter()
            .filter(|s| s.slow_units == 0 && unconfirmed(&s.label))
            .map(|s| format!("{} ({})", s.label, s.size_text()))
            .collect();
        let faulty: Vec<String> = self.faulty.iter().map(|l| format!("{}: {}", l.label, l.why)).collect();
        let corrupt: Vec<String> = self.corrupt.iter().map(|l| format!("{}: {}", l.label, l.why)).collect();
        match () {
            () if !corrupt.is_empty() => Conclusion::Corrupt(corrupt),
            () if !faulty.is_empty() => Conclusion::Faulty(faulty),
            () if !slow.is_empty() => Conclusion::Slow(slow),
            () if !unjudged.is_empty() => Conclusion::Unjudged(unjudged),
            () if !interference.is_empty() => Conclusion::Interference(interference),
            () if !waiting.is_empty() => Conclusion::Unconfirmed(waiting),
            () => Conclusion::Healthy,
        }
    }

    /// The screen's ending: `Ok` when nothing is to be acted on, else the error whose exit code
    /// says the conclusion (20, 16, 18, 17, 19).
    pub fn ending(&self) -> crate::error::Result<()> {
        self.conclusion().ending()
    }

    /// Whether the node of these GPUs should be drained (`health --drain`), and for which: a GPU
    /// fault, a GPU slow (confirmed, or in a compute unit), or a GPU on which nothing was timed.
    /// Noise, a reference that lacks the model or its cases, or a GPU another process shared, is
    /// no reason to drain.
    pub fn drain(&self) -> Option<Drain> {
        match self.conclusion() {
            Conclusion::Corrupt(devices) => return Some(Drain::Corrupt(devices)),
            Conclusion::Faulty(devices) => return Some(Drain::Faulty(devices)),
            Conclusion::Slow(devices) => return Some(Drain::Slow(devices)),
            _ => {}
        }
        let broken: Vec<String> = self
            .groups
            .iter()
            .flat_map(|g| {
                g.unjudged.iter().filter(|u| u.broken).map(|u| format!("{}: {}", g.devices[u.device], u.why))
            })
            .collect();
        (!broken.is_empty()).then_some(Drain::Broken(broken))
    }

    /// Every device that fails the screen for want of a judgement, as `label: why`: a device
    /// with nothing to judge, a shared GPU, a device that left no run.
    pub fn unjudged(&self) -> Vec<String> {
        let groups = self
            .groups
            .iter()
            .flat_map(|g| g.unjudged.iter().map(|u| format!("{}: {}", g.devices[u.device], u.why)));
        let shared = self.shared.iter().chain(&self.unreferenced).map(|l| format!("{}: {}", l.label, l.why));
        let missing = self.missing.iter().map(|m| {
            format!(
                "{}/{} ({}): ran with the others on its host but left no run here",
                m.host, m.slot, m.name
            )
        });
        groups.chain(shared).chain(missing).collect()
    }
}

/// Why a node should be drained ([`Fleet::drain`]), with the devices.
#[derive(Clone, Debug, PartialEq)]
pub enum Drain {
    /// GPUs that computed wrong bits, each with the cases and units.
    Corrupt(Vec<String>),
    /// GPUs on which a case lost the device, crashed or hung, each with why.
    Faulty(Vec<String>),
    /// GPUs slow again, or with a slow compute unit.
    Slow(Vec<String>),
    /// GPUs on which nothing was timed, each with why.
    Broken(Vec<String>),
}

/// Groups `members` (in the order their keys first appear) and judges each group among its
/// devices; a run whose GPU was shared is left out of every group and named.
pub fn judge(members: &[Member<'_>]) -> Fleet {
    judge_against(members, None)
}

/// As [`judge`], each group held against its model in `reference` where one is given (a run of a
/// model the reference lacks is named in [`Fleet::unreferenced`]).
pub fn judge_against(members: &[Member<'_>], reference: Option<&reference::Reference>) -> Fleet {
    judge_with(members, reference, None)
}

/// As [`judge_against`], at `tolerance` where given, else the reference's, else [`TOLERANCE`].
pub fn judge_with(
    members: &[Member<'_>],
    reference: Option<&reference::Reference>,
    tolerance: Option<f64>,
) -> Fleet {
    let tolerance = tolerance.or(reference.and_then(|r| r.tolerance)).unwrap_or(TOLERANCE);
    let mut timed = Vec::new();
    let mut untimed = Vec::new();
    let mut shared = Vec::new();
    let mut faulty = Vec::new();
    let mut corrupt = Vec::new();
    for m in members {
        // Wrong bits fail their GPU in any run; its rates are judged still.
        if let Some(why) = super::screen::corruption(m.run) {
            corrupt.push(Left { label: m.label.clone(), why });
        }
        // A fault fails its GPU in any run, timed or not; the GPU's other cases are judged still.
        if let Some(why) = super::screen::fault(m.run) {
            faulty.push(Left { label: m.label.clone(), why });
        }
        if m.run.settings.verify || m.run.settings.compile_only {
            untimed.push(m.label.clone());
            continue;
        }
        if let Some(why) = super::screen::shared(m.run) {
            let why = format!("{why}: measure it again when no other process uses it");
            shared.push(Left { label: m.label.clone(), why });
            continue;
        }
        timed.push(m);
    }
    let groups = grouped(timed, |m| GroupKey::of(m.run));
    let mut unreferenced = Vec::new();
    let mut judged = Vec::new();
    for (key, group) in groups {
        let model = reference.map(|r| r.model(&key));
        if let Some(None) = model {
            unreferenced.extend(group.iter().map(|m| Left {
                label: m.label.clone(),
                why: format!(
                    "the reference holds no model of {} with these settings ({}): make one from a healthy \
                     screen of it (perftest fleet --write-reference)",
                    key.device, key.settings
                ),
            }));
            continue;
        }
        let model = model.flatten();
        let mut judged_group = group::judge_group(key, &group, model, tolerance);
        // Bits no CPU knows, held to the reference's or to the siblings'.
        let prints =
            fingerprint::judge(&group, |name| model.and_then(|m| m.case(name)).and_then(|e| e.fingerprint));
        corrupt.extend(prints.corrupt);
        judged_group.same_bits = prints.same;
        for left in prints.unjudged {
            if let Some(device) = judged_group.devices.iter().position(|d| *d == left.label) {
                judged_group.unjudged.push(Unjudged { device, why: left.why, broken: false, alone: false });
            }
        }
        judged.push(judged_group);
    }
    // Against a reference each run is judged on its own: a run of an --all-devices screen needs
    // none of its siblings.
    let runs: Vec<&Run> = members.iter().map(|m| m.run).collect();
    let missing = if reference.is_some() { Vec::new() } else { super::screen::missing(&runs) };
    Fleet {
        groups: judged,
        untimed,
        shared,
        faulty,
        corrupt,
        missing,
        skipped: Vec::new(),
        unreferenced,
        confirmations: Vec::new(),
    }
}

/// `items` grouped by `key`, in the order their keys first appear.
pub(crate) fn grouped<'m, T: ?Sized, K: PartialEq>(
    items: impl IntoIterator<Item = &'m T>,
    key: impl Fn(&T) -> K,
) -> Vec<(K, Vec<&'m T>)> {
    let mut groups: Vec<(K, Vec<&'m T>)> = Vec::new();
    for item in items {
        let k = key(item);
        match groups.iter_mut().find(|(known, _)| *known == k) {
            Some((_, group)) => group.push(item),
            None => groups.push((k, vec![item])),
        }
    }
    groups
}

/// The names of `members`' cases, in first-seen order, each once.
pub(crate) fn case_names<'a>(members: &[&Member<'a>]) -> Vec<&'a str> {
    let mut seen = std::collections::HashSet::new();
    let all = members.iter().flat_map(|m| m.run.cases.iter()).map(|c| c.name.as_str());
    all.filter(|name| seen.insert(*name)).collect()
}

mod device;
pub mod effect;
mod fingerprint;
mod group;
pub use device::{label, slim};
pub mod reference;
#[cfg(test)]
pub(crate) mod tests;
