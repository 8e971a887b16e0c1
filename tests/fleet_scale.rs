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

/// Per mode, the share of `trials` fleets of `size` (GPU 0 carrying `plant`) that exit non-zero
/// and that find GPU 0 slow; each fleet and its reference drawn once and judged in every mode.
fn screens(
    pools: &[Pool],
    model: Model,
    size: usize,
    plant: &Plant,
    trials: usize,
    seed: u64,
) -> Vec<(f64, f64)> {
    let mut rng = Draw::new(seed);
    let mut counts = [(0usize, 0usize); 3];
    for _ in 0..trials {
        let made = reference(pools, model, &mut rng);
        let runs = draw(pools, model, size, plant, &mut rng);
        for (mode, count) in MODES.iter().zip(counts.iter_mut()) {
            let screen = judge(&runs, pools, model, *mode, plant, &made, &mut rng);
            count.0 += usize::from(screen.alarm);
            count.1 += usize::from(screen.found);
        }
    }
    counts.iter().map(|(a, f)| (*a as f64 / trials as f64, *f as f64 / trials as f64)).collect()
}

#[test]
fn healthy_quick_fleets_pass_and_a_gpu_three_percent_slow_is_found() {
    let pools = quick();
    for model in MODELS {
        for size in [4, 16, 64] {
            let healthy = screens(&pools, model, size, &Plant::None, 20, 1);
            let slow = screens(&pools, model, size, &Plant::Every(0.03), 10, 2);
            for ((mode, (alarms, _)), (_, found)) in MODES.iter().zip(healthy).zip(slow) {
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

/// How many healthy screens of `size` GPUs the table draws: `FLEET_SCALE_SCREENS`, else fewer the
/// larger the fleet (a screen of 1,024 full runs takes about 20 s on two cores).
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
    println!("| runs | GPU built from | GPUs | healthy screens | non-zero (fleet, reference, health) | planted screens | every case 3% slow found | a 10-case family 3% slow found | a 5-case family 10% slow found |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (name, pools) in [("quick", quick()), ("full", full())] {
        let families: Vec<(String, usize)> = pools.iter().flat_map(Pool::families).collect();
        let ten = families.iter().filter(|(_, n)| *n >= 10).min_by_key(|(_, n)| *n).cloned().unwrap();
        let five = families.iter().filter(|(_, n)| *n >= 5).min_by_key(|(_, n)| *n).cloned().unwrap();
        eprintln!("{name}: {} runs, families {families:?}", pools.iter().map(Pool::runs).sum::<usize>());
        for model in MODELS {
            for size in sizes(name) {
                let trials = screens_of(name, size);
                let three = |v: Vec<(f64, f64)>, alarm: bool| {
                    v.iter()
                        .map(|(a, f)| format!("{:.0}%", 100.0 * if alarm { *a } else { *f }))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let seed = size as u64 * 10;
                let healthy = screens(&pools, model, size, &Plant::None, trials, seed);
                let plants = [
                    Plant::Every(0.03),
                    Plant::Family(ten.0.clone(), 0.03),
                    Plant::Family(five.0.clone(), 0.10),
                ];
                let found: Vec<String> = plants
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        three(
                            screens(&pools, model, size, p, trials.min(found_in()), seed + 1 + i as u64),
                            false,
                        )
                    })
                    .collect();
                println!(
                    "| {name} | {model:?} | {size} | {trials} | {} | {} | {} | {} ({}) | {} ({}) |",
                    three(healthy, true),
                    trials.min(found_in()),
                    found[0],
                    found[1],
                    ten.0,
                    found[2],
                    five.0
                );
            }
        }
    }
}

#[test]
fn a_family_of_wild_cases_ten_percent_slow_is_found_in_full_runs() {
    // `dispatch`: 5 cases, four of which stray 2-34% between healthy H100 runs.
    let pools = full();
    for model in MODELS {
        let healthy = screens(&pools, model, 4, &Plant::None, 10, 3);
        let slow = screens(&pools, model, 4, &Plant::Family("dispatch".into(), 0.10), 10, 4);
        for ((mode, (alarms, _)), (_, found)) in MODES.iter().zip(healthy).zip(slow) {
            assert!(alarms <= 0.1, "{model:?} {mode:?}: {alarms} false alarms");
            if *mode == Mode::Reference {
                assert!(found >= 0.8, "{model:?} {mode:?}: dispatch 10% slow found in {found}");
            }
        }
    }
}
