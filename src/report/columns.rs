//! The default text line: the original's `NAME: X.XXXms Y.YYYx` prefix, then aligned columns per
//! family that fit a 120-column terminal; `--verbose` prints the full line (`text::line`).
//!
//! A family's layout is decided by its names (its widest one, and whether its lines lead with the
//! original's time and ratio) and by the device row's record (whether clocks were measured and
//! peaks are known: on a device where neither is, such as lavapipe, those columns would say
//! "unknown" on every line, and the header says why once). So a live run, which knows its cases
//! and device before they run, and `perftest show`, which reads them back, print the same
//! columns. Columns are added in order of use (rate, share of peak, per clock per compute unit,
//! second rate) while they fit; flags go after them as short names, or on a line of their own
//! where they do not fit.

use crate::results::model::Amount;
use std::collections::{BTreeMap, HashMap};

use super::doc::{self, Align, Block, Cell, Table};
use super::text::case as text;
use crate::format::sig4;
use crate::record::outcome::Counted;
use crate::results::family::FamilyFacts;
use crate::results::model::{CaseResult, Status};

/// The width every line of the default text output fits in.
pub const WIDTH: usize = 120;

/// Room kept at the end of a line for short flags (`[noisy]`).
const FLAG_ROOM: usize = 7;

/// The original's `X.XXXms Y.YYYx` at its widest usual value (`999.999ms 9.999x`).
const LEAD: usize = 16;

/// One column after the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    /// The headline rate (`1.92 Tloads/s`).
    Rate,
    /// The headline rate per clock per compute unit (`7.349 loads/clk/SM`).
    PerClock,
    /// The share of a known peak, and which (`45.9% L1`, `80.1% host link`).
    Peak,
    /// The second rate (`15.4 TB/s`).
    Second,
}

impl Column {
    /// In the order columns are added while they fit (a line shows them in declaration order).
    const BY_PRIORITY: [Column; 4] = [Column::Rate, Column::Peak, Column::PerClock, Column::Second];

    /// The width a cell is right-aligned to.
    fn width(self) -> usize {
        match self {
            Column::Rate => 13,
            Column::PerClock => 19,
            Column::Peak => 15,
            Column::Second => 10,
        }
    }

    /// What `case` shows in this column (empty where it has nothing to show).
    fn cell(self, case: &CaseResult) -> String {
        let counted = case.dispatch.map(|d| d.counted);
        match self {
            Column::Rate => case.rates.first().map(Amount::text).unwrap_or_default(),
            Column::Second => case.rates.get(1).map(Amount::text).unwrap_or_default(),
            Column::PerClock => match (counted, case.clock_mhz, case.per_clock.first()) {
                (Some(Counted::Copies), ..) => "a transfer".into(),
                (Some(Counted::Submissions), ..) => "CPU-timed".into(),
                (_, None, _) => "per clk unknown".into(),
                (_, Some(_), None) => "per CU unknown".into(),
                (_, Some(_), Some(rate)) => format!("{} {}", sig4(rate.value), rate.unit),
            },
            Column::Peak => {
                let ceiling = case.peak.as_ref().map(|p| p.ceiling.as_str());
                match (case.peak_percent, ceiling) {
                    (Some(percent), Some(ceiling)) => format!("{percent:.1}% {ceiling}"),
                    _ => "peak unknown".into(),
                }
            }
        }
    }
}

/// How one family's timed lines are laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Layout {
    /// Where the first column starts: the widest name, its colon and the original's lead.
    lead: usize,
    /// The columns that fit, in order.
    columns: Vec<Column>,
}

impl Layout {
    /// The layout of a family whose widest name is `name` characters long, with the original's
    /// time and ratio after the name where `timed_prefix`, on a device that `known` describes.
    fn new(name: usize, timed_prefix: bool, known: Known) -> Self {
        let lead = name + 1 + if timed_prefix { 1 + LEAD } else { 0 };
        let mut columns = Vec::new();
        let mut end = lead;
        let useful = |column: &Column| match column {
            Column::PerClock => known.clock,
            Column::Peak => known.peaks,
            Column::Rate | Column::Second => true,
        };
        for column in Column::BY_PRIORITY.into_iter().filter(useful) {
            if column == Column::Rate || end + 2 + column.width() + FLAG_ROOM <= WIDTH {
                end += 2 + column.width();
                columns.push(column);
            }
        }
        columns.sort_by_key(|&column| column as u8);
        Layout { lead, columns }
    }
}

/// Per family of `cases` (family, name, leads with the original's time and ratio): its widest
/// name in characters, and whether any of its lines leads so: what a layout is made of.
pub fn widths<'a>(
    cases: impl IntoIterator<Item = (&'a str, &'a str, bool)>,
) -> BTreeMap<String, (usize, bool)> {
    let mut widest: BTreeMap<String, (usize, bool)> = BTreeMap::new();
    for (family, name, timed_prefix) in cases {
        let entry = widest.entry(family.to_owned()).or_default();
        *entry = (entry.0.max(name.chars().count()), entry.1 || timed_prefix);
    }
    widest
}

/// What the device row's record says the columns can show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    /// The clock was measured for each case, so rates per clock are known.
    pub clock: bool,
    /// The architecture's peaks are known, so shares of a peak are.
    pub peaks: bool,
}

impl Known {
    /// What `device` (a run's record of its row) lets the columns show.
    pub fn of(device: &crate::results::model::Device) -> Self {
        Known { clock: device.clock_known(), peaks: device.architecture.is_some() }
    }
}

/// Everything known: what a line rendered without its run shows.
impl Default for Known {
    fn default() -> Self {
        Known { clock: true, peaks: true }
    }
}

/// The layout of every family of a run.
#[derive(Clone, Debug, Default)]
pub struct Layouts {
    families: HashMap<String, Layout>,
    known: Known,
}

impl Layouts {
    /// The layouts of the families of `cases` on a device that `known` describes: each case's
    /// family, name, and whether its line leads with the original's time and ratio (a case with a
    /// baseline). A family that `families` says has no case with a known peak (latency,
    /// dispatch, branch) has no peak column; one it does not name might.
    pub fn of<'a>(
        cases: impl IntoIterator<Item = (&'a str, &'a str, bool)>,
        families: &[FamilyFacts],
        known: Known,
    ) -> Self {
        Self::of_widths(&widths(cases), families, known)
    }

    /// The layouts of families of these widths ([`widths`]), as [`Layouts::of`].
    fn of_widths(widths: &BTreeMap<String, (usize, bool)>, facts: &[FamilyFacts], known: Known) -> Self {
        let has_peak = |name: &str| facts.iter().find(|f| f.name == name).is_none_or(|f| f.has_peak);
        let families = widths
            .iter()
            .map(|(f, &(name, prefix))| {
                let known = Known { peaks: known.peaks && has_peak(f), ..known };
                (f.clone(), Layout::new(name, prefix, known))
            })
            .collect();
        Layouts { families, known }
    }

    /// The layouts of a run's families, as its live run printed them: from its cases and those
    /// it did not reach (or a format-6 file's kept widths).
    pub fn of_run(run: &crate::results::model::Run) -> Self {
        let known = Known::of(&run.device);
        if !run.legacy_line_widths.is_empty() {
            return Self::of_widths(&run.legacy_line_widths, &run.families, known);
        }
        let cases = run.cases.iter().map(|c| (c.family.as_str(), c.name.as_str(), c.original_time));
        let not_run = run.not_run.iter().map(|n| (n.family.as_str(), n.name.as_str(), n.original_time));
        Self::of(cases.chain(not_run), &run.families, known)
    }

    /// The default line of `case`, with its notes below it, each fitting [`WIDTH`] columns.
    pub fn line(&self, case: &CaseResult) -> String {
        let (Status::Ok, Some(_)) = (case.status, case.median_ms) else {
            return fit(&text::line(case));
        };
        let fallback;
        let layout = match self.families.get(&case.family) {
            Some(layout) => layout,
            None => {
                fallback = Layout::new(case.name.chars().count(), case.original_time, self.known);
                &fallback
            }
        };
        let mut head = format!("{}:", case.name);
        if let Some(lead) = text::original_lead(case) {
            head = format!("{head} {lead}");
        }
        // One row through the one aligner, its columns as wide as the layout says: a cell wider
        // than its column (a long unit, a time of 1000 ms or more) shifts the rest; past the
        // width, the line wraps rather than overflows.
        let mut table = Table::new(
            std::iter::once(doc::Column { name: String::new(), align: Align::Left, width: layout.lead })
                .chain(layout.columns.iter().map(|c| doc::Column::right("", c.width())))
                .collect(),
        );
        table.text_head = false;
        let cells = layout.columns.iter().map(|c| Cell::Text(c.cell(case)));
        table.push(None, std::iter::once(Cell::Text(head)).chain(cells).collect());
        let mut line = fit(doc::text(&[Block::Table(table)]).trim_end());
        let flags: Vec<String> =
            case.flags.iter().filter_map(|f| f.in_line()).map(|f| format!("[{}]", f.name())).collect();
        if !flags.is_empty() {
            let flags = flags.join(" ");
            let last = line.rsplit('\n').next().unwrap_or("");
            let joint =
                if last.chars().count() + 2 + flags.chars().count() <= WIDTH { "  " } else { "\n    " };
            line = format!("{line}{joint}{flags}");
        }
        for note in &case.notes {
            line.push('\n');
            line.push_str(&wrap(note, "    ", "      "));
        }
        line
    }
}

/// `text` with each line longer than [`WIDTH`] wrapped at a space, its continuation indented to
/// where its value starts (after `label:` and its spaces, as in the header), or by four.
pub fn fit(text: &str) -> String {
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            if line.chars().count() <= WIDTH {
                return line.to_owned();
            }
            let body = line.trim_start();
            let indent = line.len() - body.len();
            // Where the value starts, in characters: after `label:` and its spaces.
            let value = body.find(": ").map(|colon| {
                let after = &body[colon + 1..];
                indent + body[..colon + 1].chars().count() + after.len() - after.trim_start().len()
            });
            let hang = value.filter(|&v| v <= 16).unwrap_or(indent + 4);
            wrap(body, &line[..indent], &" ".repeat(hang))
        })
        .collect();
    lines.join("\n")
}

/// `text` wrapped to [`WIDTH`] with these indents.
fn wrap(text: &str, first: &str, rest: &str) -> String {
    let options = textwrap::Options::new(WIDTH).initial_indent(first).subsequent_indent(rest);
    textwrap::wrap(text, options).join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::Amount;

    fn timed(family: &str, name: &str, original: bool) -> CaseResult {
        let mut case = CaseResult::of(
            name,
            &crate::record::outcome::Outcome::Skipped(String::new()),
            &Default::default(),
            None,
        );
        case.family = family.into();
        case.status = Status::Ok;
        case.reason = None;
        case.median_ms = Some(20.0);
        case.original_time = original;
        case.ratio = original.then_some(1.25);
        case.rates = vec![
            Amount { value: 1.92e12, unit: "loads/s".into() },
            Amount { value: 15.4e12, unit: "B/s".into() },
        ];
        case.clock_mhz = Some(1980.0);
        case.per_clock = vec![Amount { value: 7.349, unit: "loads/clk/SM".into() }];
        case.peak_percent = Some(45.9);
        case.peak = crate::results::model::Peak::parse("L1: 128.0 B/clk/SM");
        case
    }

    #[test]
    fn a_line_keeps_the_original_prefix_and_aligns_its_columns() {
        let short = timed("load", "Buffer<R8>.Load uniform", true);
        let long = timed("load", "ByteAddressBuffer.Load4 unaligned random", true);
        let names = [&short, &long].map(|c| (c.family.as_str(), c.name.as_str(), true));
        let layouts = Layouts::of(names, &[], Known::default());
        let (a, b) = (layouts.line(&short), layouts.line(&long));
        let time = crate::record::outcome::TIME_FOR / 1.92e12 * 1e3;
        assert!(a.starts_with(&format!("Buffer<R8>.Load uniform: {time:.3}ms 1.250x  ")), "{a}");
        assert_eq!(a.find("1.92 Tloads/s"), b.find("1.92 Tloads/s"), "aligned:\n{a}\n{b}");
        assert!(a.contains("7.349 loads/clk/SM") && a.contains("45.9% L1"), "{a}");
        assert!(a.chars().count() <= WIDTH && b.chars().count() <= WIDTH, "\n{a}\n{b}");
    }

    #[test]
    fn a_long_name_drops_the_last_columns_and_flags_that_do_not_fit_go_below() {
        let name = "GEMM bf16*bf16+f32 8192^3 workgroup tiles 128x256x64 (256 invocations)";
        let mut case = timed("gemm", name, false);
        case.flags = vec![crate::results::flag::Flag::Noisy, crate::results::flag::Flag::Unsettled];
        let line = Layouts::default().line(&case);
        let first = line.lines().next().unwrap();
        assert!(first.starts_with(&format!("{name}:")) && first.contains("1.92 Tloads/s"), "{line}");
        assert!(first.contains("45.9% L1"), "the peak comes before the per-clock rate: {line}");
        assert!(!first.contains("15.4 TB/s"), "the second rate does not fit: {line}");
        assert!(line.lines().all(|l| l.chars().count() <= WIDTH), "{line}");
        assert!(line.contains("[noisy] [unsettled]"), "{line}");
    }

    #[test]
    fn unknowns_say_unknown_and_skips_wrap() {
        let mut case = timed("load", "Buffer<R8>.Load uniform", true);
        (case.clock_mhz, case.per_clock, case.peak_percent) = (None, Vec::new(), None);
        let line = Layouts::default().line(&case);
        assert!(line.contains("per clk unknown") && line.contains("peak unknown"), "{line}");
        let reason = "the device lacks ".to_owned() + &"shaderFloat64 and more, ".repeat(8);
        let skipped = CaseResult::of(
            "ALU fp64 FMA",
            &crate::record::outcome::Outcome::Skipped(reason),
            &Default::default(),
            None,
        );
        let text = Layouts::default().line(&skipped);
        assert!(
            text.starts_with("ALU fp64 FMA: skipped (the device lacks") && text.lines().count() > 1,
            "{text}"
        );
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
    }

    #[test]
    fn a_device_without_clocks_or_peaks_shows_neither_column() {
        let case = timed("load", "Buffer<R8>.Load uniform", true);
        let names = [(case.family.as_str(), case.name.as_str(), true)];
        let layouts = Layouts::of(names, &[], Known { clock: false, peaks: false });
        let line = layouts.line(&case);
        assert!(line.contains("1.92 Tloads/s") && line.contains("15.4 TB/s"), "{line}");
        assert!(!line.contains("loads/clk") && !line.contains("L1"), "{line}");
    }

    #[test]
    fn every_line_of_the_kept_runs_fits_and_keeps_the_original_prefix() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/report");
        for file in ["h100/parta.json", "h100/partb.json", "h200/parta.json", "lavapipe/run.json"] {
            let run = crate::results::load(&root.join(file)).unwrap();
            let text = crate::report::text::document(&run, false);
            let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > WIDTH).collect();
            assert!(long.is_empty(), "{file}: {long:#?}");
            let original = run.cases.iter().find(|c| c.original_time && c.ratio.is_some()).unwrap();
            let prefix = format!("\n{}: {}  ", original.name, text::original_lead(original).unwrap());
            assert!(text.contains(&prefix), "{file}: no line starts {prefix:?}");
        }
    }

    #[test]
    fn a_family_without_a_peak_has_no_peak_column() {
        let mut case = timed("latency", "Latency pointer 16 KiB", false);
        case.peak_percent = None;
        let families = FamilyFacts::of_names(["latency", "load"]);
        let layouts = Layouts::of([("latency", case.name.as_str(), false)], &families, Known::default());
        assert!(!layouts.line(&case).contains("peak unknown"), "{}", layouts.line(&case));
        let loads = Layouts::of([("load", case.name.as_str(), false)], &families, Known::default());
        assert!(loads.line(&case).contains("peak unknown"));
    }

    #[test]
    fn fit_wraps_a_header_line_under_its_value() {
        let line = format!("peaks:      {}", "fp32 FMA 256.0 FLOP/clk/SM, ".repeat(8));
        let text = fit(&line);
        let mut lines = text.lines();
        assert!(lines.next().unwrap().starts_with("peaks:      fp32"));
        let hangs = |l: &str| l.starts_with(&" ".repeat(12)) && !l.starts_with(&" ".repeat(13));
        assert!(lines.all(|l| hangs(l) && l.chars().count() <= WIDTH), "{text}");
        assert_eq!(fit("short\nlines"), "short\nlines");
    }

    #[test]
    fn show_of_an_interrupted_run_prints_the_columns_the_live_run_printed() {
        // The run stopped after the short name; the long one was selected but never ran.
        let short = timed("load", "Buffer<R8>.Load uniform", true);
        let long = timed("load", "ByteAddressBuffer.Load4 unaligned random", true);
        let selected = [&short, &long].map(|c| (c.family.as_str(), c.name.as_str(), true));
        let mut run = crate::results::model::tests::sample_run();
        run.device.clock = Some(crate::results::model::CLOCK_MEASURED.into());
        let live = Layouts::of(selected, &[], Known::of(&run.device)).line(&short);
        assert!(live.contains("7.349 loads/clk/SM") && live.contains("45.9% L1"), "{live}");
        let not_run = crate::results::model::NotRun {
            family: "load".into(),
            name: long.name.clone(),
            original_time: true,
        };
        (run.interrupted, run.not_run, run.cases) = (true, vec![not_run], vec![short.clone()]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, crate::report::write::to_json(&run).unwrap()).unwrap();
        let saved = crate::results::load(&path).unwrap();
        let shown = Layouts::of_run(&saved).line(&short);
        assert_eq!(shown, live);
        // Without the cases not reached, the finished cases alone would decide, and the columns move.
        let finished =
            Layouts::of([("load", short.name.as_str(), true)], &[], Known::of(&run.device)).line(&short);
        assert_ne!(shown.find("1.92 Tloads/s"), finished.find("1.92 Tloads/s"), "\n{shown}\n{finished}");
    }
}
