//! `--energy` on a driver with no power sensor: unknown with its reason, or measured from a
//! fixture RAPL counter that a thread advances at a known rate.

use super::common::{perftest, temp_dir, text};

/// A RAPL package counter under a fixture `/sys` that a thread advances at `watts` until `stop`.
fn rapl_at(root: &std::path::Path, watts: f64, stop: &std::sync::atomic::AtomicBool) {
    let dir = root.join("class/powercap/intel-rapl:0");
    let start = std::time::Instant::now();
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        let microjoules = (start.elapsed().as_secs_f64() * watts * 1e6) as u64;
        let temporary = dir.join("energy_uj.new");
        std::fs::write(&temporary, format!("{microjoules}\n")).unwrap();
        std::fs::rename(&temporary, dir.join("energy_uj")).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

#[test]
fn cli_energy_on_lavapipe_is_unknown_with_a_reason_or_measured_from_a_rapl_counter() {
    let dir = temp_dir("energy-rapl");
    let run = dir.join("run.json");
    // 5 ms measurements: a hundred in the half-second window, ten times the fewest it needs
    // however slow a busy machine makes them.
    let args = [
        "--energy",
        "--energy-window",
        "0.5",
        "--target-ms",
        "5",
        "--case",
        "ALU fp32 FMA",
        "--json",
        run.to_str().unwrap(),
    ];
    // No RAPL counter under an empty /sys: the header says why, and the case still runs.
    let empty = dir.join("empty-sys");
    std::fs::create_dir_all(&empty).unwrap();
    let out = perftest(&args, &[("PERFTEST_SYS", empty.to_str().unwrap())]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("\nenergy:     unknown (no RAPL counter ("), "{stdout}");
    let kept: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    assert!(kept["cases"][0]["energy"].is_null() && kept["cases"][0]["rate"].is_object(), "{kept}");
    // A counter that a thread advances at 50 W: the run reads 50 W, and each FLOP's share.
    let sys = dir.join("sys");
    let rapl = sys.join("class/powercap/intel-rapl:0");
    std::fs::create_dir_all(&rapl).unwrap();
    std::fs::write(rapl.join("name"), "package-0\n").unwrap();
    std::fs::write(rapl.join("max_energy_range_uj"), "262143328850\n").unwrap();
    std::fs::write(rapl.join("energy_uj"), "0\n").unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let out = std::thread::scope(|scope| {
        scope.spawn(|| rapl_at(&sys, 50.0, &stop));
        let out = perftest(&args, &[("PERFTEST_SYS", sys.to_str().unwrap())]);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        out
    });
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("\nenergy:     RAPL package-0, each case's work held 0.5 s between two readings"),
        "{stdout}"
    );
    let kept: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    let idle = kept["energy"]["idle_w"].as_f64().unwrap();
    // The fixture's thread writes the counter every millisecond or so; on a loaded machine a write
    // comes late, by up to tens of milliseconds of the half-second window: 50 W within 20%.
    assert!((idle / 50.0 - 1.0).abs() < 0.2, "idle {idle} W");
    let energy = &kept["cases"][0]["energy"];
    let watts = energy["joules"].as_f64().unwrap() / energy["seconds"].as_f64().unwrap();
    assert!((watts / 50.0 - 1.0).abs() < 0.2, "{energy}");
    // How busy the CPU driver kept its "GPU" is this machine's load: a share, no more.
    let busy = energy["busy"].as_f64().unwrap();
    assert!(busy > 0.0 && busy <= 1.0, "{energy}");
    // Joules over the FLOPs of the measurements held in the window, each measurement's FLOPs the
    // rate times its median time: the code's arithmetic, whatever the machine's load made of the
    // rate while the window ran.
    let per_flop = energy["per_unit"][0]["value"].as_f64().unwrap() * 1e-12;
    let case = &kept["cases"][0];
    let flops = case["rate"]["value"].as_f64().unwrap() * case["median_ms"].as_f64().unwrap() / 1e3;
    let held = energy["joules"].as_f64().unwrap() / (flops * energy["measurements"].as_f64().unwrap());
    assert_eq!(energy["per_unit"][0]["unit"], "pJ/FLOP");
    assert!((per_flop / held - 1.0).abs() < 1e-9, "{energy} at {flops} FLOP a measurement");
    std::fs::remove_dir_all(dir).unwrap();
}
