//! What a run prints: the header, and one line per case.

use crate::results::model::Run;
pub use case::{line, original_lead, per_clock, rate_text, retry_note, status_text};

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
    let mut printed = super::columns::CaseLines::default();
    let mut lines = String::new();
    for case in &run.cases {
        lines.push_str(&printed.next(&layouts, case));
        lines.push('\n');
    }
    let end = super::columns::fit(&format!("{}\n{}", summary(run), run.ending.line()));
    format!("{}\n{lines}{end}\n", header(run, false))
}

/// What follows the last case's line, before how the run ended: the run's sections
/// ([`crate::report::sections::run`]: the memory levels, the instruction table, the per-unit rates,
/// the clock, flagged baselines, the devices that ran at the same time, where the time went,
/// another process on the GPU, and the answer: the run's findings), as lines.
pub fn summary(run: &Run) -> String {
    let text = crate::report::doc::text(&crate::report::sections::run(run));
    text.strip_suffix('\n').unwrap_or(&text).to_owned()
}

pub mod case;
pub mod header;
#[cfg(test)]
mod tests;

pub use header::header;
