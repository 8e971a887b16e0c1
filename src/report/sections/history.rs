//! `perftest history` as one view: a verdict line, then per device its runs, drivers, the changes
//! found (largest first, each confirmed or to confirm) and its chart; rendered as text, markdown
//! or a page (its JSON is the analysis's own serialization).

use super::super::doc::{self, Block};
use crate::analysis::history::{self, day, Change, Device, WrongBits, CONFIRM_RUNS, MIN_CHANGE, MIN_RUNS};
use crate::format::{count, si};

/// A change in a line: `Load R32f: -2.1% from run 7 (2026-11-07), 1.00 -> 0.98 Tloads/s, p 3e-6,
/// 6 runs after: confirmed; with driver NVIDIA 590.1`.
fn change_line(device: &Device, c: &Change) -> String {
    let state = match c.confirmed {
        true => "confirmed".to_owned(),
        false => format!("to confirm: {} more", count(CONFIRM_RUNS.saturating_sub(c.runs_after), "run")),
    };
    let driver = c.driver.as_ref().map_or(String::new(), |d| format!("; with the driver update to {d}"));
    format!(
        "{}: {:+.1}% from run {} ({}), {} -> {}, p {:.1e}, {} at the new level: {state}{driver}",
        c.case,
        c.change * 100.0,
        c.run + 1,
        day(&device.dates[c.run]),
        si(c.before, &c.unit),
        si(c.after, &c.unit),
        c.p,
        count(c.runs_after, "run")
    )
}

/// Wrong bits in a line: `run 3 (2026-11-03): SDC fp32 FMA chains, 2 of 1000 results wrong on unit 17`.
fn wrong_bits_line(device: &Device, w: &WrongBits) -> String {
    let units = match w.units.len() {
        0 => "an unknown unit".to_owned(),
        _ => format!(
            "{} {}",
            if w.units.len() == 1 { "unit" } else { "units" },
            w.units.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
        ),
    };
    format!(
        "run {} ({}): {}, {} of {} results wrong on {units}",
        w.run + 1,
        day(&device.dates[w.run]),
        w.case,
        w.mismatches,
        w.checked
    )
}

/// A device's wrong bits as a section: each run's, the units seen again, and the clean runs since
/// (which clear nothing).
fn wrong_bits_section(device: &Device) -> Block {
    let lines = device.wrong_bits.iter().map(|w| (wrong_bits_line(device, w), Vec::new())).collect();
    let again = device.units_seen_again();
    let again = match again.is_empty() {
        true => String::new(),
        false => format!(
            "; {} wrong again in a later run: confirmed",
            again.iter().map(|u| format!("unit {u}")).collect::<Vec<_>>().join(", ")
        ),
    };
    Block::Section {
        title: format!(
            "wrong bits (silent data corruption) in {}{again}; {} checked clean since, which clears nothing:",
            count(device.wrong_bit_runs(), "run"),
            count(device.clean_since, "run")
        ),
        id: String::new(),
        blocks: vec![Block::List(lines)],
    }
}

/// A device as a section: its runs, drivers and changes, its wrong bits, and its chart.
fn device_section(n: usize, device: &Device, charts: bool) -> Block {
    let runs = &device.dates;
    let hosts = match device.hosts.is_empty() {
        true => String::new(),
        false => format!(" on {}", device.hosts.join(", ")),
    };
    let mut blocks = vec![
        Block::Para(format!("settings: {}", device.settings)),
        Block::Para(format!(
            "{} from {} to {}{hosts}; {} tested ({MIN_RUNS} runs or more), {} with fewer",
            count(runs.len(), "run"),
            runs.first().map_or("", |d| day(d)),
            runs.last().map_or("", |d| day(d)),
            count(device.tested, "case"),
            device.short
        )),
    ];
    for d in &device.drivers {
        blocks.push(Block::Para(format!(
            "driver: {} -> {} at run {} ({})",
            d.from,
            d.to,
            d.run + 1,
            day(&runs[d.run])
        )));
    }
    if !device.wrong_bits.is_empty() {
        blocks.push(wrong_bits_section(device));
    }
    match device.changes.is_empty() {
        true => blocks.push(Block::Para(match device.drifts.first() {
            Some(d) => format!(
                "no change point; the largest drift (a trend, Mann-Kendall p <= {}, from the first run to the last): \
                 {} {:+.1}% ({} in all: read the chart)",
                history::options().max_p,
                d.case,
                d.change * 100.0,
                count(device.drifts.len(), "case")
            ),
            None => "no change".into(),
        })),
        false => {
            let lines = device.changes.iter().map(|c| (change_line(device, c), Vec::new())).collect();
            blocks.push(Block::Section {
                title: format!("changes ({}), largest first:", device.changes.len()),
                id: String::new(),
                blocks: vec![Block::List(lines)],
            });
        }
    }
    if charts {
        match crate::report::plot::history::svg(device) {
            Some(Ok(svg)) => blocks.push(Block::Chart { file: format!("device{}.svg", n + 1), svg }),
            Some(Err(why)) => blocks.push(Block::Para(format!("chart: not drawn ({why})"))),
            None => blocks.push(Block::Para("chart: none (no change and no drift to draw)".into())),
        }
    }
    Block::Section {
        title: format!("device {}: {}", n + 1, device.name()),
        id: format!("device{}", n + 1),
        blocks,
    }
}

/// The history's first line: how many changes, confirmed and not, and how they were found.
fn verdict(devices: &[Device]) -> String {
    let all: Vec<&Change> = devices.iter().flat_map(|d| d.changes.iter()).collect();
    let confirmed = all.iter().filter(|c| c.confirmed).count();
    let options = history::options();
    let wrong = devices.iter().filter(|d| !d.wrong_bits.is_empty()).count();
    let wrong = match wrong {
        0 => String::new(),
        n => format!("; {} with wrong bits (silent data corruption)", count(n, "device")),
    };
    format!(
        "history: {}, {}; {} confirmed by {CONFIRM_RUNS} runs or more, {} to \
         confirm (e-divisive means as Apache Otava runs it: window {}, p <= {}, changes of {:.0}% or more){wrong}",
        count(devices.len(), "device"),
        count(devices.iter().map(|d| d.dates.len()).sum::<usize>(), "run"),
        count(confirmed, "change"),
        all.len() - confirmed,
        options.window,
        options.max_p,
        MIN_CHANGE * 100.0
    )
}

/// The whole history: its verdict line, then a section per device with [`MIN_RUNS`] runs or
/// more (with charts on a page), then a line for those with fewer (the JSON lists them).
pub fn blocks(devices: &[Device], charts: bool) -> Vec<Block> {
    let mut blocks = vec![Block::Para(verdict(devices))];
    // A device with wrong bits is shown however few its runs.
    let shown = |d: &Device| d.dates.len() >= MIN_RUNS || !d.wrong_bits.is_empty();
    for (n, device) in devices.iter().enumerate().filter(|(_, d)| shown(d)) {
        blocks.push(Block::Gap);
        blocks.push(device_section(n, device, charts));
    }
    let few = devices.iter().filter(|d| !shown(d)).count();
    if few > 0 {
        blocks.push(Block::Gap);
        blocks.push(Block::Para(format!(
            "not tested: {} or settings with fewer than {MIN_RUNS} runs (--format json lists them)",
            count(few, "device")
        )));
    }
    blocks
}

/// The history as text, each line fitting 120 columns.
pub fn to_text(devices: &[Device]) -> String {
    crate::report::columns::fit(doc::text(&blocks(devices, false)).trim_end()) + "\n"
}

/// The history as markdown.
pub fn to_markdown(devices: &[Device]) -> String {
    doc::markdown_document("perftest history", &blocks(devices, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_bits_are_shown_with_the_clean_runs_since_and_the_verdict_counts_them() {
        let device = Device {
            model: "NVIDIA H200".into(),
            uuid: Some("GPU-1".into()),
            settings: "20 ms".into(),
            dates: (1..=3).map(|d| format!("2026-11-0{d}T00:00:00Z")).collect(),
            hosts: Vec::new(),
            drivers: Vec::new(),
            tested: 0,
            short: 4,
            changes: Vec::new(),
            drifts: Vec::new(),
            series: Vec::new(),
            wrong_bits: vec![WrongBits {
                run: 0,
                case: "SDC fp32 FMA chains".into(),
                mismatches: 2,
                checked: 1000,
                units: vec![17],
            }],
            clean_since: 2,
        };
        let text = to_text(std::slice::from_ref(&device));
        assert!(text.contains("1 device with wrong bits (silent data corruption)"), "{text}");
        assert!(
            text.contains("wrong bits (silent data corruption) in 1 run; 2 runs checked clean since"),
            "{text}"
        );
        assert!(
            text.contains("run 1 (2026-11-01): SDC fp32 FMA chains, 2 of 1000 results wrong on unit 17"),
            "{text}"
        );
        // Three runs are too few to test for changes, but never too few to show wrong bits.
        assert!(!text.contains("not tested"), "{text}");
    }
}
