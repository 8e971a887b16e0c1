//! Energy as a kept run shows it, without a GPU: the committed H100 and H200 `--energy` runs
//! (results/energy/) through show, compare, report and fleet, and edited energy refused on load.

mod common;

use std::path::{Path, PathBuf};

use common::{perftest, temp_dir, text, NO_LOADER};

fn kept(gpu: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("results/energy/{gpu}/{gpu}-levels.json"))
}

fn read(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn case<'a>(run: &'a mut serde_json::Value, name: &str) -> &'a mut serde_json::Value {
    run["cases"].as_array_mut().unwrap().iter_mut().find(|c| c["name"] == name).unwrap()
}

#[test]
fn a_kept_energy_run_shows_its_sensor_its_levels_and_what_a_byte_costs() {
    let h100 = kept("h100");
    let out = perftest(&["show", h100.to_str().unwrap()], &[NO_LOADER]);
    let shown = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        shown.contains(
            "energy:     NVML total energy, each case's work held 4 s between two readings; idle 116.6 W"
        ),
        "{shown}"
    );
    // A row per level, each from the middle of the sizes the sweep found in it.
    for row in [
        "fp32 FMA            ALU fp32 FMA",
        "tensor cores        CoopMat f16*f16+f32 16x16x16 subgroup",
        "shared memory       Shared vec4",
        "L1                  Sweep SSBO vec4 linear 32 KiB",
        "L2                  Sweep SSBO vec4 linear 8 MiB",
        "DRAM                Sweep SSBO vec4 linear 256 MiB",
        "host link           Copy host to device 256 MiB",
    ] {
        assert!(shown.contains(row), "{row}: {shown}");
    }
    // The answer's lines wrap: read its words.
    let words = shown.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("a byte from DRAM costs 9.963x a byte from L1, as much as 11.32 fp32 FMAs"),
        "{words}"
    );
}

#[test]
fn compare_puts_the_levels_side_by_side_and_report_draws_them() {
    let (h100, h200) = (kept("h100"), kept("h200"));
    let out = perftest(&["compare", h100.to_str().unwrap(), h200.to_str().unwrap()], &[NO_LOADER]);
    let shown = text(&out.stdout);
    assert!(shown.contains("Energy by level side by side"), "{shown}");
    // The H200's HBM3e byte against the H100's HBM3 byte.
    let dram = shown.lines().find(|l| l.starts_with("DRAM ")).unwrap_or_default();
    assert!(dram.contains("147.2 pJ/B") && dram.contains("104.5 pJ/B (0.710x)"), "{dram}");
    let dir = temp_dir("energy-report");
    let out = perftest(&["report", h100.to_str().unwrap(), "--output", dir.to_str().unwrap()], &[NO_LOADER]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let chart = std::fs::read_to_string(dir.join("charts/energy.svg")).unwrap();
    assert!(chart.contains("<title>DRAM, run 1: 147.2 pJ/B (109.5 above idle)"), "a hover per bar");
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(
        page.contains("id=\"energy\"") && page.contains("NVML total energy"),
        "the page's energy section"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fleet_names_a_board_that_spends_more_for_the_same_work() {
    let dir = temp_dir("energy-fleet");
    for i in 0..4 {
        let mut run = read(&kept("h100"));
        run["device"]["uuid"] = format!("00000000-0000-0000-0000-00000000000{i}").into();
        run["host"] = format!("node{i}").into();
        if i == 2 {
            // The same rates at 15% more energy.
            for c in run["cases"].as_array_mut().unwrap() {
                let Some(energy) = c.get_mut("energy") else { continue };
                for amount in energy["per_unit"].as_array_mut().unwrap() {
                    amount["value"] = (amount["value"].as_f64().unwrap() * 1.15).into();
                }
            }
        }
        std::fs::write(dir.join(format!("run{i}.json")), run.to_string()).unwrap();
    }
    let out = perftest(&["fleet", dir.to_str().unwrap()], &[NO_LOADER]);
    let shown = text(&out.stdout);
    assert!(shown.contains("more energy than its fleet for the same work: node2/"), "{shown}");
    assert!(shown.contains("22 cases, up to +15.0%"), "{shown}");
    assert!(
        !shown.contains("node0/") || !shown.contains("more energy than its fleet for the same work: node0")
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn edited_energy_is_refused_on_load_with_a_sentence() {
    let dir = temp_dir("energy-edited");
    let path = dir.join("run.json");
    type Edit = (&'static str, fn(&mut serde_json::Value), &'static str);
    let edits: [Edit; 5] = [
        (
            "more above idle than for the board",
            |r| case(r, "ALU fp32 FMA")["energy"]["above_idle"][0]["value"] = 90.0.into(),
            "above idle that is not below its board's",
        ),
        (
            "a sensor and why there is none",
            |r| r["energy"]["unknown"] = "no RAPL counter".into(),
            "both a sensor and why there is none",
        ),
        (
            "negative joules",
            |r| case(r, "ALU fp32 FMA")["energy"]["joules"] = (-5.0).into(),
            "impossible energy",
        ),
        (
            "a unit that is not energy",
            |r| case(r, "ALU fp32 FMA")["energy"]["per_unit"][0]["unit"] = "FLOPS".into(),
            "energy per unit in FLOPS",
        ),
        ("a window busier than it lasted", |r| case(r, "Shared vec4")["energy"]["busy"] = 7.0.into(), "busy"),
    ];
    for (what, edit, says) in edits {
        let mut run = read(&kept("h100"));
        edit(&mut run);
        std::fs::write(&path, run.to_string()).unwrap();
        let out = perftest(&["show", path.to_str().unwrap()], &[NO_LOADER]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(10), "{what}: {stderr}");
        assert!(stderr.contains(says), "{what}: {stderr}");
    }
    // Watts are computed from the joules and the window: a file that kept a figure of its own
    // (format 9 did) loads, and shows the computed one.
    let mut run = read(&kept("h100"));
    let energy = &mut case(&mut run, "ALU fp32 FMA")["energy"];
    let computed = energy["joules"].as_f64().unwrap() / energy["seconds"].as_f64().unwrap();
    energy["watts"] = 900.0.into();
    std::fs::write(&path, run.to_string()).unwrap();
    let loaded = perftest::results::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let watts =
        loaded.cases.iter().find(|c| c.name == "ALU fp32 FMA").unwrap().energy.as_ref().unwrap().watts();
    assert!((watts / computed - 1.0).abs() < 1e-12, "{watts} W");
    std::fs::remove_dir_all(dir).unwrap();
}
