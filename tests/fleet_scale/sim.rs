//! A fleet simulator: fleets of any size built from the committed real runs of one GPU model,
//! healthy or with one GPU planted slow, judged as `fleet`, `fleet --reference` and `health`
//! judge them. Two ways to build a GPU from the real runs:
//!
//! - [`Model::PerCase`]: each case's rate is the pool's median times one of that case's own
//!   deviations in the real runs (drawn independently per case): run-to-run and GPU-to-GPU noise,
//!   heavy tails included, but no case moves with another;
//! - [`Model::WholeRun`]: a GPU is one real run, whole (its cases keep whatever moved them
//!   together: the clock it ran at, its host's link, its own silicon).
//!
//! A full run is one run from each pool (the committed full runs come in two halves).

use std::path::Path;

use perftest::analysis::confirm::{rejudge, verdict, Verdict};
use perftest::analysis::fleet::reference::{self, Reference};
use perftest::analysis::fleet::{judge_with, Conclusion, Fleet, Member, State};
use perftest::analysis::screen;
use perftest::results::model::{CaseResult, Run};

/// How a simulated GPU is built from the real runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Model {
    /// Each case from its own deviations, independently.
    PerCase,
    /// A real run, whole.
    WholeRun,
}

/// How a simulated fleet is judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// Among its siblings (`perftest fleet`).
    Fleet,
    /// Each GPU against a reference made from another healthy screen (`fleet --reference`).
    Reference,
    /// As `Reference`, and each suspect's slow cases measured again (drawn again) and held to
    /// the reference (`perftest health`).
    Health,
}

/// What is planted in one GPU of a fleet.
#[derive(Clone, Debug, PartialEq)]
pub enum Plant {
    /// Nothing: a healthy fleet.
    None,
    /// Every case this fraction slower.
    Every(f64),
    /// Every case of this family this fraction slower.
    Family(String, f64),
}

/// The real runs of one model and settings, as a simulator draws from them.
pub struct Pool {
    runs: Vec<Run>,
    /// The cases every run timed, in the first run's order.
    names: Vec<String>,
    /// Per case, the median rate over the runs.
    median: Vec<f64>,
    /// The first run without its cases: what a simulated GPU's run is made from.
    header: Run,
}

impl Pool {
    /// Every committed run under results/ that `keep` keeps, each slimmed as `fleet` slims.
    pub fn find(keep: impl Fn(&Run) -> bool) -> Pool {
        let mut files = Vec::new();
        // The project's results/, or `FLEET_SCALE_RESULTS` (the test binary run on another machine).
        let results = std::env::var_os("FLEET_SCALE_RESULTS")
            .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("results"), Into::into);
        json_files(&results, &mut files);
        let runs: Vec<Run> = files
            .iter()
            .filter_map(|f| perftest::results::load(f).ok())
            .filter(|r| !r.settings.verify && !r.settings.compile_only && keep(r))
            // A GPU another process used, or one that lost the device, is no healthy run.
            .filter(|r| screen::shared(r).is_none() && screen::fault(r).is_none())
            .map(|mut run| {
                perftest::analysis::fleet::slim(&mut run);
                run
            })
            .collect();
        assert!(runs.len() >= 3, "{} runs", runs.len());
        let timed = |run: &Run, name: &str| {
            run.cases.iter().find(|c| c.name == name).and_then(|c| c.timed_rate()).map(|r| r.value)
        };
        let names: Vec<String> = runs[0]
            .cases
            .iter()
            .filter(|c| runs.iter().all(|r| timed(r, &c.name).is_some()))
            .map(|c| c.name.clone())
            .collect();
        let median = names
            .iter()
            .map(|n| perftest::record::stats::median(runs.iter().filter_map(|r| timed(r, n))).unwrap())
            .collect();
        let runs: Vec<Run> = runs
            .into_iter()
            .map(|mut r| {
                r.cases.retain(|c| names.contains(&c.name));
                r.cases.sort_by_key(|c| names.iter().position(|n| *n == c.name));
                r
            })
            .collect();
        let header = Run { cases: Vec::new(), ..runs[0].clone() };
        Pool { runs, names, median, header }
    }

    /// How many runs it holds.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// The families and how many cases each has.
    pub fn families(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        for c in &self.runs[0].cases {
            match out.iter_mut().find(|(f, _)| *f == c.family) {
                Some((_, n)) => *n += 1,
                None => out.push((c.family.clone(), 1)),
            }
        }
        out
    }

    /// One simulated GPU's cases under `model`.
    fn cases(&self, model: Model, rng: &mut Draw) -> Vec<CaseResult> {
        match model {
            Model::WholeRun => self.runs[pick(rng, self.runs.len())].cases.clone(),
            Model::PerCase => (0..self.names.len())
                .map(|i| {
                    let source = &self.runs[pick(rng, self.runs.len())];
                    let mut case = source.cases[i].clone();
                    let deviation = case.timed_rate().unwrap().value / self.median[i];
                    case.rate.as_mut().unwrap().value = self.median[i] * deviation;
                    case
                })
                .collect(),
        }
    }
}

/// A simulated GPU, number `n` of host `host`: one part from each pool, `plant` applied.
fn gpu(pools: &[Pool], model: Model, plant: &Plant, n: usize, rng: &mut Draw) -> Run {
    let cases = pools.iter().flat_map(|p| p.cases(model, rng)).collect();
    // The first run's header, not its cases: a fleet of 1,024 full runs clones no case twice.
    let mut run = pools[0].header.clone();
    run.cases = cases;
    run.host = Some(format!("node{}", n / 8));
    run.device.uuid = Some(format!("GPU-sim-{n}"));
    run.device.pci = Some(format!("0000:{:02x}:00.0", n % 8));
    // Its real host's other GPUs are not this fleet's.
    run.together = Vec::new();
    for case in &mut run.cases {
        // Per-unit rates are judged within their own GPU: not what this simulates.
        case.units = Vec::new();
        let by = match plant {
            Plant::None => 0.0,
            Plant::Every(by) => *by,
            Plant::Family(family, by) if *family == case.family => *by,
            Plant::Family(..) => 0.0,
        };
        if let Some(rate) = case.rate.as_mut() {
            rate.value *= 1.0 - by;
        }
    }
    run
}

/// How one simulated screen ended.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Screen {
    /// The screen exited non-zero (anything to act on or that could not be judged).
    pub alarm: bool,
    /// The planted GPU was found: a suspect (fleet, reference) or confirmed slow (health).
    pub found: bool,
    /// The planted GPU was neither found nor its planted family named as not judged: a slow GPU
    /// let through as healthy.
    pub passed: bool,
}

/// A healthy reference: three runs of each of four simulated GPUs, made as `--write-reference` makes it.
pub fn reference(pools: &[Pool], model: Model, rng: &mut Draw) -> Reference {
    let runs: Vec<Run> = (0..12).map(|i| gpu(pools, model, &Plant::None, 10_000 + i % 4, rng)).collect();
    let members: Vec<Member<'_>> =
        runs.iter().enumerate().map(|(i, run)| Member { label: format!("ref{i}"), run }).collect();
    reference::make(&members, "2026-11-28T00:00:00Z".into(), None)
}

/// A drawn fleet of `size` GPUs, GPU 0 carrying `plant`.
pub fn draw(pools: &[Pool], model: Model, size: usize, plant: &Plant, rng: &mut Draw) -> Vec<Run> {
    (0..size).map(|n| gpu(pools, model, if n == 0 { plant } else { &Plant::None }, n, rng)).collect()
}

/// How the fleet `runs` (GPU 0 carrying `plant`) ends when judged in each mode, in the order
/// of [`Mode`]: among siblings, against `against`, and that again with its suspects confirmed.
pub fn judge(
    runs: &[Run],
    pools: &[Pool],
    model: Model,
    plant: &Plant,
    against: &Reference,
    rng: &mut Draw,
) -> [Screen; 3] {
    let members: Vec<Member<'_>> =
        runs.iter().enumerate().map(|(n, run)| Member { label: format!("gpu{n}"), run }).collect();
    let siblings = judge_with(&members, None, None);
    let referenced = judge_with(&members, Some(against), None);
    let mut health = referenced.clone();
    health.confirmations = confirm(&health, pools, model, plant, against, rng);
    [(Mode::Fleet, siblings), (Mode::Reference, referenced), (Mode::Health, health)]
        .map(|(mode, fleet)| screen(&fleet, mode, plant, runs.len()))
}

/// How `fleet`, judged in `mode`, ends for a fleet of `size` (GPU 0 carrying `plant`).
fn screen(fleet: &Fleet, mode: Mode, plant: &Plant, size: usize) -> Screen {
    let found = match mode {
        Mode::Health => fleet.confirmations.iter().any(|c| c.label == "gpu0" && c.verdict == Verdict::Slow),
        _ => {
            fleet.groups.iter().flat_map(|g| &g.ranking).any(|s| s.label == "gpu0" && s.state == State::Slow)
        }
    };
    if std::env::var_os("SIM_DEBUG").is_some()
        && fleet.conclusion() != Conclusion::Healthy
        && *plant == Plant::None
    {
        eprintln!("false alarm, {mode:?} {size}: {:?}", fleet.conclusion());
        for g in &fleet.groups {
            for s in g.ranking.iter().filter(|s| s.state == State::Slow) {
                eprintln!("  {} {:?} {:?}", s.label, s.size, g.unjudged);
            }
        }
    }
    if std::env::var_os("SIM_DEBUG").is_some() && !found {
        if let Plant::Family(family, _) = plant {
            for g in &fleet.groups {
                for s in g.ranking.iter().filter(|s| s.label == "gpu0") {
                    let e: Vec<_> =
                        s.effects.iter().filter(|e| e.family.as_deref() == Some(family)).collect();
                    eprintln!("missed, {mode:?} {size}: {:?} {e:?} size {:?}", s.state, s.size);
                }
            }
        }
    }
    // Not found, but named: the planted family (any, for a plant in every case) listed as not
    // judged on GPU 0, where a slowdown past the tolerance was neither found nor ruled out.
    let named = fleet.groups.iter().flat_map(|g| &g.ranking).filter(|s| s.label == "gpu0").any(|s| {
        s.unresolved.iter().any(|e| match plant {
            Plant::Family(family, _) => e.family.as_deref() == Some(family.as_str()),
            _ => true,
        })
    });
    // Held: measured again without a pass (cannot be judged, interference), or not judged at all.
    let held = fleet.confirmations.iter().any(|c| c.label == "gpu0" && c.verdict != Verdict::NotReproduced)
        || fleet.groups.iter().any(|g| g.unjudged.iter().any(|u| g.devices[u.device] == "gpu0"));
    let passed = *plant != Plant::None && !found && !named && !held;
    if std::env::var_os("SIM_DEBUG").is_some() && passed {
        let c: Vec<_> = fleet.confirmations.iter().filter(|c| c.label == "gpu0").collect();
        eprintln!("passed, {mode:?} {size} {plant:?}: {c:?}");
    }
    Screen { alarm: fleet.conclusion() != Conclusion::Healthy, found, passed }
}

/// `health`'s second look: every suspect's slow cases drawn again (the same GPU: its plant) and
/// held to the reference, as `session::confirm::confirm_at_once` holds them.
fn confirm(
    fleet: &Fleet,
    pools: &[Pool],
    model: Model,
    plant: &Plant,
    reference: &Reference,
    rng: &mut Draw,
) -> Vec<perftest::analysis::confirm::Confirmation> {
    let mut out = Vec::new();
    for group in &fleet.groups {
        let model_of = reference.model(&group.key);
        for s in group.ranking.iter().filter(|s| group.is_suspect(s)) {
            let n: usize = s.label.trim_start_matches("gpu").parse().unwrap();
            let again = gpu(pools, model, if n == 0 { plant } else { &Plant::None }, n, rng);
            let cases = group.slow_cases(s, &again);
            let expected = |name: &str| model_of?.case(name)?.baseline(group.tolerance);
            let alone = rejudge(&again, &cases, expected, "the reference's medians", group.tolerance);
            out.push(perftest::analysis::confirm::Confirmation {
                label: s.label.clone(),
                families: s.size.iter().filter_map(|e| e.family.clone()).collect(),
                verdict: verdict(&alone, None),
                alone,
                together: None,
                with: Vec::new(),
                at_once: true,
            });
        }
    }
    out
}

/// Every `*.json` under `dir`, sorted.
fn json_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// The simulator's random numbers: SplitMix64 (Steele, Lea and Flood), seeded, so that every
/// run of a test draws the same fleets.
pub struct Draw(u64);

impl Draw {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Draw {
        Draw(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A number below `n`, uniform enough for a simulator (n is far below 2^32).
fn pick(rng: &mut Draw, n: usize) -> usize {
    (rng.next() % n as u64) as usize
}
