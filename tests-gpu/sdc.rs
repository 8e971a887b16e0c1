//! The corruption screen on a Vulkan device: a clean run checks every result and ends 0; a fault
//! injected on purpose is found, named with its workgroup and bit, and ends the run with 21.

use super::common::{perftest, temp_dir, text};

/// The sdc family's cases from a run's JSON: name, the faults (null where the case was skipped).
fn fault_counts(file: &std::path::Path) -> Vec<(String, serde_json::Value)> {
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let cases =
        json["devices"][0]["cases"].as_array().or(json["cases"].as_array()).cloned().unwrap_or_default();
    cases
        .into_iter()
        .filter(|c| c["family"] == "sdc")
        .map(|c| (c["name"].as_str().unwrap_or_default().to_owned(), c["faults"].clone()))
        .collect()
}

/// Asserts that `faults` recorded mismatches, each at word `word` with only bit `bit` flipped.
fn assert_stuck_at(faults: &serde_json::Value, word: u64, bit: u32) {
    let records = faults["faults"].as_array().unwrap();
    assert!(faults["mismatches"].as_u64().unwrap() > 0 && !records.is_empty(), "{faults}");
    for fault in records {
        assert_eq!(fault["result"], word, "the record names the word: {fault}");
        let flipped = fault["expected"].as_u64().unwrap() ^ fault["observed"].as_u64().unwrap();
        assert_eq!(flipped, 1 << bit, "only the stuck bit differs: {fault}");
    }
}

#[test]
fn sdc_a_clean_run_checks_every_result_under_the_validation_layer() {
    let dir = temp_dir("sdc-clean");
    let file = dir.join("run.json");
    let args = [
        "--family",
        "sdc",
        "--axis",
        "sdc.bytes=1M",
        "--validation",
        "--target-ms",
        "2",
        "--samples",
        "3",
        "--json",
    ];
    // The memory pass in four buffers of 256 KiB, reached through their addresses.
    let out = perftest(
        &[&args[..], &[file.to_str().unwrap()]].concat(),
        &[("PERFTEST_SDC_BUFFER_BYTES", "262144")],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let (mut counts, skipped): (Vec<_>, Vec<_>) =
        fault_counts(&file).into_iter().partition(|c| !c.1.is_null());
    // The pass over free memory and the cooperative matrices are skipped on a CPU driver, and
    // say why.
    let skipped: Vec<&str> = skipped.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(skipped.len(), 4, "{skipped:?}");
    assert!(
        skipped.iter().all(|name| name.contains("CoopMat") || name.ends_with("free memory")),
        "{skipped:?}"
    );
    assert!(stdout.contains("the device's memory is the host's"), "{stdout}");
    assert!(stdout.contains("the device lacks cooperativeMatrix"), "{stdout}");
    assert_eq!(
        counts.len(),
        10,
        "fp32, fp16, fp64 and int32 chains, transcendentals, shared memory, two atomics, copies, memory: \
         {counts:?}"
    );
    // The transcendentals are held to their first pass, and fingerprinted for the fleet.
    let (_, sfu) = counts.remove(4);
    assert!(sfu["fingerprint"].is_u64() && sfu["checked"].as_u64().unwrap() > 0, "{sfu}");
    assert_eq!(sfu["mismatches"], 0, "{sfu}");
    // A second run computes the same bits: the fingerprint a fleet compares is the GPU's own.
    let again = dir.join("again.json");
    let args = [
        "--family",
        "sdc",
        "--filter",
        "transcendental",
        "--target-ms",
        "2",
        "--json",
        again.to_str().unwrap(),
    ];
    let out = perftest(&args, &[]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(fault_counts(&again)[0].1["fingerprint"], sfu["fingerprint"]);
    assert!(stdout.contains("the pass covers 1 MiB in 4 buffers of 256.0 KiB"), "{stdout}");
    for (name, faults) in counts {
        assert_eq!(faults["mismatches"], 0, "{name}: {faults}");
        // At least the samples' dispatches: 3 samples of 4 dispatches of a workgroup of 256
        // invocations, 16 results each (the memory pass: 2 checked passes of 1 MiB, 4 bytes each;
        // the atomics: 512 adds an invocation).
        assert!(faults["checked"].as_u64().unwrap() >= 3 * 4 * 256 * 16, "{name}: {faults}");
    }
    assert!(stdout.contains("corruption check: 0 of "), "each case says what it checked: {stdout}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn sdc_an_injected_fault_is_found_named_and_ends_the_run_with_21() {
    let dir = temp_dir("sdc-injected");
    let file = dir.join("run.json");
    let args = ["--family", "sdc", "--filter", "fp32", "--target-ms", "2", "--samples", "3", "--json"];
    // Every invocation of workgroups 0, 128, ... flips bit 3 of one chain (lavapipe's dispatches
    // are a few workgroups: workgroup 0 is in each).
    let env = [("PERFTEST_INJECT_FAULT", "unit=0,bit=3,rate=0.5")];
    let out = perftest(&[&args[..], &[file.to_str().unwrap()]].concat(), &env);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(21), "{stdout}{stderr}");
    assert!(stderr.contains("silent data corruption"), "{stderr}");
    let counts = fault_counts(&file);
    let (_, faults) = &counts[0];
    assert!(faults["mismatches"].as_u64().unwrap() >= 1, "{faults}");
    assert!(faults["injected"].as_str().unwrap().contains("bit 3"), "{faults}");
    for fault in faults["faults"].as_array().unwrap() {
        // lavapipe names no unit: the workgroup is where the injector was told to flip.
        assert_eq!(fault["unit"], serde_json::Value::Null, "{fault}");
        assert_eq!(fault["workgroup"].as_u64().unwrap() % 128, 0, "{fault}");
        assert_ne!(fault["expected"], fault["observed"], "{fault}");
    }
    assert!(stdout.contains("corrupt: "), "{stdout}");
    // A flipped bit in one atomic add of each cycle, in workgroups 0, 128, ...: each counter it
    // reached is 2^5 off, in shared memory and in device memory.
    let atomics = dir.join("atomics.json");
    let args =
        ["--family", "sdc", "--filter", "atomic", "--target-ms", "2", "--json", atomics.to_str().unwrap()];
    let out = perftest(&args, &[("PERFTEST_INJECT_FAULT", "atomic=0,bit=5")]);
    assert_eq!(out.status.code(), Some(21), "{}{}", text(&out.stdout), text(&out.stderr));
    let counts = fault_counts(&atomics);
    assert_eq!(counts.len(), 2, "{counts:?}");
    for (name, faults) in counts {
        assert!(faults["injected"].as_str().unwrap().contains("bit 5"), "{name}: {faults}");
        for fault in faults["faults"].as_array().unwrap() {
            assert_eq!(fault["workgroup"].as_u64().unwrap() % 128, 0, "{name}: {fault}");
            let (expected, observed) =
                (fault["expected"].as_u64().unwrap(), fault["observed"].as_u64().unwrap());
            let moved = observed.wrapping_sub(expected) & 0xFFFF_FFFF;
            assert!(moved == 32 || moved == 0xFFFF_FFE0, "{name}: the total moved by 2^5: {fault}");
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn sdc_a_stuck_memory_bit_or_one_the_copies_carry_is_found_at_its_word() {
    let dir = temp_dir("sdc-stuck");
    let file = dir.join("run.json");
    let memory = [
        "--family",
        "sdc",
        "--filter",
        "inversions 1 MiB",
        "--axis",
        "sdc.bytes=1M",
        "--target-ms",
        "2",
        "--json",
    ];
    // Bit 9 of word 200000 (byte 800000, in the fourth of four buffers of 256 KiB) stuck at 0:
    // the pattern or its inverse has it set.
    let env = [("PERFTEST_INJECT_FAULT", "word=200000,bit=9"), ("PERFTEST_SDC_BUFFER_BYTES", "262144")];
    let out = perftest(&[&memory[..], &[file.to_str().unwrap()]].concat(), &env);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(21), "{stdout}{stderr}");
    let counts = fault_counts(&file);
    let (name, faults) = &counts[0];
    assert_eq!(name, "SDC memory moving inversions 1 MiB");
    assert_stuck_at(faults, 200000, 9);
    // A shared-memory bit stuck on every unit: the record names the tile's word.
    let shared = dir.join("shared.json");
    let args =
        ["--family", "sdc", "--filter", "shared", "--target-ms", "2", "--json", shared.to_str().unwrap()];
    let out = perftest(&args, &[("PERFTEST_INJECT_FAULT", "shared=1000,bit=4")]);
    assert_eq!(out.status.code(), Some(21), "{}{}", text(&out.stdout), text(&out.stderr));
    assert_stuck_at(&fault_counts(&shared)[0].1, 1000, 4);
    // A bit flipped between two checks is carried by the 32 copies to the next, which names its word.
    let copies = dir.join("copies.json");
    let args = [
        "--family",
        "sdc",
        "--filter",
        "copies",
        "--target-ms",
        "2",
        "--samples",
        "3",
        "--json",
        copies.to_str().unwrap(),
    ];
    let out = perftest(&args, &[("PERFTEST_INJECT_FAULT", "copy=5000,bit=7")]);
    assert_eq!(out.status.code(), Some(21), "{}{}", text(&out.stdout), text(&out.stderr));
    assert_stuck_at(&fault_counts(&copies)[0].1, 5000, 7);
    // Without the injection the memory pass is clean.
    let clean = dir.join("clean.json");
    let out = perftest(&[&memory[..], &[clean.to_str().unwrap()]].concat(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    let counts = fault_counts(&clean);
    assert_eq!(counts[0].1["mismatches"], 0);
    assert!(counts[0].1["checked"].as_u64().unwrap() > 0, "{}", counts[0].1);
    let _ = std::fs::remove_dir_all(dir);
}
