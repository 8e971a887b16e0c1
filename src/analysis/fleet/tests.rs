//! The fleet's judging on synthetic runs: a slow GPU, a healthy fleet, groups, noise, one slow case, a slow SM.

use super::*;
use crate::results::model::{tests::sample_run, Amount, CaseResult};

/// A run of `device` with 40 cases, each at its rate times `scale` and a jitter of up to
/// 0.3% that differs per device `seed` and case (samples with a cv of about 0.05%).
pub(crate) fn device_run(device: &str, seed: u32, scale: f64) -> Run {
    let mut run = sample_run();
    run.device.name = device.into();
    let template = run.cases[0].clone();
    run.cases = (0..40u32)
        .map(|i| {
            let jitter = 1.0 + f64::from((seed * 7919 + i * 104_729) % 61) / 60.0 * 0.006 - 0.003;
            let rate = 1e12 * f64::from(i + 1) * scale * jitter;
            CaseResult {
                name: format!("case {i}"),
                rate: Some(Amount { value: rate, unit: "loads/s".into() }),
                samples_ms: vec![20.0, 20.01, 19.99, 20.0],
                flags: Vec::new(),
                ..template.clone()
            }
        })
        .collect();
    run
}

/// `run` with its first `n` cases in `family`.
fn in_family(mut run: Run, n: usize, family: &str) -> Run {
    run.cases.iter_mut().take(n).for_each(|c| c.family = family.into());
    run
}

fn members(runs: &[Run]) -> Vec<Member<'_>> {
    runs.iter().enumerate().map(|(i, run)| Member { label: format!("gpu{i}"), run }).collect()
}

#[test]
fn a_gpu_five_percent_slow_is_found_and_ranked_first() {
    let mut runs: Vec<Run> = (0..8).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
    runs[5] = device_run("NVIDIA H200", 5, 0.95);
    let fleet = judge(&members(&runs));
    assert_eq!(fleet.groups.len(), 1);
    let group = &fleet.groups[0];
    assert_eq!((group.judged, group.too_few), (40, 0));
    assert!(group.typical_spread.unwrap() < 0.005, "{:?}", group.typical_spread);
    assert_eq!(group.ranking[0].label, "gpu5");
    assert_eq!(group.ranking[0].slower, 40, "every case of the slow GPU");
    assert!((group.ranking[0].worst.unwrap() + 0.05).abs() < 0.005);
    assert!(group.ranking[1..].iter().all(|s| s.slower == 0 && s.faster == 0), "{:#?}", group.ranking);
    assert_eq!(fleet.slow_devices().iter().map(|s| s.label.as_str()).collect::<Vec<_>>(), ["gpu5"]);
    assert!(group.outliers.iter().all(|o| o.device == 5 && o.change < -0.04));
}

#[test]
fn a_healthy_fleet_has_no_outliers_and_a_pair_cannot_be_judged() {
    let runs: Vec<Run> = (0..8).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
    let fleet = judge(&members(&runs));
    assert!(fleet.slow_devices().is_empty() && fleet.groups[0].outliers.is_empty());
    // Two devices: 5% apart, but neither can be told to be the odd one.
    let pair = [device_run("NVIDIA H200", 0, 1.0), device_run("NVIDIA H200", 1, 0.95)];
    let fleet = judge(&members(&pair));
    assert_eq!((fleet.groups[0].judged, fleet.groups[0].too_few), (0, 40));
    assert!(fleet.slow_devices().is_empty());
    // A screen that judged nothing is no pass.
    assert!(
        matches!(fleet.conclusion(), Conclusion::Unjudged(ref d) if d.len() == 2),
        "{:?}",
        fleet.conclusion()
    );
}

#[test]
fn models_drivers_and_settings_never_mix() {
    let mut runs: Vec<Run> = (0..3).map(|i| device_run("NVIDIA H100 80GB HBM3", i, 1.0)).collect();
    runs.extend((0..3).map(|i| device_run("NVIDIA H200", i, 1.4)));
    let mut quick = device_run("NVIDIA H200", 9, 1.4);
    quick.settings.quick = true;
    runs.push(quick);
    let mut verify = device_run("NVIDIA H200", 8, 1.4);
    verify.settings.verify = true;
    runs.push(verify);
    let fleet = judge(&members(&runs));
    let devices: Vec<(&str, usize)> =
        fleet.groups.iter().map(|g| (g.key.device.as_str(), g.devices.len())).collect();
    assert_eq!(devices, [("NVIDIA H100 80GB HBM3", 3), ("NVIDIA H200", 3), ("NVIDIA H200", 1)]);
    assert_eq!(fleet.untimed, ["gpu7"]);
    assert!(fleet.slow_devices().is_empty(), "the H200's higher rates are not an H100's outliers");
}

#[test]
fn a_noisy_case_is_not_judged_and_a_small_difference_is_within_the_floor() {
    let mut runs: Vec<Run> = (0..6).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
    // Case 0 of device 2: 20% slow but its samples swing by 10%; case 1: 0.8% slow and steady.
    runs[2].cases[0].rate.as_mut().unwrap().value *= 0.8;
    runs[2].cases[0].samples_ms = vec![20.0, 22.0, 18.0, 20.0];
    runs[2].cases[1].rate.as_mut().unwrap().value *= 0.992;
    let group = &judge(&members(&runs)).groups[0];
    assert!(group.outliers.is_empty(), "{:#?}", group.outliers);
    assert_eq!(group.ranking.iter().find(|s| s.device == 2).unwrap().judged, 39);
}

#[test]
fn scattered_slow_cases_are_listed_and_a_family_past_the_tolerance_is_slow() {
    // Cases 0-9 of every device are the `alu` family, the rest `load`.
    let six =
        || -> Vec<Run> { (0..6).map(|i| in_family(device_run("NVIDIA H200", i, 1.0), 10, "alu")).collect() };
    let mut runs = six();
    // Cases 3, 14 and 25 of device 1, 10% slow: listed, and the device is healthy: no family moved.
    for i in [3, 14, 25] {
        runs[1].cases[i].rate.as_mut().unwrap().value *= 0.9;
    }
    let fleet = judge(&members(&runs));
    let one = fleet.groups[0].ranking.iter().find(|s| s.label == "gpu1").unwrap();
    assert_eq!((fleet.groups[0].outliers.len(), one.state), (3, State::Healthy));
    assert!(fleet.slow_devices().is_empty());
    assert_eq!(fleet.conclusion(), Conclusion::Healthy);
    // Its alu family 3% slow: slow, named by the family, -3%.
    for case in runs[1].cases.iter_mut().take(10) {
        case.rate.as_mut().unwrap().value *= 0.97;
    }
    let fleet = judge(&members(&runs));
    let one = fleet.groups[0].ranking.iter().find(|s| s.label == "gpu1").unwrap();
    assert_eq!(one.state, State::Slow);
    let size = one.size.as_ref().unwrap();
    assert_eq!((size.what(), size.cases), ("alu", 10));
    assert!((size.change + 0.03).abs() < 0.004, "{size:?}");
    // Only 1.5% slow: within the 2% tolerance it differs; a strict site's 1% makes it slow.
    let mut runs = six();
    for case in runs[1].cases.iter_mut().take(10) {
        case.rate.as_mut().unwrap().value *= 0.985;
    }
    let state = |fleet: &Fleet| fleet.groups[0].ranking.iter().find(|s| s.label == "gpu1").unwrap().state;
    assert_eq!(state(&judge(&members(&runs))), State::Differs);
    assert_eq!(state(&judge_with(&members(&runs), None, Some(0.01))), State::Slow);
}

#[test]
fn one_slow_sm_makes_its_gpu_slower_than_its_fleet() {
    let mut runs: Vec<Run> = (0..4).map(|i| device_run("NVIDIA H100 80GB HBM3", i, 1.0)).collect();
    for (i, run) in runs.iter_mut().enumerate() {
        let by = if i == 2 { 0.05 } else { 0.0 };
        run.cases[0].units = crate::analysis::units::tests::units(41, by);
        run.device.compute_units = Some(132);
    }
    let fleet = judge(&members(&runs));
    let group = &fleet.groups[0];
    assert!(group.outliers.is_empty(), "the GPU's own rates are the fleet's");
    assert_eq!(group.slow_units.len(), 1);
    assert_eq!((group.slow_units[0].device, group.slow_units[0].unit), (2, 41));
    assert_eq!(fleet.slow_devices().iter().map(|s| s.label.as_str()).collect::<Vec<_>>(), ["gpu2"]);
}

#[test]
fn two_runs_of_one_gpu_are_one_device_with_their_spread() {
    let mut runs: Vec<Run> = (0..4).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
    for (i, run) in runs.iter_mut().enumerate() {
        run.device.uuid = Some(format!("gpu-{}", i.min(2)));
    }
    let fleet = judge(&members(&runs));
    let group = &fleet.groups[0];
    assert_eq!(group.devices, ["gpu0", "gpu1", "gpu2"], "runs 2 and 3 are one GPU");
    let twice = group.ranking.iter().find(|s| s.label == "gpu2").unwrap();
    assert_eq!(twice.runs, 2);
    assert!(twice.run_spread.unwrap() < 0.004, "{:?}", twice.run_spread);
}

#[test]
fn a_device_with_nothing_timed_or_only_noise_cannot_be_judged() {
    let mut runs: Vec<Run> = (0..4).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
    for case in &mut runs[1].cases {
        case.status = crate::results::model::Status::Failed;
    }
    for case in &mut runs[2].cases {
        case.samples_ms = vec![20.0, 24.0, 16.0];
    }
    let fleet = judge(&members(&runs));
    let unjudged = &fleet.groups[0].unjudged;
    assert_eq!(unjudged.len(), 2, "{unjudged:?}");
    assert!(unjudged[0].why.starts_with("no case was timed (40 selected"), "{}", unjudged[0].why);
    assert!(
        unjudged[1].why.starts_with("every one of its 40 timed cases was too noisy"),
        "{}",
        unjudged[1].why
    );
    assert!(matches!(fleet.conclusion(), Conclusion::Unjudged(d) if d.len() == 2));
}

#[test]
fn one_case_that_lost_the_device_fails_its_gpu_before_any_other_verdict() {
    let mut runs: Vec<Run> = (0..4).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
    runs[3] = device_run("NVIDIA H200", 3, 0.5);
    let fleet = judge(&members(&runs));
    assert!(matches!(fleet.conclusion(), Conclusion::Unconfirmed(_)), "{:?}", fleet.conclusion());
    // GPU 2 lost the device in one case of 40 and timed the rest within its fleet.
    runs[2].cases[7].status = crate::results::model::Status::DeviceLost;
    runs[2].cases[7].rate = None;
    let fleet = judge(&members(&runs));
    assert_eq!(fleet.faulty.len(), 1, "{:?}", fleet.faulty);
    match fleet.conclusion() {
        Conclusion::Faulty(devices) => {
            assert_eq!(devices.len(), 1);
            assert!(
                devices[0].starts_with("gpu2: 1 of its 40 cases lost the device, crashed or hung: "),
                "{devices:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        fleet.groups[0].ranking.iter().find(|s| s.label == "gpu2").unwrap().judged,
        39,
        "its other cases judged"
    );
}

#[test]
fn a_slow_gpu_is_a_suspect_until_confirmed_and_the_worst_conclusion_wins() {
    use crate::analysis::confirm::{Confirmation, Rejudged, Verdict};
    let mut runs: Vec<Run> = (0..6).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
    runs[5] = device_run("NVIDIA H200", 5, 0.95);
    let mut fleet = judge(&members(&runs));
    assert!(
        matches!(fleet.conclusion(), Conclusion::Unconfirmed(ref d) if d.len() == 1 && d[0].starts_with("gpu5 (")),
        "{:?}",
        fleet.conclusion()
    );
    let confirmation = |verdict| Confirmation {
        label: "gpu5".into(),
        families: vec!["load".into()],
        alone: Rejudged::default(),
        together: None,
        with: vec!["gpu0".into()],
        at_once: false,
        verdict,
    };
    fleet.confirmations = vec![confirmation(Verdict::NotReproduced)];
    assert_eq!(fleet.conclusion(), Conclusion::Healthy);
    fleet.confirmations = vec![confirmation(Verdict::Interference)];
    assert!(matches!(fleet.conclusion(), Conclusion::Interference(d) if d == ["gpu5 (load, beside gpu0)"]));
    fleet.confirmations = vec![confirmation(Verdict::Slow)];
    assert_eq!(fleet.conclusion(), Conclusion::Slow(vec!["gpu5".into()]));
    // Measured again too noisy to judge: never a pass.
    fleet.confirmations = vec![confirmation(Verdict::Unjudgeable)];
    assert!(
        matches!(fleet.conclusion(), Conclusion::Unjudged(ref d) if d[0].starts_with("gpu5: measured again (nothing measured over 0 cases), it can neither confirm nor rule out"))
    );
    fleet.confirmations = vec![confirmation(Verdict::Slow)];
    // A device that cannot be judged comes before interference and suspects, after a slow GPU.
    fleet.shared = vec![Left { label: "gpu9".into(), why: "another process used its GPU".into() }];
    assert!(matches!(fleet.conclusion(), Conclusion::Slow(_)));
    fleet.confirmations = vec![confirmation(Verdict::Interference)];
    assert!(matches!(fleet.conclusion(), Conclusion::Unjudged(_)));
}

#[test]
fn a_board_spending_more_energy_for_the_same_work_is_named_and_a_few_percent_is_not() {
    let with_energy = |run: &mut Run, pj: f64| {
        for c in &mut run.cases {
            c.energy = Some(Box::new(crate::results::energy::CaseEnergy {
                seconds: 4.0,
                joules: 1600.0,
                measurements: 200,
                busy: None,
                per_unit: vec![Amount { value: pj, unit: "pJ/loads".into() }],
                above_idle: Vec::new(),
            }));
        }
    };
    let mut runs: Vec<Run> = (0..4).map(|i| device_run("NVIDIA H100", i, 1.0)).collect();
    for (i, pj) in [130.0, 131.0, 150.0, 134.0].into_iter().enumerate() {
        with_energy(&mut runs[i], pj);
    }
    let fleet = judge(&members(&runs));
    let hungry = &fleet.groups[0].hungry;
    assert_eq!(hungry.len(), 40, "every case of gpu2: {hungry:#?}");
    assert!(hungry.iter().all(|h| h.device == 2 && h.unit == "pJ/loads"));
    assert!((hungry[0].change - (150.0 / 132.5 - 1.0)).abs() < 1e-9, "{:?}", hungry[0]);
    // Its rates are its siblings': not slow, and the verdict does not change.
    assert!(fleet.slow_devices().is_empty());
    // 3% more is within what one card moves between sittings.
    with_energy(&mut runs[2], 136.0);
    assert!(judge(&members(&runs)).groups[0].hungry.is_empty());
}

#[test]
fn one_gpu_alone_is_judged_against_a_reference_of_its_fleet() {
    let runs: Vec<Run> = (0..8).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
    let made = reference::make(&members(&runs), "2026-11-27T00:00:00Z".into(), None);
    assert_eq!(made.models.len(), 1);
    let model = &made.models[0];
    assert_eq!((model.cases.len(), model.devices.len(), model.runs), (40, 8, 8));
    assert!(model.cases.iter().all(|e| e.basis == reference::Basis::Devices && e.values == 8));
    assert!(made.problem().is_none());
    // A healthy GPU alone (a jitter of its own), then one 5% slow alone.
    let healthy = [device_run("NVIDIA H200", 11, 1.0)];
    let fleet = judge_against(&members(&healthy), Some(&made));
    assert_eq!((fleet.groups[0].judged, fleet.groups[0].too_few), (40, 0));
    assert!(fleet.groups[0].reference.is_some());
    assert_eq!(fleet.conclusion(), Conclusion::Healthy, "{:#?}", fleet.groups[0].outliers);
    let slow = [device_run("NVIDIA H200", 11, 0.95)];
    let fleet = judge_against(&members(&slow), Some(&made));
    assert_eq!(fleet.groups[0].ranking[0].slower, 40);
    assert!(matches!(fleet.conclusion(), Conclusion::Unconfirmed(_)), "{:?}", fleet.conclusion());
}

#[test]
fn a_reference_of_one_gpu_takes_its_runs_and_a_model_it_lacks_is_not_judged() {
    let runs: Vec<Run> = (0..3).map(|i| device_run("NVIDIA H100", i, 1.0)).collect();
    // One GPU (one UUID) measured three times.
    let runs: Vec<Run> = runs
        .into_iter()
        .map(|mut r| {
            r.device.uuid = Some("0000".into());
            r
        })
        .collect();
    let made = reference::make(&members(&runs), "2026-11-27T00:00:00Z".into(), None);
    assert_eq!(made.models[0].devices.len(), 1);
    assert!(made.models[0].cases.iter().all(|e| e.basis == reference::Basis::Runs && e.values == 3));
    // Two runs make no reference: a case needs three values.
    assert!(reference::make(&members(&runs[..2]), String::new(), None).models.is_empty());
    // Another driver: judged against the model still, and said; another device: not judged.
    let mut other_driver = device_run("NVIDIA H100", 5, 1.0);
    other_driver.device.driver = "NVIDIA 999.1".into();
    let fleet = judge_against(&members(std::slice::from_ref(&other_driver)), Some(&made));
    assert_eq!(fleet.groups[0].reference.as_ref().unwrap().driver, runs[0].device.driver);
    let h200 = [device_run("NVIDIA H200", 5, 1.0)];
    let fleet = judge_against(&members(&h200), Some(&made));
    assert!(fleet.groups.is_empty() && fleet.unreferenced.len() == 1, "{fleet:#?}");
    assert!(matches!(fleet.conclusion(), Conclusion::Unjudged(_)));
    // A reference edited past belief is refused with the figure named.
    let mut edited = made.clone();
    edited.models[0].cases[3].median = -1.0;
    assert!(edited.problem().unwrap().contains("case 3"), "{:?}", edited.problem());
}

#[test]
fn a_reference_of_two_gpus_says_nothing_and_one_that_lacks_every_case_judges_nothing() {
    // Two GPUs, one 10% slow: pooled, their runs would hide it; the reference takes neither.
    let mut pair: Vec<Run> = Vec::new();
    for (i, scale) in [(0u32, 1.0), (1, 0.9)] {
        for n in 0..3 {
            let mut run = device_run("NVIDIA H100", i * 10 + n, scale);
            run.device.uuid = Some(format!("gpu{i}"));
            pair.push(run);
        }
    }
    assert!(reference::make(&members(&pair), String::new(), None).models.is_empty());
    // A reference made before the cases were renamed: the run is not judged, and says why.
    let runs: Vec<Run> = (0..4).map(|i| device_run("NVIDIA H100", i, 1.0)).collect();
    let made = reference::make(&members(&runs), String::new(), None);
    let mut renamed = device_run("NVIDIA H100", 9, 1.0);
    renamed.cases.iter_mut().for_each(|c| c.name = format!("new {}", c.name));
    let fleet = judge_against(&members(std::slice::from_ref(&renamed)), Some(&made));
    assert!(fleet.groups[0].unjudged[0].why.starts_with("the reference holds none of its timed cases"));
    assert!(matches!(fleet.conclusion(), Conclusion::Unjudged(_)));
    // Noisy as well: the missing cases are the cause named, not the noise.
    renamed.cases.iter_mut().for_each(|c| c.samples_ms = vec![20.0, 26.0, 14.0, 20.0]);
    let fleet = judge_against(&members(std::slice::from_ref(&renamed)), Some(&made));
    let why = &fleet.groups[0].unjudged[0].why;
    assert!(why.starts_with("the reference holds none of its timed cases"), "{why}");
}

#[test]
fn against_a_reference_a_gpu_judged_in_too_few_of_its_cases_is_not_called_healthy() {
    let runs: Vec<Run> = (0..4).map(|i| device_run("NVIDIA H100", i, 1.0)).collect();
    let made = reference::make(&members(&runs), String::new(), None);
    // 30 of its 40 cases too noisy (a cv of 10%): 10 judged, under half.
    let mut noisy = device_run("NVIDIA H100", 9, 1.0);
    for case in noisy.cases.iter_mut().take(30) {
        case.samples_ms = vec![20.0, 24.0, 16.0];
    }
    let fleet = judge_against(&members(std::slice::from_ref(&noisy)), Some(&made));
    let unjudged = &fleet.groups[0].unjudged;
    assert!(
        unjudged[0].why.starts_with("only 10 of its 40 cases in the reference could be judged"),
        "{unjudged:?}"
    );
    assert!(!unjudged[0].broken, "noise is no reason to drain");
    // Every case failed: broken.
    let mut failed = device_run("NVIDIA H100", 9, 1.0);
    failed.cases.iter_mut().for_each(|c| c.status = crate::results::model::Status::Failed);
    let fleet = judge_against(&members(std::slice::from_ref(&failed)), Some(&made));
    assert!(fleet.groups[0].unjudged[0].broken);
}

#[test]
fn a_noisy_case_counts_against_its_gpu_only_where_it_is_slow_beyond_its_noise() {
    let mut runs: Vec<Run> = (0..4).map(|i| device_run("NVIDIA H200", i, 1.0)).collect();
    // GPU 3 half as fast, every sample 10% noisy (cv above NOISY): slow beyond three times that.
    runs[3] = device_run("NVIDIA H200", 3, 0.5);
    for run in &mut runs[2..] {
        for case in &mut run.cases {
            case.samples_ms = vec![20.0, 22.0, 18.0];
        }
    }
    let fleet = judge(&members(&runs));
    let standing = |label: &str| fleet.groups[0].ranking.iter().find(|s| s.label == label).unwrap().clone();
    let (slow, noisy) = (standing("gpu3"), standing("gpu2"));
    assert_eq!((slow.judged, slow.slower, slow.slow), (40, 40, true), "decisive evidence, noisy or not");
    assert_eq!(noisy.judged, 0, "a noisy GPU within its noise vouches for nothing");
    assert!(fleet.groups[0].unjudged.iter().any(|u| fleet.groups[0].devices[u.device] == "gpu2"));
}

#[test]
fn a_reference_judges_a_run_alone_weighs_no_heavy_case_and_refuses_wide_spreads() {
    // Cases 0-9 of every run are the `alu` family.
    let alu = |run: Run| in_family(run, 10, "alu");
    let runs: Vec<Run> = (0..4).map(|i| alu(device_run("NVIDIA H200", i, 1.0))).collect();
    let made = reference::make(&members(&runs), "2026-11-28T00:00:00Z".into(), None);
    assert!(reference::too_wide(&made, TOLERANCE).is_empty());
    // A run of an --all-devices screen judged alone: its siblings' absence is no verdict.
    let mut alone = alu(device_run("NVIDIA H200", 9, 1.0));
    alone.host = Some("node3".into());
    alone.together =
        vec![crate::results::model::Peer { name: "NVIDIA H200".into(), slot: Some("0000:07:00.0".into()) }];
    let fleet = judge_against(&members(std::slice::from_ref(&alone)), Some(&made));
    assert!(fleet.missing.is_empty());
    assert_eq!(fleet.conclusion(), Conclusion::Healthy);
    // Cases 0-9 slow by 30%: slow; but where the reference saw healthy runs stray 40% in them,
    // they weigh in no effect (30% is within that tail).
    for case in alone.cases.iter_mut().take(10) {
        case.rate.as_mut().unwrap().value *= 0.7;
    }
    let fleet = judge_against(&members(std::slice::from_ref(&alone)), Some(&made));
    assert!(matches!(fleet.conclusion(), Conclusion::Unconfirmed(_)), "{:?}", fleet.conclusion());
    let mut heavy = made.clone();
    for e in heavy.models[0].cases.iter_mut().take(10) {
        e.tail = Some(0.4);
    }
    let fleet = judge_against(&members(std::slice::from_ref(&alone)), Some(&heavy));
    assert_eq!(fleet.groups[0].ranking[0].state, State::Healthy, "within its tail: listed, no verdict");
    assert_eq!(fleet.groups[0].outliers.len(), 10);
    // Spreads of 5% against a 2% tolerance: too wide to make a reference of.
    for e in heavy.models[0].cases.iter_mut() {
        e.spread = 0.05 * e.median;
    }
    assert_eq!(reference::too_wide(&heavy, TOLERANCE), ["NVIDIA H200: 5.00% typical spread"]);
}

#[test]
fn a_family_of_wild_cases_is_judged_beyond_their_tails_and_a_tiny_sure_difference_is_no_verdict() {
    // Cases 0-4 are `dispatch`; the reference saw healthy runs of three of them stray 3%, 6% and
    // 34% (host-bound round trips), so they weigh in only beyond those tails.
    let family = |run: Run| in_family(run, 5, "dispatch");
    let runs: Vec<Run> = (0..4).map(|i| family(device_run("NVIDIA H200", i, 1.0))).collect();
    let mut made = reference::make(&members(&runs), "2026-11-28T00:00:00Z".into(), None);
    for (e, tail) in made.models[0].cases.iter_mut().zip([0.0, 0.03, 0.06, 0.34]) {
        e.tail = Some(tail);
    }
    let judged = |run: &Run| {
        let fleet = judge_against(&members(std::slice::from_ref(run)), Some(&made));
        fleet.groups[0].ranking[0].clone()
    };
    // 10% slow in the family: cases 0 and 4 (tight) -10%, then -7%, -4%, and case 3 within its
    // tail (0): median -7%.
    let mut slow = family(device_run("NVIDIA H200", 7, 1.0));
    slow.cases.iter_mut().take(5).for_each(|c| c.rate.as_mut().unwrap().value *= 0.9);
    let standing = judged(&slow);
    assert_eq!(standing.state, State::Slow, "{:?}", standing.effects);
    let size = standing.size.unwrap();
    assert_eq!((size.what(), size.cases), ("dispatch", 5));
    assert!((size.change + 0.07).abs() < 0.005, "{size:?}");
    // A healthy run whose wild cases sit within their tails (5% and 30% slow) reads as no change.
    let mut wild = family(device_run("NVIDIA H200", 8, 1.0));
    wild.cases[2].rate.as_mut().unwrap().value *= 0.95;
    wild.cases[3].rate.as_mut().unwrap().value *= 0.7;
    assert_eq!(judged(&wild).state, State::Healthy);
    // Every case 0.3% slower, beyond 5 of its uncertainties (0.02%): sure, and too small to differ.
    let mut tiny = family(device_run("NVIDIA H200", 9, 1.0));
    for (case, e) in tiny.cases.iter_mut().zip(&made.models[0].cases) {
        case.rate.as_mut().unwrap().value = e.median * 0.997;
    }
    let fleet = judge_against(&members(std::slice::from_ref(&tiny)), Some(&made));
    let standing = &fleet.groups[0].ranking[0];
    assert!(standing.effects.iter().any(|e| e.significant()), "{:?}", standing.effects);
    assert_eq!(standing.state, State::Healthy);
}

#[test]
fn a_family_too_wild_to_judge_among_siblings_is_named_on_every_device_never_passed() {
    // Cases 0-4 are `dispatch` and stray up to 8% from device to device; gpu0 is 10% slow in them.
    let runs: Vec<Run> = (0..6u32)
        .map(|i| {
            let mut run = in_family(device_run("NVIDIA H200", i, 1.0), 5, "dispatch");
            run.device.uuid = Some(format!("{i:08x}"));
            for (k, case) in run.cases.iter_mut().take(5).enumerate() {
                let stray = [0.0, 0.08, -0.06, 0.05, -0.08, 0.03][(i as usize + k) % 6];
                let slow = if i == 0 { 0.9 } else { 1.0 };
                case.rate.as_mut().unwrap().value *= (1.0 + stray) * slow;
            }
            run
        })
        .collect();
    let fleet = judge(&members(&runs));
    let group = &fleet.groups[0];
    let gpu0 = group.ranking.iter().find(|s| s.label == "gpu0").unwrap();
    assert_ne!(gpu0.state, State::Slow, "{:?}", gpu0.effects);
    assert_eq!(
        gpu0.unresolved.iter().map(Effect::what).collect::<Vec<_>>(),
        ["dispatch"],
        "{:?}",
        gpu0.effects
    );
    assert!(gpu0.unresolved_text().starts_with("dispatch -"), "{}", gpu0.unresolved_text());
    // The verdict says so, for every format, and the metrics count it.
    let text = crate::report::sections::fleet::to_text(&fleet);
    assert!(text.contains("[not judged: dispatch"), "{text}");
    assert!(text.contains("not judged on"), "{text}");
    let metrics = crate::report::prometheus::render(&fleet, &members(&runs));
    let counted: Vec<&str> =
        metrics.lines().filter(|l| l.starts_with("perftest_gpu_unjudged_families{")).collect();
    assert_eq!(counted.len(), 6, "{metrics}");
    for s in &group.ranking {
        let uuid = format!("{:08x}\"", s.label[3..].parse::<u32>().unwrap());
        let line = counted.iter().find(|l| l.contains(&uuid)).unwrap();
        assert!(line.ends_with(&format!(" {}", s.unresolved.len())), "{line}");
    }
}

/// `run` with its first case keeping fingerprint `print` (the sdc family's transcendentals).
fn printed(mut run: Run, print: u32) -> Run {
    run.cases[0].faults = Some(crate::record::faults::FaultCount {
        checked: 1000,
        fingerprint: Some(print),
        ..Default::default()
    });
    run
}

#[test]
fn a_gpu_whose_transcendental_bits_differ_from_its_siblings_is_corrupt() {
    let runs: Vec<Run> =
        (0..5).map(|i| printed(device_run("NVIDIA H200", i, 1.0), if i == 3 { 7 } else { 42 })).collect();
    let fleet = judge(&members(&runs));
    let Conclusion::Corrupt(devices) = fleet.conclusion() else { panic!("{:?}", fleet.conclusion()) };
    assert_eq!(devices.len(), 1, "{devices:?}");
    assert!(devices[0].starts_with("gpu3: case 0: its bits (fingerprint 0x00000007)"), "{devices:?}");
    assert!(
        devices[0].contains("those of 4 of its 4 siblings") && devices[0].contains("0x0000002a"),
        "{devices:?}"
    );
    assert!(fleet.groups[0].same_bits.is_empty(), "one GPU differs: the bits are not the same");
    // Every GPU the same: healthy, and the group says which bits all computed.
    let same: Vec<Run> = (0..5).map(|i| printed(device_run("NVIDIA H200", i, 1.0), 42)).collect();
    let fleet = judge(&members(&same));
    assert_eq!(fleet.conclusion(), Conclusion::Healthy);
    let expected = SameBits { case: "case 0".into(), fingerprint: 42, devices: 5, runs: 5, reference: false };
    assert_eq!(fleet.groups[0].same_bits, [expected]);
    // Two that differ: neither can be told to be right, and neither passes.
    let mut pair: Vec<Run> =
        (0..4).map(|i| printed(device_run("NVIDIA H200", i, 1.0), if i < 2 { 1 } else { 2 })).collect();
    let fleet = judge(&members(&pair));
    let Conclusion::Unjudged(why) = fleet.conclusion() else { panic!("{:?}", fleet.conclusion()) };
    assert_eq!(why.len(), 4, "{why:?}");
    assert!(why[0].contains("no majority says which are right"), "{why:?}");
    // One GPU whose own runs differ.
    pair[1] = printed(device_run("NVIDIA H200", 0, 1.0), 9);
    pair[1].device.uuid = pair[0].device.uuid.clone().or(Some("gpu-0".into()));
    pair[0].device.uuid = pair[1].device.uuid.clone();
    let fleet = judge(&members(&pair));
    let Conclusion::Corrupt(devices) = fleet.conclusion() else { panic!("{:?}", fleet.conclusion()) };
    assert!(
        devices.iter().any(|d| d.contains("its runs computed different bits (0x00000001, 0x00000009)")),
        "{devices:?}"
    );
}

#[test]
fn a_reference_keeps_the_fingerprint_all_agreed_on_and_holds_a_gpu_to_it() {
    let runs: Vec<Run> = (0..4).map(|i| printed(device_run("NVIDIA H200", i, 1.0), 42)).collect();
    let made = reference::make(&members(&runs), "2026-11-29T00:00:00Z".into(), None);
    assert_eq!(made.models[0].case("case 0").unwrap().fingerprint, Some(42));
    assert_eq!(made.models[0].case("case 1").unwrap().fingerprint, None, "a case without one keeps none");
    let healthy = [printed(device_run("NVIDIA H200", 11, 1.0), 42)];
    let fleet = judge_against(&members(&healthy), Some(&made));
    assert_eq!(fleet.conclusion(), Conclusion::Healthy);
    assert!(fleet.groups[0].same_bits.iter().all(|s| s.reference && s.fingerprint == 42 && s.runs == 1));
    assert_eq!(fleet.groups[0].same_bits.len(), 1);
    let wrong = [printed(device_run("NVIDIA H200", 11, 1.0), 43)];
    let fleet = judge_against(&members(&wrong), Some(&made));
    assert!(fleet.groups[0].same_bits.is_empty(), "its bits are not the reference's");
    let Conclusion::Corrupt(devices) = fleet.conclusion() else { panic!() };
    assert!(devices[0].contains("differ from the reference's (0x0000002a)"), "{devices:?}");
    // A screen whose GPUs disagree keeps no fingerprint.
    let mut mixed = runs.clone();
    mixed[2] = printed(device_run("NVIDIA H200", 2, 1.0), 43);
    let made = reference::make(&members(&mixed), "2026-11-29T00:00:00Z".into(), None);
    assert_eq!(made.models[0].case("case 0").unwrap().fingerprint, None);
}
