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

use super::doc::{Block, Cell, Column, Hint, Table};
pub use super::output::write_atomic;
use crate::results::model::Run;

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

/// The run as CSV: one row per case, the device columns repeated so files concatenate; numbers
/// raw, and "unknown" where a timed case's device could not tell.
pub fn to_csv(run: &Run) -> Result<String> {
    let names = [
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
    let mut table = Table::new(names.map(Column::left).to_vec());
    let d = &run.device;
    let run_state = serde_json::to_value(run.ending.state).ok().and_then(|v| v.as_str().map(str::to_owned));
    let run_state = run_state.unwrap_or_default();
    let text = |s: &str| Cell::text(s);
    let raw = |v: Option<f64>| Cell::maybe(v, "", Hint::Sig4);
    let amounts = |all: &[crate::results::model::Amount]| {
        all.iter().map(|a| format!("{} {}", a.value, a.unit)).collect::<Vec<_>>().join(";")
    };
    for c in &run.cases {
        // A timed case says "unknown" where the device could not tell; other cases leave it empty.
        let timed = c.median_ms.is_some();
        let unknown = || Cell::Missing(if timed { "unknown" } else { "" }.into());
        let known = |v: Option<f64>| v.map_or_else(unknown, |v| Cell::number(v, "", Hint::Sig4));
        let axes: Vec<String> = c.axes.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let per_clock = match c.per_clock.is_empty() {
            true => unknown(),
            false => Cell::Text(amounts(&c.per_clock)),
        };
        let peak = c.peak.as_ref().map_or_else(unknown, |p| Cell::Text(p.to_string()));
        let flags: Vec<String> = c.flags.iter().map(ToString::to_string).collect();
        table.push(
            None,
            vec![
                text(&d.name),
                text(&d.kind),
                Cell::number(f64::from(d.vendor_id), "", Hint::Sig4),
                Cell::number(f64::from(d.device_id), "", Hint::Sig4),
                text(&d.driver),
                text(&d.vulkan_version),
                Cell::number(f64::from(d.queue_family), "", Hint::Sig4),
                text(&run.date),
                text(&c.name),
                text(&c.family),
                text(&c.group),
                Cell::Text(axes.join(";")),
                text(c.status.word()),
                text(c.reason.as_deref().unwrap_or("")),
                raw(c.median_ms),
                raw(c.min_ms),
                raw(c.cv),
                raw(c.work.as_ref().map(|a| a.value)),
                Cell::Text(c.work.as_ref().map(|a| a.unit.to_string()).unwrap_or_default()),
                raw(c.rate.as_ref().map(|a| a.value)),
                Cell::Text(c.rate.as_ref().map(|a| a.unit.to_string()).unwrap_or_default()),
                raw(c.ratio),
                Cell::Text(amounts(&c.rates)),
                known(c.clock_mhz),
                per_clock,
                known(c.peak_percent),
                peak,
                Cell::Text(flags.join(" | ")),
                text(&run_state),
            ],
        );
    }
    super::doc::csv(&table)
}

/// The run as a markdown table, as a README would show it, then the run's sections (levels, the
/// instruction table, the clock, ...), as its text shows them after the cases.
pub fn to_markdown(run: &Run) -> String {
    let d = &run.device;
    let units = match (d.compute_units, &d.compute_unit) {
        (Some(n), Some(name)) => format!("{n} {name}"),
        _ => "compute units unknown".into(),
    };
    let about = format!(
        "{} ({}, {}, Vulkan {}; {units}; peaks: {}), perftest {}, {}",
        d.name,
        d.kind,
        d.driver,
        d.vulkan_version,
        d.architecture.as_deref().unwrap_or("unknown"),
        run.perftest_version,
        run.date
    );
    let mut blocks = vec![
        Block::Para(about),
        Block::Para(run.ending.line()),
        Block::Table(super::sections::cases::table(run.cases.iter(), false)),
    ];
    blocks.extend(super::sections::run(run));
    super::doc::markdown(&blocks)
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
        assert!(text.contains("|---|---|---|--:|--:|"), "numbers keep to the right: {text}");
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
