//! Verdicts at fleet scale, on fleets built from the committed H100 runs (`fleet_scale/sim.rs`):
//! a healthy fleet exits 0 whatever its size, and a slow GPU is found, under `fleet`,
//! `--reference` and `health`. The small form runs here; the study's table is the long form:
//! `cargo test --release --test fleet_scale -- --ignored --nocapture`.

#[path = "fleet_scale/sim.rs"]
mod sim;

use perftest::results::model::Run;
use sim::{draw, judge, reference, Draw, Mode, Model, Plant, Pool};

const H100: &str = "NVIDIA H100 80GB HBM3";

/// The committed `--quick` runs of H100s (many GPUs, hosts and days).
fn quick() -> Vec<Pool> {
    vec![Pool::find(|r: &Run| r.device.name == H100 && r.settings.quick && r.settings.samples == 5)]
}

/// The committed full runs of H100s, in their two halves (`results/half-the-time/`, `report/`).
fn full() -> Vec<Pool> {
    let half = |first: &'static str| {
        move |r: &Run| {
            r.device.name == H100
                && !r.settings.quick
                && r.settings.families.first().map(String::as_str) == Some(first)
                && r.settings.samples == 10
        }
    };
    vec![Pool::find(half("load")), Pool::find(half("branch"))]
}

const MODES: [Mode; 3] = [Mode::Fleet, Mode::Reference, Mode::Health];
const MODELS: [Model; 2] = [Model::PerCase, Model::WholeRun];

/// Of a set of screens judged in one mode, the shares that exit non-zero, that find GPU 0 slow,
/// and that pass it as healthy.
#[derive(Clone, Copy, Debug, Default)]
struct Shares {
    alarm: f64,
    found: f64,
    passed: f64,
}

/// Per mode, the share of `trials` fleets of `size` (GPU 0 carrying `plant`) that exit non-zero,
/// that find GPU 0 slow, and that pass it (neither found nor its slow family named as not
/// judged); each fleet and its reference drawn once (trial `t` from seed `seed` and `t`, so that
/// the shares do not depend on how many threads draw them) and judged in every mode.
fn screens(
    pools: &[Pool],
    model: Model,
    size: usize,
    plant: &Plant,
    trials: usize,
    seed: u64,
) -> Vec<Shares> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(trials.max(1));
    // Per thread, per mode: screens that alarmed, found GPU 0, passed it.
    let counts: Vec<[[usize; 3]; 3]> = std::thread::scope(|scope| {
        let each: Vec<_> = (0..threads)
            .map(|first| {
                scope.spawn(move || {
                    let mut counts = [[0usize; 3]; 3];
                    for trial in (first..trials).step_by(threads) {
                        let mut rng = Draw::new(seed.wrapping_mul(1_000_003).wrapping_add(trial as u64));
                        let made = reference(pools, model, &mut rng);
                        let runs = draw(pools, model, size, plant, &mut rng);
                        let judged = judge(&runs, pools, model, plant, &made, &mut rng);
                        for (screen, count) in judged.iter().zip(counts.iter_mut()) {
                            for (n, seen) in count.iter_mut().zip([screen.alarm, screen.found, screen.passed])
                            {
                                *n += usize::from(seen);
                            }
                        }
                    }
                    counts
                })
            })
            .collect();
        each.into_iter().map(|h| h.join().expect("a simulating thread panicked")).collect()
    });
    let share =
        |m: usize, k: usize| counts.iter().map(|c| c[m][k]).sum::<usize>() as f64 / trials.max(1) as f64;
    (0..3).map(|m| Shares { alarm: share(m, 0), found: share(m, 1), passed: share(m, 2) }).collect()
}

#[test]
fn healthy_quick_fleets_pass_and_a_gpu_three_percent_slow_is_found() {
    let pools = quick();
    for model in MODELS {
        for size in [4, 16, 64] {
            let healthy = screens(&pools, model, size, &Plant::None, 20, 1);
            let slow = screens(&pools, model, size, &Plant::Every(0.03), 10, 2);
            for ((mode, healthy), slow) in MODES.iter().zip(healthy).zip(slow) {
                let (alarms, found) = (healthy.alarm, slow.found);
                assert!(alarms <= 0.05, "{model:?} {mode:?} {size}: {alarms} false alarms");
                assert!(found >= 0.9, "{model:?} {mode:?} {size}: 3% slow found in {found}");
            }
        }
    }
}

/// The fleet sizes of the table for the `quick` or `full` runs: 4 to 1,024, or as
/// `FLEET_SCALE_QUICK` and `FLEET_SCALE_FULL` list them (`4,16,64`; empty: none).
fn sizes(name: &str) -> Vec<usize> {
    let given = std::env::var(format!("FLEET_SCALE_{}", name.to_uppercase())).ok();
    given.map_or(vec![4, 16, 64, 256, 1024], |list| list.split(',').filter_map(|s| s.parse().ok()).collect())
}

/// The ways of building a GPU the table uses: both, or the one `FLEET_SCALE_MODEL` names
/// (`PerCase`, `WholeRun`).
fn models() -> Vec<Model> {
    let given = std::env::var("FLEET_SCALE_MODEL").ok();
    MODELS.into_iter().filter(|m| given.as_ref().is_none_or(|g| *g == format!("{m:?}"))).collect()
}

/// How many healthy screens of `size` GPUs the table draws: `FLEET_SCALE_SCREENS`, else fewer the
/// larger the fleet (a screen of 1,024 full runs takes about 10 s of one core; screens are drawn
/// on every core).
fn screens_of(name: &str, size: usize) -> usize {
    if let Some(n) = std::env::var("FLEET_SCALE_SCREENS").ok().and_then(|n| n.parse().ok()) {
        return n;
    }
    match (name, size) {
        (_, 4 | 16) => 100,
        ("quick", 64 | 256) | ("full", 64) => 50,
        ("quick", _) | ("full", 256) => 20,
        _ => 5,
    }
}

/// How many screens with a GPU planted slow the table draws at most: `FLEET_SCALE_FOUND`, else 20.
fn found_in() -> usize {
    std::env::var("FLEET_SCALE_FOUND").ok().and_then(|n| n.parse().ok()).unwrap_or(20)
}

#[test]
#[ignore = "the study's table: many minutes in release"]
fn the_table() {
    println!("| runs | GPU built from | GPUs | healthy screens | non-zero (fleet, reference, health) | planted screens | every case 3% slow found | a 10-case family 3% slow found | a 5-case family 10% slow found | passed as healthy |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (name, pools) in [("quick", quick()), ("full", full())] {
        let families: Vec<(String, usize)> = pools.iter().flat_map(Pool::families).collect();
        let ten = families.iter().filter(|(_, n)| *n >= 10).min_by_key(|(_, n)| *n).cloned().unwrap();
        let five = families.iter().filter(|(_, n)| *n >= 5).min_by_key(|(_, n)| *n).cloned().unwrap();
        eprintln!("{name}: {} runs, families {families:?}", pools.iter().map(Pool::runs).sum::<usize>());
        for model in models() {
            for size in sizes(name) {
                let trials = screens_of(name, size);
                // One share per mode: `0%, 0%, 0%`.
                let three = |shares: &mut dyn Iterator<Item = f64>| {
                    shares.map(|s| format!("{:.0}%", 100.0 * s)).collect::<Vec<_>>().join(", ")
                };
                let seed = size as u64 * 10;
                let healthy = screens(&pools, model, size, &Plant::None, trials, seed);
                let plants = [
                    Plant::Every(0.03),
                    Plant::Family(ten.0.clone(), 0.03),
                    Plant::Family(five.0.clone(), 0.10),
                ];
                let planted: Vec<Vec<Shares>> = plants
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        screens(&pools, model, size, p, trials.min(found_in()), seed + 1 + i as u64)
                    })
                    .collect();
                let none = trials.min(found_in()) == 0;
                let found: Vec<String> = match none {
                    true => vec!["-".to_owned(); planted.len()],
                    false => planted.iter().map(|v| three(&mut v.iter().map(|s| s.found))).collect(),
                };
                // The largest share of any plant passed as healthy, per mode.
                let mut passed = (0..3).map(|m| planted.iter().map(|v| v[m].passed).fold(0.0, f64::max));
                println!(
                    "| {name} | {model:?} | {size} | {trials} | {} | {} | {} | {} ({}) | {} ({}) | {} |",
                    three(&mut healthy.iter().map(|s| s.alarm)),
                    trials.min(found_in()),
                    found[0],
                    found[1],
                    ten.0,
                    found[2],
                    five.0,
                    if none { "-".to_owned() } else { three(&mut passed) }
                );
            }
        }
    }
}

#[test]
fn a_family_of_wild_cases_ten_percent_slow_is_found_or_named_never_passed() {
    // `dispatch`: 5 cases, four of which stray 2-34% between healthy H100 runs.
    let pools = full();
    for model in MODELS {
        let healthy = screens(&pools, model, 4, &Plant::None, 10, 3);
        let slow = screens(&pools, model, 4, &Plant::Family("dispatch".into(), 0.10), 10, 4);
        for ((mode, healthy), slow) in MODES.iter().zip(healthy).zip(slow) {
            let (alarms, found, passed) = (healthy.alarm, slow.found, slow.passed);
            assert!(alarms <= 0.1, "{model:?} {mode:?}: {alarms} false alarms");
            assert_eq!(passed, 0.0, "{model:?} {mode:?}: dispatch 10% slow passed as healthy");
            if *mode == Mode::Reference {
                assert!(found >= 0.8, "{model:?} {mode:?}: dispatch 10% slow found in {found}");
            }
        }
    }
}
