//! The default text lines: a heading per family (what it measures, what its ratio is against, and
//! a label over each column), then a line per case: its name, its rate first, the original's "ms
//! for 2^32" and ratio where the family has them (an instruction's cost in fp32 FMAs, as in the
//! instruction table), then what fits of the share of peak, the rate per clock per compute unit
//! and a second rate, each column aligned through the family; `--verbose` prints each case's full
//! line (`text::line`).
//!
//! A family's layout is decided by its names (its widest one, and whether its lines carry the
//! original's time and ratio) and by the device row's record (whether clocks were measured and
//! peaks are known: on a device where neither is, such as lavapipe, those columns would say
//! "unknown" on every line, and `--verbose`'s header says why). So a live run, which knows its
//! cases and device before they run, and `perftest show`, which reads them back, print the same
//! columns. Columns are added in order of use (rate, the original's, share of peak, per clock per
//! compute unit, second rate) while they fit; flags go after them as short names, or on a line of
//! their own where they do not fit. A case that was not timed says why on one line.

use std::collections::{BTreeMap, HashMap};

use super::doc::{self, Align, Block, Cell, Table};
use super::text::case as text;
use crate::analysis::instructions;
use crate::format::{pad_end, sig4};
use crate::record::outcome::Counted;
use crate::results::family::FamilyFacts;
use crate::results::model::{Amount, CaseResult, Status};

/// The width every line of the default text output fits in.
pub const WIDTH: usize = 120;

/// Room kept at the end of a line for a short flag (a longer one goes on the line below).
const FLAG_ROOM: usize = 4;

/// The longest clause of what a family measures that its heading quotes.
const TITLE: usize = 64;

/// One column after the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    /// The headline rate (`1.92 Tloads/s`).
    Rate,
    /// The original's time for 2^32 of the first unit in milliseconds (`2.235`).
    Original,
    /// The rate over the family's baseline (`1.018x`), or an instruction's cost in fp32 FMAs.
    Ratio,
    /// The headline rate per clock per compute unit (`7.349 loads/clk/SM`).
    PerClock,
    /// The share of a known peak, and which (`45.9% L1`, `80.1% host link`).
    Peak,
    /// The second rate (`15.4 TB/s`).
    Second,
}

impl Column {
    /// In the order columns are added while they fit (a line shows them in declaration order).
    const BY_PRIORITY: [Column; 6] =
        [Column::Rate, Column::Original, Column::Ratio, Column::Peak, Column::PerClock, Column::Second];

    /// The width a cell is right-aligned to; `cost` where the ratio is read as a cost.
    fn width(self, cost: bool) -> usize {
        match self {
            Column::Rate => 13,
            Column::Original => 11,
            Column::Ratio if cost => 10,
            Column::Ratio => 7,
            Column::PerClock => 18,
            Column::Peak => 15,
            Column::Second => 11,
        }
    }

    /// The label over the column in a family's heading; `cost` where the ratio is read as a cost.
    fn label(self, cost: bool) -> &'static str {
        match (self, cost) {
            (Column::Rate, _) => "rate",
            (Column::Original, _) => "ms for 2^32",
            (Column::Ratio, false) => "ratio",
            (Column::Ratio, true) => "cost",
            (Column::PerClock, _) => "per clock",
            (Column::Peak, _) => "of peak",
            (Column::Second, _) => "second rate",
        }
    }

    /// What `case` shows in this column (empty where it has nothing to show); with `cost`, the
    /// ratio's inverse in fp32 FMAs.
    fn cell(self, case: &CaseResult, cost: bool) -> String {
        let counted = case.dispatch.map(|d| d.counted);
        match self {
            Column::Rate => case.rates.first().map(Amount::text).unwrap_or_default(),
            Column::Original => text::original_ms(case).map(|ms| format!("{ms:.3}")).unwrap_or_default(),
            Column::Ratio => match (case.ratio, case.ratio.and_then(instructions::fma_cost), cost) {
                (_, Some(fmas), true) => format!("{} FMAs", sig4(fmas)),
                (Some(r), _, _) => format!("{r:.3}x"),
                (None, _, _) => String::new(),
            },
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

/// How one family's lines are laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Layout {
    /// The name column's width: the family's widest name.
    name: usize,
    /// The columns that fit, in order.
    columns: Vec<Column>,
    /// Whether the ratio is read as a cost in fp32 FMAs (the instruction family's).
    cost: bool,
}

impl Layout {
    /// The layout of `family`, whose widest name is `name` characters long, with the original's
    /// time and ratio where `original`, on a device that `known` describes.
    fn new(family: &str, name: usize, original: bool, known: Known) -> Self {
        let cost = family == instructions::FAMILY;
        let mut columns = Vec::new();
        let mut end = name;
        let useful = |column: &Column| match column {
            Column::PerClock => known.clock,
            Column::Peak => known.peaks,
            Column::Original | Column::Ratio => original,
            Column::Rate | Column::Second => true,
        };
        for column in Column::BY_PRIORITY.into_iter().filter(useful) {
            let always = matches!(column, Column::Rate | Column::Original | Column::Ratio);
            if always || end + 2 + column.width(cost) + FLAG_ROOM <= WIDTH {
                end += 2 + column.width(cost);
                columns.push(column);
            }
        }
        columns.sort_by_key(|&column| column as u8);
        Layout { name, columns, cost }
    }

    /// The table a line (or, with `head`, the labels) is rendered through: the name, then the
    /// columns as wide as the layout says (a wider cell shifts the rest).
    fn table(&self, head: bool) -> Table {
        let name = doc::Column { name: String::new(), align: Align::Left, width: self.name };
        let columns = self.columns.iter().map(|c| doc::Column::right(c.label(self.cost), c.width(self.cost)));
        let mut table = Table::new(std::iter::once(name).chain(columns).collect());
        table.text_head = head;
        table
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
    /// Each family's heading words: what it measures and what its ratio is against.
    titles: HashMap<String, String>,
    known: Known,
}

impl Layouts {
    /// The layouts of the families of `cases` on a device that `known` describes: each case's
    /// family, name, and whether its line carries the original's time and ratio (a case with a
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
            .map(|(f, &(name, original))| {
                let known = Known { peaks: known.peaks && has_peak(f), ..known };
                (f.clone(), Layout::new(f, name, original, known))
            })
            .collect();
        let titles = facts.iter().map(|f| (f.name.clone(), title(f))).collect();
        Layouts { families, titles, known }
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

    /// The layout of `case`'s family (one of its own where the family's is not known).
    fn layout(&self, case: &CaseResult) -> std::borrow::Cow<'_, Layout> {
        match self.families.get(&case.family) {
            Some(layout) => std::borrow::Cow::Borrowed(layout),
            None => std::borrow::Cow::Owned(Layout::new(
                &case.family,
                case.name.chars().count(),
                case.original_time,
                self.known,
            )),
        }
    }

    /// The heading of `family`'s lines: what it measures, what its ratio is against, and a label
    /// over each column.
    pub fn heading(&self, family: &str) -> String {
        let layout = match self.families.get(family) {
            Some(layout) => layout.clone(),
            None => Layout::new(family, 0, false, self.known),
        };
        let words = self.titles.get(family).map_or_else(|| family.to_owned(), Clone::clone);
        let labels = doc::text(&[Block::Table(layout.table(true))]);
        format!("{}\n{}", fit(&words), labels.trim_end())
    }

    /// `case`'s line as [`Layouts::line`], after its family's heading where the line before it
    /// (`previous`: its family) was of another family or there was none.
    pub fn line_after(&self, previous: Option<&str>, case: &CaseResult) -> String {
        match previous {
            Some(family) if family == case.family => self.line(case),
            Some(_) => format!("\n{}\n{}", self.heading(&case.family), self.line(case)),
            None => format!("{}\n{}", self.heading(&case.family), self.line(case)),
        }
    }

    /// The default line of `case`, with its notes below it, each fitting [`WIDTH`] columns: its
    /// columns, or on one line how it ended untimed (`--verbose` has the whole reason).
    pub fn line(&self, case: &CaseResult) -> String {
        let layout = self.layout(case);
        let mut line = match (case.status, case.median_ms) {
            (Status::Ok, Some(_)) => {
                // One row through the one aligner: past the width, the line wraps.
                let mut table = layout.table(false);
                let cells = layout.columns.iter().map(|c| Cell::Text(c.cell(case, layout.cost)));
                table.push(None, std::iter::once(Cell::Text(case.name.clone())).chain(cells).collect());
                fit(doc::text(&[Block::Table(table)]).trim_end())
            }
            (status, _) => {
                let what = match status {
                    Status::Ok => case.reason.clone().unwrap_or_default(),
                    _ => text::status_text(case),
                };
                one_line(&format!("{}  {what}", pad_end(&case.name, layout.name)))
            }
        };
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

/// A family's heading words: `load: buffer loads as sebbbi/perftest (ratio: the rate over
/// "Buffer<RGBA8>.Load random", above 1 = faster)`; what it measures up to its first colon, and
/// where that is long, up to its first parenthesis or comma, cut at a word past [`TITLE`].
fn title(family: &FamilyFacts) -> String {
    let mut what = family.measures.split(": ").next().unwrap_or_default();
    if what.chars().count() > TITLE / 2 {
        let clause = [" (", ", "].iter().filter_map(|mark| what.find(mark)).filter(|&at| at > 20).min();
        what = &what[..clause.unwrap_or(what.len())];
    }
    let what = match what.chars().count() > TITLE {
        false => what.to_owned(),
        true => {
            let cut: String = what.chars().take(TITLE).collect();
            let at = cut.rfind(' ').unwrap_or(cut.len());
            format!("{}…", cut[..at].trim_end_matches([',', ';', ' ']))
        }
    };
    match (&family.ratio_note, family.name == instructions::FAMILY) {
        (Some(_), true) => format!("{}: {what} (cost: fp32 FMAs in the time of one operation)", family.name),
        (Some(note), false) => {
            format!("{}: {what} (ratio: the rate over {note}; above 1 is faster)", family.name)
        }
        (None, _) => format!("{}: {what}", family.name),
    }
}

/// `text` on one line of at most [`WIDTH`] columns: cut at a word, with `…`, where longer.
fn one_line(text: &str) -> String {
    if text.chars().count() <= WIDTH {
        return text.to_owned();
    }
    let cut: String = text.chars().take(WIDTH - 1).collect();
    let at = cut.rfind(' ').unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end_matches([',', ';', ' ', '(']))
}

/// `text` with each line longer than [`WIDTH`] wrapped at a space, its continuation indented to
/// where its text starts (after a numbered item's `1. `, or after `label:` and its spaces, as in
/// the header), or by four.
pub fn fit(text: &str) -> String {
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            if line.chars().count() <= WIDTH {
                return line.to_owned();
            }
            let body = line.trim_start();
            let indent = line.len() - body.len();
            // Where the value starts, in characters: after `label:` and its spaces. A label is
            // one word (`clock:`, `warm-up:`); `2. RGBA8: ...` is an item, not a label.
            let value = body.find(": ").filter(|&colon| !body[..colon].contains(' ')).map(|colon| {
                let after = &body[colon + 1..];
                indent + body[..colon + 1].chars().count() + after.len() - after.trim_start().len()
            });
            // A numbered item (`12. ...`) continues under its text.
            let digits = body.chars().take_while(char::is_ascii_digit).count();
            let item = (digits > 0 && body[digits..].starts_with(". ")).then_some(indent + digits + 2);
            let hang = item.or(value.filter(|&v| v <= 16)).unwrap_or(indent + 4);
            wrap(body, &line[..indent], &" ".repeat(hang))
        })
        .collect();
    lines.join("\n")
}

/// `text` wrapped to [`WIDTH`] with these indents, between words only (never at a hyphen of
/// `16-bit` or `libnvidia-ml.so.1`), and never between a number and the word after it (`1 MiB`,
/// `1980 MHz`).
fn wrap(text: &str, first: &str, rest: &str) -> String {
    const JOINED: char = '\u{a0}';
    let mut glued = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut previous = ' ';
    while let Some(c) = chars.next() {
        let next = chars.peek().copied().unwrap_or(' ');
        glued.push(if c == ' ' && previous.is_ascii_digit() && next.is_alphabetic() { JOINED } else { c });
        previous = c;
    }
    let options = textwrap::Options::new(WIDTH)
        .initial_indent(first)
        .subsequent_indent(rest)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::wrap(&glued, options).join("\n").replace(JOINED, " ")
}

/// A run's case lines in order, each after its family's heading where the family changes: the
/// one place that remembers which family was printed last (a live run's stream and `show` both
/// print through it).
#[derive(Debug, Default)]
pub struct CaseLines {
    previous: Option<String>,
}

impl CaseLines {
    /// `case`'s line as `layouts` lay it out, after its family's heading where the last line was
    /// of another family, or there was none.
    pub fn next(&mut self, layouts: &Layouts, case: &CaseResult) -> String {
        let line = layouts.line_after(self.previous.as_deref(), case);
        self.previous = Some(case.family.clone());
        line
    }
}

#[cfg(test)]
mod tests;
