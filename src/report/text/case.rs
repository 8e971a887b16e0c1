//! One case's line, from its record alone (a live run and `perftest show` print the same): its
//! rates, per clock and share of peak, timing and flags, or how it ended untimed; and the note of
//! a case measured again.

use crate::format::sig4;
use crate::record::outcome::{Counted, Outcome, TIME_FOR};
use crate::results::flag::Flag;
use crate::results::model::{Amount, CaseResult, Status};

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
            format!(
                "compiled ({}; the driver's statistics of each below)",
                crate::format::count(n as usize, "pipeline executable")
            )
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

/// The original perftest's time of a case that carries it: the milliseconds 2^32 of its first
/// work unit would take at its rate.
pub fn original_ms(case: &CaseResult) -> Option<f64> {
    // The loader refuses a non-positive rate, so the time is finite.
    let first = case.rates.first().filter(|_| case.original_time)?;
    Some(TIME_FOR / first.value * 1e3)
}

/// The original perftest's columns of a case that leads with them: the time 2^32 of its first
/// work unit would take, and its ratio where it has one (`11.302ms 3.907x`).
pub fn original_lead(case: &CaseResult) -> Option<String> {
    let mut lead = format!("{:.3}ms", original_ms(case)?);
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
/// The rate of a case as text (`65.2 TFLOPS`), or its status.
pub fn rate_text(c: &CaseResult) -> String {
    match (&c.rate, c.status) {
        (Some(rate), _) => rate.text(),
        (None, Status::Verified | Status::Compiled) => c.status.word().into(),
        (None, _) => status_text(c),
    }
}
