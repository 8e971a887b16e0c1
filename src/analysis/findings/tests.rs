//! The rules on the runs in results/: what each says on the H100, the H200 and lavapipe.

use super::*;

/// The run in `path` (relative to the repository), its parts combined as the report combines them.
fn run(paths: &[&str]) -> Run {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let runs: Vec<Run> = paths.iter().map(|p| crate::results::load(&root.join(p)).unwrap()).collect();
    let labels: Vec<String> = paths.iter().map(|p| (*p).to_owned()).collect();
    crate::analysis::parts::combine(&labels, runs).1.remove(0)
}

fn find<'f>(found: &'f [Finding], id: &str) -> &'f Finding {
    found.iter().find(|f| f.id == id).unwrap_or_else(|| panic!("no {id} finding in {found:#?}"))
}

#[test]
fn the_h100_run_says_raw_and_structured_beat_typed_and_where_its_caches_end() {
    let h100 = run(&["results/report/h100/parta.json", "results/report/h100/partb.json"]);
    let found = of(&h100);
    let loads = find(&found, "typed-raw-structured");
    assert!(loads.text.starts_with("4-byte linear loads: structured is fastest"), "{}", loads.text);
    assert_eq!(loads.evidence.len(), 6);
    let levels = find(&found, "cache-levels");
    assert!(
        levels.text.contains("L1") && levels.text.contains("L2") && levels.text.contains("DRAM"),
        "{}",
        levels.text
    );
    assert!(levels.text.contains("of the H100 SXM5 80GB datasheet's 3.35 TB/s"), "{}", levels.text);
    let atomics = find(&found, "atomics");
    assert!(
        atomics.text.contains("subgroupAdd, then one atomic) gives the same rate as the contended adds"),
        "{}",
        atomics.text
    );
    let staging = find(&found, "shared-staging");
    assert!(
        staging.text.contains(" of 63 type, size and mask pairs") && staging.text.contains("at best"),
        "{}",
        staging.text
    );
    let peaks = find(&found, "compute-peaks");
    assert!(peaks.text.contains("fp32 FMA 9") && peaks.text.contains("the best GEMM"), "{}", peaks.text);
    assert!(find(&found, "copies").text.contains("gives 3.5"), "{}", find(&found, "copies").text);
    for f in &found {
        assert!(!f.text.contains("NaN") && !f.text.contains("inf"), "{f:?}");
        for (case, _) in &f.evidence {
            assert!(h100.cases.iter().any(|c| &c.name == case), "{case}");
        }
    }
}

#[test]
fn the_best_against_peak_is_never_a_data_variant() {
    let mut h100 = run(&["results/report/h100/parta.json", "results/report/h100/partb.json"]);
    let best = |run: &Run| {
        let found = of(run);
        let peaks = find(&found, "compute-peaks").text.clone();
        peaks.split("the best cooperative-matrix multiply-add ").nth(1).unwrap_or_default().to_owned()
    };
    let before = best(&h100);
    let fastest = h100
        .cases
        .iter()
        .filter(|c| c.family == "coopmat" && c.peak_percent.is_some())
        .max_by(|a, b| a.peak_percent.unwrap().total_cmp(&b.peak_percent.unwrap()))
        .unwrap()
        .clone();
    let mut zeros = fastest.clone();
    zeros.name = format!("{} on zeros", fastest.name);
    zeros.labels.insert(crate::registry::data::AXIS.to_owned(), "zeros".to_owned());
    zeros.peak_percent = zeros.peak_percent.map(|p| p * 1.2);
    h100.cases.push(zeros);
    let after = best(&h100);
    assert!(before.contains(&fastest.name) && !after.contains("on zeros"), "{before} / {after}");
    assert_eq!(before, after);
}

#[test]
fn the_h200_datasheet_is_its_own() {
    let found = of(&run(&["results/report/h200/parta.json", "results/report/h200/partb.json"]));
    assert!(find(&found, "cache-levels").text.contains("H200 SXM 141GB datasheet's 4.80 TB/s"));
}

#[test]
fn a_last_level_above_the_datasheet_is_not_called_dram() {
    // A --quick sweep's last level on an H200 read 4.92 TB/s: its 128 MiB still hit the L2.
    let mut h200 = run(&["results/report/h200/parta.json", "results/report/h200/partb.json"]);
    let sweep = h200.levels.iter_mut().find(|l| l.variant == "Sweep SSBO vec4 linear").unwrap();
    sweep.levels.iter_mut().find(|l| l.name == "DRAM").unwrap().rate = 4.92e12;
    let text = find(&of(&h200), "cache-levels").text.clone();
    assert!(text.contains("; the last level 4.92 TB/s from "), "{text}");
    assert!(text.contains("that is 102% of the H200 SXM 141GB datasheet's 4.80 TB/s"), "{text}");
    assert!(text.contains("so it is no DRAM rate") && !text.contains("DRAM reads reach"), "{text}");
}

#[test]
fn lavapipe_gets_no_peak_or_datasheet_claims_and_its_noise_is_said() {
    let found = of(&run(&["results/report/lavapipe/run.json"]));
    assert!(found.iter().all(|f| f.id != "compute-peaks"), "lavapipe has no peaks: {found:#?}");
    let levels = find(&found, "cache-levels");
    assert!(!levels.text.contains("datasheet"), "{}", levels.text);
    assert!(find(&found, "flagged").text.contains("noisy"), "lavapipe's samples are noisy");
    let loads = find(&found, "typed-raw-structured");
    assert!(
        loads.text.contains("flagged: rerun before acting on it"),
        "lavapipe's noise is said: {}",
        loads.text
    );
}

#[test]
fn a_cpu_driver_says_what_it_is_and_gives_no_advice() {
    let lavapipe = run(&["results/report/lavapipe/run.json"]);
    let found = of(&lavapipe);
    let broadcast = find(&found, "subgroup-broadcast");
    assert!(
        !broadcast.text.contains("use it") && !broadcast.text.contains("does not pay"),
        "{}",
        broadcast.text
    );
    for f in found.iter().filter(|f| f.id != "flagged") {
        assert!(
            f.text.ends_with(
                " llvmpipe is a CPU driver (its shaders ran on the host's CPU): this says nothing of a GPU."
            ),
            "{}",
            f.text
        );
    }
    // The same results on a GPU advise, unflagged.
    let mut gpu = lavapipe.clone();
    gpu.device.kind = "DiscreteGpu".into();
    for case in gpu.cases.iter_mut() {
        case.flags.clear();
    }
    let broadcast = find(&of(&gpu), "subgroup-broadcast").text.clone();
    assert!(
        broadcast.ends_with(": use it.") || broadcast.ends_with(": it does not pay here."),
        "{broadcast}"
    );
    // Flagged results on a GPU: the numbers, no advice.
    gpu.cases.iter_mut().for_each(|c| c.flags.push(crate::results::flag::Flag::Noisy));
    let broadcast = find(&of(&gpu), "subgroup-broadcast").text.clone();
    assert!(!broadcast.contains("use it") && broadcast.contains("are flagged"), "{broadcast}");
}

#[test]
fn a_run_without_the_cases_supports_no_finding() {
    let mut only_dispatch = run(&["results/report/lavapipe/run.json"]);
    only_dispatch.cases.retain(|c| c.family == "dispatch");
    let found = of(&only_dispatch);
    assert!(found.iter().all(|f| f.id == "flagged"), "{found:#?}");
    only_dispatch.cases.clear();
    assert!(of(&only_dispatch).is_empty());
}

#[test]
fn a_quick_run_claims_no_more_than_its_few_pairs_show() {
    let quick = run(&["results/report/h100/final-quick2.json"]);
    let found = of(&quick);
    let writable = find(&found, "writable-buffers");
    // Two pairs: each said, no median and no "worst pair" of two; both in the evidence.
    assert!(
        writable.text.contains(" and ")
            && writable.text.contains("(2 pairs)")
            && !writable.text.contains("median"),
        "{}",
        writable.text
    );
    assert!(!writable.text.contains("worst"), "{}", writable.text);
    let pairs = writable.evidence.iter().filter(|(name, _)| name.starts_with("RW")).count();
    assert_eq!(pairs, 2, "{:?}", writable.evidence);
    let staging = find(&found, "shared-staging");
    // One pair: its ratio and which pair, no count of pairs, no "from M=", no advice.
    assert!(
        staging.text.contains("runs at ") && staging.text.ends_with("the one pair measured)."),
        "{}",
        staging.text
    );
    assert!(!staging.text.contains(" of 1 ") && !staging.text.contains("from M="), "{}", staging.text);
}

/// A run with every case `--list` names, each timed at a made-up rate: the rules must find the
/// cases they read by name, so a renamed case cannot silently drop its finding.
fn every_listed_case() -> Run {
    let mut run = crate::results::model::tests::sample_run();
    let template = run.cases[0].clone();
    let names: Vec<&str> = crate::registry::families().iter().map(|f| f.name).collect();
    run.families = crate::results::family::FamilyFacts::of_names(names);
    run.cases = crate::registry::expand(&[], None)
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let bytes = spec.axes.iter().find(|(axis, _)| *axis == "bytes").map(|(_, v)| *v);
            // A sweep steps down at the L1's and the L2's ends, as a GPU's does.
            let base = match bytes {
                Some(b) if b <= 192 << 10 => 32e12,
                Some(b) if b <= 32 << 20 => 9e12,
                Some(_) => 3e12,
                None => 1e12 * (1.0 + (i % 7) as f64 / 10.0),
            };
            let rates: Vec<Amount> = spec
                .work
                .iter()
                .map(|w| Amount {
                    value: base * w.per_invocation,
                    unit: crate::results::measure::Measure::PerSecond(w.unit),
                })
                .collect();
            CaseResult {
                name: spec.name.clone(),
                family: spec.family.to_owned(),
                group: spec.group.clone(),
                variant: spec.variant.clone(),
                axes: spec.axes.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
                rate: rates.first().cloned(),
                rates,
                ratio: None,
                baseline: None,
                flags: Vec::new(),
                ..template.clone()
            }
        })
        .collect();
    run.levels = crate::analysis::levels::of_run(&run);
    run
}

#[test]
fn every_case_a_rule_reads_is_one_that_list_names() {
    let found = of(&every_listed_case());
    let ids: Vec<&str> = found.iter().map(|f| f.id).collect();
    for id in [
        "typed-raw-structured",
        "load-or-sample",
        "writable-buffers",
        "cache-levels",
        "subgroup-broadcast",
        "shared-staging",
        "atomics",
        "copies",
        "compute-peaks",
        "flagged",
    ] {
        assert!(
            ids.contains(&id),
            "no {id} finding from the listed cases: a case it reads was renamed? {ids:?}"
        );
    }
    assert_eq!(found.len(), 10, "{ids:?}");
}
