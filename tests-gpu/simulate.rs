//! `--simulate PROFILE.json` on lavapipe: every fixture in tests/profiles clamps the device without
//! raising anything, every case is planned or skipped with its reason, and the Android baseline and
//! the PowerVR GE8300 (no timestamps) verify, in workgroups narrowed to their limits (at the
//! short sizes of [`SHORT_AXES`]; the Android test itself is in main.rs), and time by CPU fences.

use perftest::caps::profile::Profile;
use perftest::registry;
use perftest::results::model::{Run, Status};
use perftest::vk::context::{Adapter, ContextOptions};

use super::{perftest, text, SHORT_AXES};

fn fixtures() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/profiles");
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

#[test]
fn every_fixture_lowers_the_device_and_never_raises_it() {
    let plain = Adapter::open(&ContextOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let (info, caps) = plain.describe(&[]);
    let all = registry::expand(&[], Some(&caps));
    let skipped = |caps: &perftest::caps::DeviceCaps| {
        all.iter().filter(|c| !c.requirements().unmet(caps).is_empty()).count()
    };
    let baseline = skipped(&caps);
    drop(plain);
    assert_eq!(fixtures().len(), 9, "the fixtures of issue 21");
    for file in fixtures() {
        let profile = Profile::load(&file).unwrap_or_else(|e| panic!("{e}"));
        let adapter =
            Adapter::open(&ContextOptions { simulate: Some(profile.clone()), ..Default::default() }).unwrap();
        let (sim_info, sim) = adapter.describe(&[]);
        let name = file.display();
        assert_eq!(sim_info.simulating.as_deref(), Some(profile.name.as_str()), "{name}");
        assert!(sim.limits.workgroup_invocations <= caps.limits.workgroup_invocations, "{name}");
        assert!(sim.limits.shared_memory_bytes <= caps.limits.shared_memory_bytes, "{name}");
        assert!(sim.limits.storage_buffer_range <= caps.limits.storage_buffer_range, "{name}");
        assert!(sim.limits.texel_buffer_elements <= caps.limits.texel_buffer_elements, "{name}");
        assert!(sim.limits.allocation_bytes <= caps.limits.allocation_bytes, "{name}");
        assert!(sim_info.timestamp_valid_bits <= info.timestamp_valid_bits, "{name}");
        assert_eq!(sim_info.subgroup_size, info.subgroup_size, "{name}: the subgroup size is the hardware's");
        assert!(sim.features.list().iter().all(|f| caps.features.get(*f)), "{name}: a feature was raised");
        // Each case is planned or skipped with its reasons, and no fewer are skipped than on the device.
        let expanded = registry::expand(&[], Some(&sim));
        assert!(expanded.iter().any(|c| c.requirements().unmet(&sim).is_empty()), "{name}: something runs");
        assert!(skipped(&sim) >= baseline, "{name}");
    }
}

// One test a profile, each failing on its own; the Android baseline's, the longer, is in main.rs,
// where its name starts it early.
#[test]
fn cli_a_powervr_ge8300_verifies_or_skips_with_reasons() {
    verifies_or_skips_with_reasons("powervr-ge8300");
}

/// Every case of a `--verify` run on `fixture` at the short sizes is verified, or skipped with a
/// reason that is not a workgroup too wide (workgroups narrow to the device's limits).
pub(crate) fn verifies_or_skips_with_reasons(fixture: &str) {
    let path = format!("{}/tests/profiles/{fixture}.json", env!("CARGO_MANIFEST_DIR"));
    // Every case at the short sizes: the workgroups narrow whatever the size.
    let axes = SHORT_AXES.iter().flat_map(|a| ["--axis", a]);
    let args = ["--simulate", &path, "--verify", "--validation", "--format", "json"];
    let out = perftest(&args.into_iter().chain(axes).collect::<Vec<_>>(), &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{fixture}: {}", text(&out.stderr));
    let run: Run = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}"));
    assert!(run.device.simulating.is_some(), "{fixture}");
    for case in &run.cases {
        match case.status {
            Status::Verified => {}
            Status::Skipped => {
                let reason = case.reason.as_deref().unwrap_or_default();
                assert!(!reason.is_empty(), "{}", case.name);
                // Workgroups narrow to the device's limits (128 invocations on the baseline),
                // except a GEMM's, fixed by its tile (and these devices have no tensor cores).
                let narrows = case.family != "gemm";
                assert!(!narrows || !reason.contains("workgroup"), "{fixture}: {}: {reason}", case.name);
            }
            other => panic!("{fixture}: {} is {other:?}: {:?}", case.name, case.reason),
        }
    }
}

#[test]
fn cli_a_device_without_timestamps_is_timed_by_cpu_fences() {
    let path = format!("{}/tests/profiles/powervr-ge8300.json", env!("CARGO_MANIFEST_DIR"));
    let args =
        ["--simulate", &path, "--filter", "ALU fp32 FMA", "--target-ms", "2", "--samples", "3", "--verbose"];
    let out = perftest(&args, &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(stdout.contains("\nsimulating: powervr-ge8300 (limits, features"), "{stdout}");
    assert!(stdout.contains("timestamps: 1 ns per tick, 0 valid bits"), "{stdout}");
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("ALU fp32 FMA")).collect();
    assert_eq!(lines.len(), 2);
    assert!(lines.iter().all(|l| l.contains("[timed by CPU fences]")), "{lines:?}");
}
