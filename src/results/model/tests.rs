//! A run round-trips through JSON, older formats load, and files no perftest wrote are refused
//! with a sentence; `sample_run` is the run other modules' tests start from, `run_of` the same
//! with many cases.

use std::collections::BTreeMap;

use super::*;
use crate::error::Error;
use crate::record::outcome::Counted;
use crate::results::load;

fn to_json(run: &Run) -> serde_json::Result<String> {
    serde_json::to_string_pretty(run)
}

pub(crate) fn sample_run() -> Run {
    let case = |name: &str, rate: Option<f64>, ratio: Option<f64>, status: Status| CaseResult {
        name: name.into(),
        family: "load".into(),
        group: "load raw".into(),
        variant: name.into(),
        axes: BTreeMap::new(),
        labels: BTreeMap::new(),
        status,
        checked: None,
        executables: None,
        reason: (status == Status::Skipped).then(|| "the device lacks shaderFloat64".into()),
        median_ms: rate.map(|_| 20.0),
        min_ms: rate.map(|_| 19.9),
        cv: rate.map(|_| 0.001),
        samples_ms: Vec::new(),
        warmup_runs: None,
        dispatch: rate.map(|_| Dispatch { count: 4096, counted: Counted::Workgroups }),
        original_time: ratio.is_some(),
        shader_stats: Vec::new(),
        compiled: None,
        work: rate.map(|r| Amount { value: r * 0.02, unit: "loads".into() }),
        rate: rate.map(|r| Amount { value: r, unit: "loads/s".into() }),
        rates: rate.map(|r| Amount { value: r, unit: "loads/s".into() }).into_iter().collect(),
        ratio,
        baseline: ratio.map(|_| "Buffer<RGBA8>.Load random".into()),
        remeasured: Vec::new(),
        clock_mhz: rate.map(|_| 1980.0),
        clock: None,
        per_clock: rate.map(|_| Amount { value: 21.54, unit: "loads/clk/SM".into() }).into_iter().collect(),
        shader_clocked: false,
        units: Vec::new(),
        faults: None,
        peak_percent: rate.map(|_| 67.3),
        peak: rate.map(|_| Peak {
            ceiling: "L1".into(),
            value: 128.0,
            unit: "B/clk/SM".into(),
            detail: None,
        }),
        flags: Vec::new(),
        notes: Vec::new(),
        phases: None,
        energy: None,
    };
    Run {
        format_version: FORMAT_VERSION,
        perftest_version: "0.1.0".into(),
        date: "2026-11-21T02:00:00Z".into(),
        settings: Settings {
            target_ms: 20.0,
            samples: 10,
            verify: false,
            compile_only: false,
            families: Vec::new(),
            filter: None,
            skip: vec![],
            quick: false,
            axes: vec!["branch.n=0:256:64".into()],
            cases: Vec::new(),
            branch_iterations: None,
        },
        device: Device {
            name: "NVIDIA H100 80GB HBM3".into(),
            kind: "DiscreteGpu".into(),
            vendor_id: 0x10de,
            device_id: 0x2330,
            driver: "NVIDIA 580.159.04".into(),
            vulkan_version: "1.4.312".into(),
            queue_family: 0,
            subgroup_size: 32,
            timestamp_period_ns: 1.0,
            compute_units: Some(132),
            compute_unit: Some("SM".into()),
            architecture: Some("NVIDIA Hopper (GH100)".into()),
            clock: Some("measured".into()),
            simulating: None,
            uuid: None,
            driver_uuid: None,
            pci: None,
            driver_version: None,
        },
        facts: None,
        header: "perftest 0.1.0 (git 0123456789ab)\ndevice:     NVIDIA H100 80GB HBM3\n".into(),
        families: super::super::family::FamilyFacts::of_names(["load"]),
        interrupted: false,
        ending: Ending::default(),
        clock_median_mhz: Some(1980.0),
        warm_up: None,
        levels: Vec::new(),
        workers: None,
        wall_s: None,
        not_run: Vec::new(),
        legacy_line_widths: Default::default(),
        host: None,
        together: Vec::new(),
        sharing: None,
        energy: None,
        cases: vec![
            case("ByteAddressBuffer.Load uniform", Some(5.63e12), Some(2.985), Status::Ok),
            case("ALU fp64 FMA", None, None, Status::Skipped),
        ],
    }
}

/// [`sample_run`] with `cases` timed cases named "case 0" onwards, each its first case with three
/// samples of about 20 ms: the run a verdict's tests change one case of.
pub(crate) fn run_of(cases: usize) -> Run {
    let mut run = sample_run();
    let template = run.cases[0].clone();
    run.cases = (0..cases)
        .map(|i| CaseResult {
            name: format!("case {i}"),
            samples_ms: vec![20.0, 20.01, 19.99],
            ..template.clone()
        })
        .collect();
    run
}

#[test]
fn format_6_sentences_of_verified_and_compiled_cases_become_statuses() {
    let mut run = sample_run();
    run.format_version = 6;
    let reasons = [
        "verified: 512 results match the CPU reference",
        "compiled (2 pipeline executable(s); the driver's statistics of each below)",
        "compiled (the driver reports no statistics: VK_KHR_pipeline_executable_properties)",
    ];
    let template = CaseResult { rate: None, rates: vec![], median_ms: None, ..run.cases[0].clone() };
    run.cases =
        reasons.iter().map(|r| CaseResult { reason: Some((*r).into()), ..template.clone() }).collect();
    let dir = std::env::temp_dir().join(format!("perftest-status-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("six.json");
    std::fs::write(&path, to_json(&run).unwrap()).unwrap();
    let loaded = load(&path).unwrap();
    let got: Vec<_> =
        loaded.cases.iter().map(|c| (c.status, c.checked, c.executables, c.reason.clone())).collect();
    assert_eq!(
        got,
        [
            (Status::Verified, Some(512), None, None),
            (Status::Compiled, None, Some(2), None),
            (Status::Compiled, None, None, None)
        ]
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_peak_is_data_and_reads_as_its_old_sentence() {
    for sentence in [
        "L1: 128.0 B/clk/SM",
        "host link: 63.02 GB/s each way, PCIe Gen5 x16",
        "fp16 tensor: 4096 FLOP/clk/SM",
    ] {
        let peak = Peak::parse(sentence).unwrap();
        assert_eq!(peak.to_string(), sentence);
        let typed: Peak = serde_json::from_str(&serde_json::to_string(&peak).unwrap()).unwrap();
        let old: Peak = serde_json::from_value(serde_json::Value::String(sentence.into())).unwrap();
        assert_eq!((&typed, &old), (&peak, &peak));
    }
    let link = Peak::parse("host link: 63.02 GB/s each way, PCIe Gen5 x16").unwrap();
    assert_eq!(
        (link.ceiling.as_str(), link.value, link.unit.to_string().as_str()),
        ("host link", 63.02, "GB/s")
    );
    assert!(serde_json::from_str::<Peak>("\"no colon\"").is_err());
}

#[test]
fn json_round_trips() {
    let mut run = sample_run();
    run.cases[0].shader_stats = vec!["CS: Register Count = 32, Binary Size = 18816".into()];
    run.cases[0].samples_ms = vec![20.0, 20.1, 19.9];
    run.cases[0].warmup_runs = Some(6);
    run.energy = Some(crate::results::energy::RunEnergy {
        sensor: Some("NVML total energy".into()),
        window_s: Some(4.0),
        idle_w: Some(123.5),
        idle_end_w: Some(124.8),
        unknown: None,
    });
    let held = crate::record::energy::Held { seconds: 4.01, joules: 1604.0, measurements: 201, gpu_s: 4.01 };
    let work = [(61.4e9, crate::registry::Work::new(1.0, crate::registry::Unit::Byte))];
    run.cases[0].energy = crate::results::energy::CaseEnergy::of(&held, &work, Some(123.5)).map(Box::new);
    let text = to_json(&run).unwrap();
    assert!(text.contains("\"unit\": \"pJ/B\""), "{text}");
    assert!(text.contains("\"format_version\": 9") && text.contains("\"type\": \"DiscreteGpu\""), "{text}");
    assert!(text.contains("\"status\": \"skipped\""), "{text}");
    assert!(text.contains("\"shader_stats\": [") && text.contains("\"samples_ms\": ["), "{text}");
    let path = std::env::temp_dir().join(format!("perftest-roundtrip-{}.json", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    assert_eq!(load(&path).unwrap(), run);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn bad_files_get_a_sentence_naming_file_and_problem() {
    let dir = std::env::temp_dir().join(format!("perftest-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = load(&dir.join("missing.json")).unwrap_err();
    assert_eq!(missing.exit_code(), crate::ExitCode::BadResults);
    assert!(missing.to_string().contains("missing.json cannot be read"), "{missing}");
    let other = dir.join("other.json");
    std::fs::write(&other, "{\"hello\": 1}").unwrap();
    assert!(load(&other).unwrap_err().to_string().contains("is not a perftest results file"));
    let text = dir.join("text.json");
    std::fs::write(&text, "ALU fp32 FMA: 65.2 TFLOPS").unwrap();
    assert!(load(&text).unwrap_err().to_string().contains("is not JSON"));
    // An endless stream and a binary, each deterministic (random bytes begin with `{` once in
    // 251 reads, and that is a different sentence): this test's own executable is the binary.
    let binary = std::env::current_exe().unwrap();
    for endless in [Path::new("/dev/zero"), binary.as_path()] {
        let error = load(endless).unwrap_err().to_string();
        assert!(error.contains("is not JSON (it does not begin with `{`)"), "{error}");
    }
    // A sparse file: "{" and then zeros, one byte more than a results file may hold.
    let huge = dir.join("huge.json");
    std::fs::write(&huge, b"{").unwrap();
    std::fs::OpenOptions::new().write(true).open(&huge).unwrap().set_len(MAX_FILE_BYTES + 1).unwrap();
    assert!(load(&huge).unwrap_err().to_string().contains("is larger than 256 MiB"));
    let newer = dir.join("newer.json");
    std::fs::write(
        &newer,
        to_json(&sample_run()).unwrap().replace("\"format_version\": 9", "\"format_version\": 10"),
    )
    .unwrap();
    let error = load(&newer).unwrap_err().to_string();
    assert!(error.contains("has format version 10, newer than this perftest reads (9)"), "{error}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn format_1_files_load_with_groups_variants_and_rates_filled_in() {
    let dir = std::env::temp_dir().join(format!("perftest-v1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let v1 = r#"{"format_version": 1, "perftest_version": "0.1.0", "date": "2026-11-21T02:00:00Z",
        "settings": {"target_ms": 20.0, "samples": 10, "verify": false, "filter": null, "skip": [],
                     "branch_iterations": "0:256:8"},
        "device": {"name": "H100", "type": "DiscreteGpu", "vendor_id": 4318, "device_id": 9008,
                   "driver": "NVIDIA", "vulkan_version": "1.4.312", "queue_family": 0,
                   "subgroup_size": 32, "timestamp_period_ns": 1.0},
        "interrupted": false,
        "cases": [{"name": "8X Coherent branch long", "family": "branch Coherent", "status": "ok",
                   "reason": null, "median_ms": 20.0, "min_ms": 19.9, "cv": 0.001,
                   "work": {"value": 1e9, "unit": "invocations"},
                   "rate": {"value": 5e10, "unit": "invocations/s"}, "ratio": 1.5}]}"#;
    let path = dir.join("v1.json");
    std::fs::write(&path, v1).unwrap();
    let run = load(&path).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
    assert_eq!(run.settings.branch_iterations.as_deref(), Some("0:256:8"));
    let case = &run.cases[0];
    assert_eq!((case.group.as_str(), case.variant.as_str()), ("branch Coherent", "8X Coherent branch long"));
    assert_eq!(case.rates, [Amount { value: 5e10, unit: "invocations/s".into() }]);
}

#[test]
fn a_run_says_how_it_ended() {
    assert_eq!(Ending::of(&Ok(())).line(), "run: complete");
    let stopped = Ending::of(&Err(Error::Interrupted { finished: 3, selected: 9 }));
    assert_eq!((stopped.state, stopped.exit_code), (RunState::Interrupted, 130));
    assert!(stopped.line().starts_with("run: interrupted (exit 130): interrupted"), "{}", stopped.line());
    let failed = Ending::of(&Err(Error::Validation { messages: vec!["VUID-x".into()] }));
    assert_eq!((failed.state, failed.exit_code), (RunState::Failed, 9));
    assert_eq!(failed.mark(), " [failed: exit 9]");
    assert_eq!(Ending::default().mark(), "");
}

#[test]
fn impossible_rates_are_refused_with_the_case_named() {
    let dir = std::env::temp_dir().join(format!("perftest-impossible-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (value, what) in [(-1.0, "-1"), (0.0, "0"), (1e308, "1e308")] {
        let mut run = sample_run();
        run.cases[0].rate.as_mut().unwrap().value = value;
        let path = dir.join("bad.json");
        std::fs::write(&path, to_json(&run).unwrap()).unwrap();
        let error = load(&path).unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::BadResults);
        let text = error.to_string();
        assert!(
            text.contains("impossible value for case \"ByteAddressBuffer.Load uniform\""),
            "{what}: {text}"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}
