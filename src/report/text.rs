//! What a run prints: the header, and one line per case.

use crate::format::{seconds_text, sig4};
use crate::record::outcome::{Counted, Outcome, TIME_FOR};
use crate::results::flag::Flag;
use crate::results::model::Amount;
use crate::results::model::{CaseResult, Run, Status};

/// The whole text document of a run, as a live run prints it to stdout (less its progress bar):
/// the header, a line per case with its notes, the memory levels, the clock and baseline
/// summaries, and how the run ended; each line fits 120 columns ([`super::columns`]), or, with
/// `verbose`, each case's full line. `perftest show` prints a saved run with it.
pub fn document(run: &Run, verbose: bool) -> String {
    if verbose {
        let lines: String = run.cases.iter().map(|c| line(c) + "\n").collect();
        return format!("{}\n{lines}{}\n{}\n", header(run, true), summary(run), run.ending.line());
    }
    let layouts = super::columns::Layouts::of_run(run);
    let lines: String = run.cases.iter().map(|c| layouts.line(c) + "\n").collect();
    let end = super::columns::fit(&format!("{}\n{}", summary(run), run.ending.line()));
    format!("{}\n{lines}{end}\n", header(run, false))
}

/// What follows the last case's line, before how the run ended: the memory levels, the
/// instruction table, the clock summary, the flagged baselines and the devices that ran at the
/// same time.
pub fn summary(run: &Run) -> String {
    let together = header::together(run).map_or(String::new(), |t| format!("\ntogether: {t}"));
    format!(
        "{}{}{}{}{}{together}{}{}",
        levels(&run.levels),
        instructions(run),
        units::units(run),
        clock_summary(run),
        baselines_summary(run),
        time_summary(run),
        sharing_summary(run)
    )
}

/// The line after the clock's that says where the run's wall time went: how much of it the GPU
/// spent on timed samples, and the cases' phases, largest first (empty for files that did not
/// keep them): `\ntime: 415 s wall; timed samples kept the GPU busy for 179 s (43%); the cases:
/// samples 185 s, warm-up 60 s, ...; outside them (device, pipelines, warm-up) 12 s`.
pub fn time_summary(run: &Run) -> String {
    let Some((wall, sum)) = run.time_spent() else { return String::new() };
    let list: Vec<String> = sum
        .largest_first()
        .iter()
        .filter(|(_, ms)| *ms >= 50.0)
        .map(|(name, ms)| format!("{name} {}", seconds_text(ms / 1e3)))
        .collect();
    let busy = sum.samples_gpu_ms / 1e3;
    let busy = match busy > 0.0 {
        true => {
            format!(
                "; timed samples kept the GPU busy for {} ({:.0}%)",
                seconds_text(busy),
                busy / wall * 100.0
            )
        }
        false => String::new(),
    };
    format!(
        "\ntime: {} wall{busy}; the cases: {}; outside them (device, pipelines, warm-up) {}",
        seconds_text(wall),
        if list.is_empty() { "none over 0.05 s".to_owned() } else { list.join(", ") },
        seconds_text((wall - sum.total_ms / 1e3).max(0.0))
    )
}

/// The line after the cases: the run's median clock and its range, and which cases ran 5% or
/// more off it; or why clocks are unknown.
pub fn clock_summary(run: &Run) -> String {
    let clocks: Vec<f64> = run.cases.iter().filter_map(|c| c.clock_mhz).collect();
    let Some(median) = run.clock_median_mhz.filter(|_| !clocks.is_empty()) else {
        return format!("clock: {}", run.device.clock.as_deref().unwrap_or("unknown"));
    };
    let (low, high) = clocks.iter().fold((f64::MAX, f64::MIN), |(l, h), &c| (l.min(c), h.max(c)));
    let throttled: Vec<&str> = run.cases.iter().filter(|c| c.throttled()).map(|c| c.name.as_str()).collect();
    let off = match throttled.len() {
        0 => "none 5% or more off it".to_owned(),
        n => format!("{n} case(s) 5% or more off it, flagged throttled: {}", throttled.join(", ")),
    };
    format!(
        "clock: median {median:.0} MHz over {} timed case(s), from {low:.0} to {high:.0} MHz; {off}{}",
        clocks.len(),
        clock_sources(run)
    )
}

/// How the cases' clocks were read, for runs that kept it (format 8): `; read beside the work in
/// 1445 (median uncertainty 0.06%), around the samples in 68; 81 held below the warm-up's level by
/// their own load`.
fn clock_sources(run: &Run) -> String {
    use crate::record::measurement::ClockSource;
    let reads: Vec<&crate::record::measurement::ClockRead> =
        run.cases.iter().filter_map(|c| c.clock.as_ref()).collect();
    if reads.is_empty() {
        return String::new();
    }
    let witnessed: Vec<f64> =
        reads.iter().filter(|r| r.source == ClockSource::Witness).filter_map(|r| r.uncertainty).collect();
    let probed = reads.iter().filter(|r| r.source == ClockSource::Probe).count();
    let mut text = match crate::record::stats::median(witnessed.iter().copied()) {
        Some(u) => format!(
            "; read beside the work in {} (median uncertainty {:.2}%), around the samples in {probed}",
            witnessed.len(),
            u * 100.0
        ),
        None => format!("; read around the samples in {probed}"),
    };
    let own = reads.iter().filter(|r| r.own_load).count();
    if own > 0 {
        text.push_str(&format!("; {own} held below the warm-up's level by their own load"));
    }
    text
}

/// The line that says another process used the run's GPU, where one did (empty otherwise):
/// `\nshared: another process used this GPU in 26 of 26 readings (pid 1935 (python3, 1.1 GiB));
/// its rates are perftest's slices of a shared GPU, no screen of it`.
pub fn sharing_summary(run: &Run) -> String {
    match crate::analysis::screen::shared(run) {
        Some(why) => {
            format!("\nshared: {why}; these rates are perftest's slices of a shared GPU, no screen of it")
        }
        None => String::new(),
    }
}

/// The lines after the clock's that name each baseline with flags of its own, and how many
/// ratios are against it (empty when there is none): `\nbaseline "X" flagged (throttled: ...):
/// its 137 ratio(s) are doubtful`.
pub fn baselines_summary(run: &Run) -> String {
    run.flagged_baselines()
        .iter()
        .map(|(name, flags, ratios)| {
            format!(
                "\nbaseline \"{name}\" flagged ({}): the {ratios} ratio(s) against it are doubtful",
                flags.join("; ")
            )
        })
        .collect()
}

/// The note of a case measured again whose kept try was fine: why the earlier tries were not.
pub fn retry_note(outcome: &Outcome) -> Option<String> {
    let Outcome::Timed { measurement: m, .. } = outcome else { return None };
    (!m.retries.is_empty() && !m.gave_up).then(|| Flag::Remeasured { retries: m.retries.clone() }.to_string())
}

/// What a case that was not timed ended as: `verified (512 results match the CPU reference)`,
/// `compiled (2 pipeline executable(s); ...)`, `skipped (the device lacks shaderFloat64)`.
pub fn status_text(case: &CaseResult) -> String {
    match (case.status, case.checked, case.executables) {
        (Status::Verified, Some(n), _) => format!("verified ({n} results match the CPU reference)"),
        (Status::Compiled, _, Some(n)) => {
            format!("compiled ({n} pipeline executable(s); the driver's statistics of each below)")
        }
        (Status::Compiled, _, None) => {
            "compiled (the driver reports no statistics: VK_KHR_pipeline_executable_properties)".into()
        }
        (status, _, _) => match case.reason.as_deref() {
            Some(reason) => format!("{} ({reason})", status.word()),
            None => status.word().to_owned(),
        },
    }
}

/// A case's lines, from its record alone (a live run and `perftest show` print the same): `name:
/// rates = per clock at MHz, % of peak  (median, min, spread, dispatch)  [flags]`, or the
/// verification, skip or failure; then each note, indented. Flags only the whole run knows
/// ([`Flag::in_line`]) are left to the summary after the cases.
pub fn line(case: &CaseResult) -> String {
    let name = &case.name;
    let reason = case.reason.as_deref().unwrap_or("");
    let mut line = match (case.status, case.median_ms) {
        (Status::Ok, Some(median)) => format!("{name}: {}", timed(case, median)),
        (Status::Ok, None) => format!("{name}: {reason}"),
        _ => format!("{name}: {}", status_text(case)),
    };
    for note in &case.notes {
        line.push_str(&format!("\n    {note}"));
    }
    line
}

/// The original perftest's columns of a case that leads with them: the time 2^32 of its first
/// work unit would take, and its ratio where it has one (`11.302ms 3.907x`).
pub fn original_lead(case: &CaseResult) -> Option<String> {
    // The loader refuses a non-positive rate, so the time is finite.
    let first = case.rates.first().filter(|_| case.original_time)?;
    let mut lead = format!("{:.3}ms", TIME_FOR / first.value * 1e3);
    if let Some(r) = case.ratio {
        lead.push_str(&format!(" {r:.3}x"));
    }
    Some(lead)
}

/// A timed line after the name.
fn timed(case: &CaseResult, median: f64) -> String {
    let rates: Vec<String> = case.rates.iter().map(Amount::text).collect();
    let lead = original_lead(case).map_or_else(String::new, |lead| lead + "  ");
    let dispatch = match case.dispatch {
        Some(d) => format!(" of {} {}", d.count, d.counted),
        None => String::new(),
    };
    let flags: String = case.flags.iter().filter_map(Flag::in_line).map(|f| format!("  [{f}]")).collect();
    // perftest writes both with the median; an edited file may not: "unknown", never NaN.
    let min = case.min_ms.map_or("unknown".to_owned(), |ms| format!("{ms:.3} ms"));
    let cv = case.cv.map_or("unknown".to_owned(), |cv| format!("{:.1}%", cv * 100.0));
    format!(
        "{lead}{}{}  (median {median:.3} ms, min {min}, cv {cv}, {} samples{dispatch}){flags}",
        rates.join(", "),
        per_clock(case),
        case.samples_ms.len(),
    )
}

/// What a timed line says after the rates: ` = 7.794 loads/clk/SM, 124.7 B/clk/SM at 1980 MHz,
/// 97.4% of L1 peak`, with "unknown" for what is not known. A share of the host link needs no
/// clock: a transfer says ` a transfer: no rate per clock or compute unit, 80.5% of host link peak`.
pub fn per_clock(case: &CaseResult) -> String {
    let ceiling = case.peak.as_ref().map(|p| p.ceiling.as_str());
    let share =
        case.peak_percent.zip(ceiling).map(|(percent, ceiling)| format!(", {percent:.1}% of {ceiling} peak"));
    if case.dispatch.is_some_and(|d| d.counted == Counted::Copies) {
        return format!(", a transfer: no rate per clock or compute unit{}", share.unwrap_or_default());
    }
    if case.dispatch.is_some_and(|d| d.counted == Counted::Submissions) {
        return ", round trips timed by the CPU: no rate per clock or compute unit".into();
    }
    let Some(mhz) = case.clock_mhz else {
        return match share {
            Some(share) => format!(", per clock unknown{share}"),
            None => ", per clock and peak unknown".into(),
        };
    };
    // The trust layer gives rates per compute unit only where it knows the units, and clocks per
    // dependent load, which need no unit count, wherever it knows the clock.
    let mut text = match case.per_clock.is_empty() {
        true => format!(" at {mhz:.0} MHz, per compute unit unknown"),
        false => {
            let rates: Vec<String> =
                case.per_clock.iter().map(|a| format!("{} {}", sig4(a.value), a.unit)).collect();
            format!(" = {} at {mhz:.0} MHz", rates.join(", "))
        }
    };
    text.push_str(share.as_deref().unwrap_or(", peak unknown"));
    text
}

/// One line per variant: `levels: Sweep SSBO vec4 linear: L1 32.6 TB/s up to 192 KiB; L2 9.1 TB/s
/// up to 48 MiB; DRAM 3.13 TB/s (from 128 MiB)`.
pub fn levels(all: &[crate::results::levels::Levels]) -> String {
    all.iter()
        .map(|l| {
            let count = l.levels.len();
            let parts: Vec<String> = l
                .levels
                .iter()
                .enumerate()
                .map(|(i, level)| {
                    let rate = match l.unit.as_str() {
                        crate::analysis::levels::LATENCY => format!("{} ns", crate::format::sig4(level.rate)),
                        unit => crate::format::si(level.rate, unit),
                    };
                    if i + 1 == count {
                        format!(
                            "{} {rate} (from {})",
                            level.name,
                            crate::format::format_bytes(level.from_bytes)
                        )
                    } else {
                        format!("{} {rate} up to {}", level.name, crate::format::format_bytes(level.to_bytes))
                    }
                })
                .collect();
            format!("levels: {}: {}\n", l.variant, parts.join("; "))
        })
        .collect()
}

pub mod header;
mod instructions;
#[cfg(test)]
mod tests;
mod units;

pub use header::header;
pub use instructions::instructions;
