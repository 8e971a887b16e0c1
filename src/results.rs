//! A run's results as a document: JSON (the format kept and compared), CSV, markdown; atomic writes.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::runner::report::{self, Outcome};
use crate::vk::device::DeviceInfo;

/// The version of the JSON layout; files from a newer perftest are refused with a sentence.
pub const FORMAT_VERSION: u32 = 1;

/// One run: where, how, and what each case gave.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Run {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// The perftest that wrote it.
    pub perftest_version: String,
    /// When the run started (RFC 3339, UTC).
    pub date: String,
    /// The options that shaped the numbers.
    pub settings: Settings,
    /// The device row.
    pub device: Device,
    /// True if the run was cut short (a case failed): `cases` holds what finished.
    pub interrupted: bool,
    /// The cases, in run order.
    pub cases: Vec<CaseResult>,
}

/// The options that shaped the numbers.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Settings {
    /// `--target-ms`.
    pub target_ms: f64,
    /// `--samples`.
    pub samples: u32,
    /// `--verify`.
    pub verify: bool,
    /// `--filter`.
    pub filter: Option<String>,
    /// `--skip`.
    pub skip: Vec<String>,
    /// `--branch-iterations`, as FROM:TO:STEP.
    pub branch_iterations: String,
}

/// The device row a run used.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Device {
    /// Device name.
    pub name: String,
    /// DiscreteGpu, IntegratedGpu, VirtualGpu, Cpu or Other.
    #[serde(rename = "type")]
    pub kind: String,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// PCI device id.
    pub device_id: u32,
    /// Driver name and version.
    pub driver: String,
    /// Vulkan version of the device.
    pub vulkan_version: String,
    /// Queue family index.
    pub queue_family: u32,
    /// Subgroup size.
    pub subgroup_size: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period_ns: f32,
}

impl From<&DeviceInfo> for Device {
    fn from(info: &DeviceInfo) -> Self {
        Device {
            name: info.row.name.clone(),
            kind: info.kind.to_owned(),
            vendor_id: info.vendor_id,
            device_id: info.device_id,
            driver: info.driver.clone(),
            vulkan_version: info.vulkan.clone(),
            queue_family: info.row.family,
            subgroup_size: info.subgroup_size,
            timestamp_period_ns: info.timestamp_period,
        }
    }
}

/// How a case ended.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Timed, or verified.
    Ok,
    /// Not run; `reason` says why.
    Skipped,
    /// Failed; `reason` holds the error.
    Failed,
}

/// A number with its unit.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Amount {
    /// The number.
    pub value: f64,
    /// Its unit (`FLOP`, `loads/s`, ...).
    pub unit: String,
}

/// One case's result.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CaseResult {
    /// Case name.
    pub name: String,
    /// Family name.
    pub family: String,
    /// ok, skipped or failed.
    pub status: Status,
    /// Why it was skipped or failed; for verified cases, what was checked.
    pub reason: Option<String>,
    /// Median milliseconds per measurement.
    pub median_ms: Option<f64>,
    /// Fastest measurement, milliseconds.
    pub min_ms: Option<f64>,
    /// Coefficient of variation of the samples.
    pub cv: Option<f64>,
    /// Work of one measurement.
    pub work: Option<Amount>,
    /// The headline rate.
    pub rate: Option<Amount>,
    /// Rate over the family's baseline (above 1 = faster).
    pub ratio: Option<f64>,
}

impl CaseResult {
    /// The record of a finished case.
    pub fn new(name: &str, family: &str, outcome: &Outcome) -> Self {
        let mut record = CaseResult {
            name: name.to_owned(),
            family: family.to_owned(),
            status: Status::Ok,
            reason: None,
            median_ms: None,
            min_ms: None,
            cv: None,
            work: None,
            rate: None,
            ratio: None,
        };
        match outcome {
            Outcome::Skipped(reason) => {
                record.status = Status::Skipped;
                record.reason = Some(reason.clone());
            }
            Outcome::Verified { checked } => {
                record.reason = Some(format!("verified: {checked} results match the CPU reference"));
            }
            Outcome::Timed { measurement, work, ratio, .. } => {
                let s = &measurement.summary;
                (record.median_ms, record.min_ms, record.cv) = (Some(s.median), Some(s.min), Some(s.cv));
                if let (Some((amount, w)), Some(rate)) = (work.first(), outcome.rate()) {
                    record.work = Some(Amount { value: *amount, unit: w.unit.amount_name().to_owned() });
                    record.rate = Some(Amount { value: rate, unit: w.unit.rate_name().to_owned() });
                }
                record.ratio = *ratio;
            }
        }
        record
    }

    /// The record of a case that failed with `error`.
    pub fn failed(name: &str, family: &str, error: &Error) -> Self {
        let mut record = CaseResult::new(name, family, &Outcome::Skipped(error.to_string()));
        record.status = Status::Failed;
        record
    }
}

/// The run as pretty JSON.
pub fn to_json(run: &Run) -> String {
    serde_json::to_string_pretty(run).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// The run as CSV: one row per case, the device columns repeated so files concatenate.
pub fn to_csv(run: &Run) -> Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let d = &run.device;
    let header = [
        "device",
        "type",
        "vendor_id",
        "device_id",
        "driver",
        "vulkan",
        "queue_family",
        "date",
        "case",
        "family",
        "status",
        "reason",
        "median_ms",
        "min_ms",
        "cv",
        "work",
        "work_unit",
        "rate",
        "rate_unit",
        "ratio",
    ];
    let csv_err = |e: csv::Error| Error::Io(std::io::Error::other(e));
    writer.write_record(header).map_err(csv_err)?;
    let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    for c in &run.cases {
        let status = match c.status {
            Status::Ok => "ok",
            Status::Skipped => "skipped",
            Status::Failed => "failed",
        };
        let (work, work_unit) =
            c.work.as_ref().map_or((String::new(), ""), |a| (a.value.to_string(), &a.unit));
        let (rate, rate_unit) =
            c.rate.as_ref().map_or((String::new(), ""), |a| (a.value.to_string(), &a.unit));
        writer
            .write_record([
                d.name.as_str(),
                &d.kind,
                &d.vendor_id.to_string(),
                &d.device_id.to_string(),
                &d.driver,
                &d.vulkan_version,
                &d.queue_family.to_string(),
                &run.date,
                &c.name,
                &c.family,
                status,
                c.reason.as_deref().unwrap_or(""),
                &opt(c.median_ms),
                &opt(c.min_ms),
                &opt(c.cv),
                &work,
                work_unit,
                &rate,
                rate_unit,
                &opt(c.ratio),
            ])
            .map_err(csv_err)?;
    }
    let bytes = writer.into_inner().map_err(|e| Error::Io(e.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A markdown cell: `|` would end the cell, so it is escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The rate of a case as text (`65.2 TFLOPS`), or its status.
pub fn rate_text(c: &CaseResult) -> String {
    match (&c.rate, c.status) {
        (Some(rate), _) => report::si(rate.value, &rate.unit),
        (None, Status::Ok) => "verified".into(),
        (None, Status::Skipped) => format!("skipped ({})", c.reason.as_deref().unwrap_or("")),
        (None, Status::Failed) => "failed".into(),
    }
}

/// The run as a markdown table, as a README would show it.
pub fn to_markdown(run: &Run) -> String {
    let d = &run.device;
    let mut out = format!(
        "**{}** ({}, {}, Vulkan {}), perftest {}, {}\n\n| case | rate | ratio | median ms | min ms | cv |\n|---|---|---|---|---|---|\n",
        cell(&d.name),
        d.kind,
        cell(&d.driver),
        d.vulkan_version,
        run.perftest_version,
        run.date
    );
    let num = |v: Option<f64>, digits: usize| v.map(|v| format!("{v:.digits$}")).unwrap_or_default();
    for c in &run.cases {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            cell(&c.name),
            cell(&rate_text(c)),
            c.ratio.map(|r| format!("{r:.3}x")).unwrap_or_default(),
            num(c.median_ms, 3),
            num(c.min_ms, 3),
            c.cv.map(|v| format!("{:.1}%", v * 100.0)).unwrap_or_default(),
        ));
    }
    out
}

/// Writes `text` to `path` without ever leaving a half-written file: a temporary file beside it,
/// flushed, then renamed over it.
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "output".into());
    let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&temporary).and_then(|mut file| {
        file.write_all(text.as_bytes())?;
        file.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&temporary, path)) {
        let _ = std::fs::remove_file(&temporary);
        return Err(Error::Output { path: path.display().to_string(), detail: e.to_string() });
    }
    Ok(())
}

/// Reads a perftest JSON results file, refusing missing files, other JSON and newer formats.
pub fn load(path: &Path) -> Result<Run> {
    let bad = |problem: String| Error::ResultsFile { path: path.display().to_string(), problem };
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot be read ({e})")))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| bad(format!("is not JSON ({e}); pass files written with --format json")))?;
    let version = value.get("format_version").and_then(serde_json::Value::as_u64);
    match version {
        None => return Err(bad("is not a perftest results file (no format_version)".into())),
        Some(v) if v > u64::from(FORMAT_VERSION) => {
            return Err(bad(format!(
                "has format version {v}, newer than this perftest reads ({FORMAT_VERSION}); update perftest"
            )))
        }
        Some(_) => {}
    }
    serde_json::from_value(value).map_err(|e| bad(format!("is not a perftest results file ({e})")))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample_run() -> Run {
        let case = |name: &str, rate: Option<f64>, ratio: Option<f64>, status: Status| CaseResult {
            name: name.into(),
            family: "load raw".into(),
            status,
            reason: (status == Status::Skipped).then(|| "the device lacks shaderFloat64".into()),
            median_ms: rate.map(|_| 20.0),
            min_ms: rate.map(|_| 19.9),
            cv: rate.map(|_| 0.001),
            work: rate.map(|r| Amount { value: r * 0.02, unit: "loads".into() }),
            rate: rate.map(|r| Amount { value: r, unit: "loads/s".into() }),
            ratio,
        };
        Run {
            format_version: FORMAT_VERSION,
            perftest_version: "0.1.0".into(),
            date: "2026-11-21T02:00:00Z".into(),
            settings: Settings {
                target_ms: 20.0,
                samples: 10,
                verify: false,
                filter: None,
                skip: vec![],
                branch_iterations: "0:256:8".into(),
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
            },
            interrupted: false,
            cases: vec![
                case("ByteAddressBuffer.Load uniform", Some(5.63e12), Some(2.985), Status::Ok),
                case("ALU fp64 FMA", None, None, Status::Skipped),
            ],
        }
    }

    #[test]
    fn json_round_trips() {
        let run = sample_run();
        let text = to_json(&run);
        assert!(
            text.contains("\"format_version\": 1") && text.contains("\"type\": \"DiscreteGpu\""),
            "{text}"
        );
        assert!(text.contains("\"status\": \"skipped\""), "{text}");
        let path = std::env::temp_dir().join(format!("perftest-roundtrip-{}.json", std::process::id()));
        write_atomic(&path, &text).unwrap();
        assert_eq!(load(&path).unwrap(), run);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn csv_repeats_the_device_on_every_row() {
        let text = to_csv(&sample_run()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("device,type,vendor_id"));
        assert!(lines[1].starts_with("NVIDIA H100 80GB HBM3,DiscreteGpu,4318,9008,"), "{}", lines[1]);
        assert!(lines[2].contains(",skipped,the device lacks shaderFloat64,"), "{}", lines[2]);
    }

    #[test]
    fn markdown_is_a_table_with_rates_and_ratios() {
        let text = to_markdown(&sample_run());
        assert!(text.contains("| case | rate | ratio | median ms | min ms | cv |"), "{text}");
        assert!(
            text.contains(
                "| ByteAddressBuffer.Load uniform | 5.63 Tloads/s | 2.985x | 20.000 | 19.900 | 0.1% |"
            ),
            "{text}"
        );
        assert!(text.contains("| ALU fp64 FMA | skipped (the device lacks shaderFloat64) |"), "{text}");
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
        let newer = dir.join("newer.json");
        std::fs::write(
            &newer,
            to_json(&sample_run()).replace("\"format_version\": 1", "\"format_version\": 2"),
        )
        .unwrap();
        let error = load(&newer).unwrap_err().to_string();
        assert!(error.contains("has format version 2, newer than this perftest reads (1)"), "{error}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_atomic_write_into_a_missing_folder_fails_cleanly() {
        let path = Path::new("/nonexistent-perftest-dir/out.json");
        let error = write_atomic(path, "{}").unwrap_err();
        assert!(
            error.to_string().starts_with("could not write /nonexistent-perftest-dir/out.json"),
            "{error}"
        );
    }
}
