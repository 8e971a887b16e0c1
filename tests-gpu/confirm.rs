//! `perftest fleet --confirm` on this device: a suspect measured again on this host, and a device
//! name in a run that is never read as an option by the perftest it starts.

use super::common::{perftest, temp_dir, text};

/// This host's name, given to the runs and to the fleet that finds their suspect here: the
/// machine's own may be no DNS label (and is then left out of a run).
const HOST: [(&str, &str); 1] = [("PERFTEST_HOST_NAME", "citest")];

#[test]
fn cli_fleet_confirm_measures_a_suspect_again_on_this_host() {
    // A run of this device, then a fleet of it: the device itself (its UUID, this host) with its
    // rates halved in the file, and two peers on another host at ten times them. Measured again here,
    // alone, against the fleet's medians (no peer of its model on this host), it is slow: exit 16.
    let dir = temp_dir("confirm");
    let base = dir.join("base.json");
    let out = perftest(&["--family", "alu", "--quick", "--json", base.to_str().unwrap()], &HOST);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    std::fs::remove_file(&base).unwrap();
    for (n, scale) in [(0, 0.5), (1, 10.0), (2, 10.0)] {
        let mut copy = run.clone();
        if n > 0 {
            copy["host"] = "elsewhere".into();
            copy["device"]["uuid"] = format!("{n:08x}-0000-0000-0000-000000000000").into();
        }
        for case in copy["cases"].as_array_mut().unwrap() {
            if let Some(rate) = case["rate"]["value"].as_f64() {
                case["rate"]["value"] = (rate * scale).into();
                // Steady samples, whatever a busy machine gave: the fleet judges the edit.
                case["samples_ms"] = serde_json::json!([10.0, 10.0, 10.0]);
                case["cv"] = 0.0.into();
            }
        }
        std::fs::write(dir.join(format!("gpu{n}.json")), copy.to_string()).unwrap();
    }
    let out = perftest(&["fleet", dir.to_str().unwrap(), "--confirm"], &HOST);
    // Words as a reader sees them, wherever the verdict's lines wrap.
    let stdout = text(&out.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(16), "{stdout}{stderr}");
    assert!(stderr.contains("slow cases alone"), "{stderr}");
    assert!(stdout.contains("confirmed: ") && stdout.contains(": slow (families alu); alone: "), "{stdout}");
    // How many of its cases came back quiet is the machine's business; that they were held to the
    // fleet's medians, and the effect with its uncertainty, are the confirmation's.
    assert!(
        stdout.contains("against the fleet's medians (no other GPU of its model on this host) ("),
        "{stdout}"
    );
    assert!(stdout.contains("% ± ") && stdout.contains(" quiet cases slower"), "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn cli_fleet_confirm_never_reads_a_device_in_a_run_as_an_option() {
    // A suspect of this host whose PCI address in its file is an option: measured again, the name
    // reaches perftest as a device to look for (none has it: no run, exit 10), never as --output.
    let dir = temp_dir("confirm-name");
    let base = dir.join("base.json");
    let cases = ["--case", "ALU fp32 FMA", "--case", "ALU int32 multiply-add"];
    let settings = ["--target-ms", "1", "--samples", "3", "--json", base.to_str().unwrap()];
    let out = perftest(&[&cases[..], &settings].concat(), &HOST);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    std::fs::remove_file(&base).unwrap();
    let planted = dir.join("planted");
    for (n, scale) in [(0, 0.5), (1, 10.0), (2, 10.0)] {
        let mut copy = run.clone();
        copy["device"]["uuid"] = format!("{n:08x}-0000-0000-0000-000000000000").into();
        match n {
            0 => copy["device"]["pci"] = format!("--output={}", planted.display()).into(),
            _ => copy["host"] = "elsewhere".into(),
        }
        for case in copy["cases"].as_array_mut().unwrap() {
            case["rate"]["value"] = (case["rate"]["value"].as_f64().unwrap() * scale).into();
            case["samples_ms"] = serde_json::json!([10.0, 10.0, 10.0]);
        }
        std::fs::write(dir.join(format!("gpu{n}.json")), copy.to_string()).unwrap();
    }
    let out = perftest(&["fleet", dir.to_str().unwrap(), "--confirm"], &HOST);
    assert_eq!(out.status.code(), Some(10), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!planted.exists(), "nothing written at the planted path");
    std::fs::remove_dir_all(dir).unwrap();
}
