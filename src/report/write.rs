//! Writing a run: JSON (the format kept and compared), CSV and markdown; atomic file writes.

/// What a run's document is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The lines a run prints.
    Text,
    /// One JSON object: settings, device, cases.
    Json,
    /// One row per case.
    Csv,
    /// A markdown table.
    Markdown,
}

pub use super::output::write_atomic;
use crate::format::ratio_text;
use crate::format::sig4;
use crate::results::model::{CaseResult, Run, Status};

/// `run` as a `format` document: every format is rendered from the record alone; `verbose` text
/// gives each case's full line instead of the columns that fit 120.
pub fn render(run: &Run, format: Format, verbose: bool) -> Result<String> {
    Ok(match format {
        Format::Text => crate::format::printable_lines(&super::text::document(run, verbose)).into_owned(),
        Format::Json => to_json(run)?,
        Format::Csv => to_csv(run)?,
        Format::Markdown => to_markdown(run),
    })
}
use crate::error::{Error, Result};

/// The run as pretty JSON.
pub fn to_json(run: &Run) -> Result<String> {
    serde_json::to_string_pretty(run).map_err(|source| Error::Serialize { what: "the run", source })
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
        "group",
        "axes",
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
        "rates",
        "clock_mhz",
        "per_clock",
        "peak_percent",
        "peak",
        "flags",
        "run",
    ];
    let csv_err = |e: csv::Error| Error::Io(std::io::Error::other(e));
    writer.write_record(header).map_err(csv_err)?;
    let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    let run_state = serde_json::to_value(run.ending.state).ok().and_then(|v| v.as_str().map(str::to_owned));
    let run_state = run_state.unwrap_or_default();
    for c in &run.cases {
        let status = c.status.word();
        let (work, work_unit) = c
            .work
            .as_ref()
            .map_or((String::new(), String::new()), |a| (a.value.to_string(), a.unit.to_string()));
        let (rate, rate_unit) = c
            .rate
            .as_ref()
            .map_or((String::new(), String::new()), |a| (a.value.to_string(), a.unit.to_string()));
        let axes: Vec<String> = c.axes.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let rates: Vec<String> = c.rates.iter().map(|a| format!("{} {}", a.value, a.unit)).collect();
        // A timed case says "unknown" where the device could not tell; other cases leave it empty.
        let timed = c.median_ms.is_some();
        let known = |v: Option<f64>| match v {
            Some(v) => v.to_string(),
            None if timed => "unknown".into(),
            None => String::new(),
        };
        let per_clock: Vec<String> = c.per_clock.iter().map(|a| format!("{} {}", a.value, a.unit)).collect();
        let per_clock = if per_clock.is_empty() && timed { "unknown".into() } else { per_clock.join(";") };
        let peak = c.peak.as_ref().map(ToString::to_string);
        let peak = peak.unwrap_or_else(|| if timed { "unknown".into() } else { String::new() });
        let record = [
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
            &c.group,
            &axes.join(";"),
            status,
            c.reason.as_deref().unwrap_or(""),
            &opt(c.median_ms),
            &opt(c.min_ms),
            &opt(c.cv),
            &work,
            &work_unit,
            &rate,
            &rate_unit,
            &opt(c.ratio),
            &rates.join(";"),
            &known(c.clock_mhz),
            &per_clock,
            &known(c.peak_percent),
            &peak,
            &c.flags.iter().map(ToString::to_string).collect::<Vec<_>>().join(" | "),
            &run_state,
        ];
        writer.write_record(record.map(|field| formula_safe(field).into_owned())).map_err(csv_err)?;
    }
    let bytes = writer.into_inner().map_err(|e| Error::Io(e.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A CSV field a spreadsheet will not run: one that starts with `=`, `+`, `-`, `@`, a tab or a
/// carriage return (a formula to Excel, LibreOffice and Google Sheets, OWASP's CSV injection) gets
/// a leading `'`, which spreadsheets show as text. perftest's own fields never start so; a name
/// from an edited or hostile run might.
fn formula_safe(field: &str) -> std::borrow::Cow<'_, str> {
    match field.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        true => format!("'{field}").into(),
        false => field.into(),
    }
}

/// A markdown cell (see [`super::markdown::text`]).
fn cell(text: &str) -> String {
    super::markdown::text(text)
}

/// The rate of a case as text (`65.2 TFLOPS`), or its status.
pub fn rate_text(c: &CaseResult) -> String {
    match (&c.rate, c.status) {
        (Some(rate), _) => rate.text(),
        (None, Status::Verified | Status::Compiled) => c.status.word().into(),
        (None, _) => super::text::status_text(c),
    }
}

/// The run as a markdown table, as a README would show it, then the run's sections (levels, the
/// instruction table, the clock, ...), as its text shows them after the cases.
pub fn to_markdown(run: &Run) -> String {
    let d = &run.device;
    let units = match (d.compute_units, &d.compute_unit) {
        (Some(n), Some(name)) => format!("{n} {name}"),
        _ => "compute units unknown".into(),
    };
    let mut out = format!(
        "**{}** ({}, {}, Vulkan {}; {units}; peaks: {}), perftest {}, {}\n\n\
         | case | rate | per clock | % of peak | ratio | median ms | min ms | cv | flags |\n\
         |---|---|---|---|---|---|---|---|---|\n",
        cell(&d.name),
        cell(&d.kind),
        cell(&d.driver),
        cell(&d.vulkan_version),
        cell(d.architecture.as_deref().unwrap_or("unknown")),
        cell(&run.perftest_version),
        cell(&run.date)
    );
    out.insert_str(out.find("\n\n").unwrap_or(0), &format!("\n\n{}", cell(&run.ending.line())));
    let num = |v: Option<f64>, digits: usize| v.map(|v| format!("{v:.digits$}")).unwrap_or_default();
    for c in &run.cases {
        let timed = c.median_ms.is_some();
        let unknown = || if timed { "unknown".to_owned() } else { String::new() };
        let per_clock = match (c.per_clock.as_slice(), c.clock_mhz) {
            ([_, ..], Some(mhz)) => {
                let rates: Vec<String> =
                    c.per_clock.iter().map(|a| format!("{} {}", sig4(a.value), a.unit)).collect();
                format!("{} at {mhz:.0} MHz", rates.join(", "))
            }
            _ => unknown(),
        };
        let flags: Vec<String> = c.flags.iter().map(|f| cell(&f.to_string())).collect();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            cell(&c.name),
            cell(&rate_text(c)),
            cell(&per_clock),
            c.peak_percent.map_or_else(unknown, |p| format!("{p:.1}%")),
            c.ratio.map(ratio_text).unwrap_or_default(),
            num(c.median_ms, 3),
            num(c.min_ms, 3),
            c.cv.map(|v| format!("{:.1}%", v * 100.0)).unwrap_or_default(),
            flags.join("; "),
        ));
    }
    // What follows the cases, as the text shows it after them.
    let sections = super::doc::markdown(&super::sections::run(run));
    if !sections.is_empty() {
        out.push('\n');
        out.push_str(sections.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::tests::sample_run;

    #[test]
    fn csv_repeats_the_device_on_every_row() {
        let text = to_csv(&sample_run()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("device,type,vendor_id"));
        assert!(lines[1].starts_with("NVIDIA H100 80GB HBM3,DiscreteGpu,4318,9008,"), "{}", lines[1]);
        assert!(lines[2].contains(",skipped,the device lacks shaderFloat64,"), "{}", lines[2]);
        assert!(
            lines[0].ends_with(",rates,clock_mhz,per_clock,peak_percent,peak,flags,run")
                && lines[1].ends_with(",complete"),
            "the run's state on every row"
        );
        assert!(
            lines[1].contains(",1980,21.54") && lines[1].contains(" loads/clk/SM,67.3,L1: 128.0 B/clk/SM,,")
        );
        assert!(lines[2].ends_with(",,,,,,complete"), "a skipped case has no clock: {}", lines[2]);
        // A timed case on a device that cannot tell (lavapipe) says unknown, not 0 or empty.
        let mut run = sample_run();
        let case = &mut run.cases[0];
        (case.clock_mhz, case.peak_percent, case.peak, case.per_clock) = (None, None, None, vec![]);
        let text = to_csv(&run).unwrap();
        assert!(
            text.lines().nth(1).unwrap().ends_with(",unknown,unknown,unknown,unknown,,complete"),
            "{text}"
        );
    }

    #[test]
    fn markdown_is_a_table_with_rates_and_ratios() {
        let text = to_markdown(&sample_run());
        assert!(
            text.contains(
                "| case | rate | per clock | % of peak | ratio | median ms | min ms | cv | flags |"
            ),
            "{text}"
        );
        assert!(text.contains("Vulkan 1.4.312; 132 SM; peaks: NVIDIA Hopper (GH100))"), "{text}");
        assert!(text.contains("\n\nrun: complete\n\n| case |"), "{text}");
        assert!(
            text.contains(
                "| ByteAddressBuffer.Load uniform | 5.63 Tloads/s | 21.54 loads/clk/SM at 1980 MHz | 67.3% | 2.985x \
                 | 20.000 | 19.900 | 0.1% |  |"
            ),
            "{text}"
        );
        assert!(text.contains("| ALU fp64 FMA | skipped (the device lacks shaderFloat64) |"), "{text}");
    }

    #[test]
    fn an_atomic_write_into_a_missing_folder_fails_cleanly() {
        let path = std::path::Path::new("/nonexistent-perftest-dir/out.json");
        let error = write_atomic(path, "{}").unwrap_err();
        assert!(
            error.to_string().starts_with("could not write /nonexistent-perftest-dir/out.json"),
            "{error}"
        );
    }
}
