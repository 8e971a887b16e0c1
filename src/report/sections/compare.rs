//! `perftest compare`: the runs, how each compares with the first, every case side by side and
//! the instruction tables side by side, for its text and markdown; on the report page, the
//! summaries, the largest changes (slower first) and every case side by side, folded.

use super::instructions::{side_by_side_table, SIDE_BY_SIDE};
use crate::analysis::verdict::Verdict;
use crate::format::ratio_text;
use crate::report::compare::{Comparison, Row, FLAGGED};
use crate::report::doc::{self, Block, Cell, Column, Table};
use crate::results::model::Run;

/// The comparison's blocks: its runs, its summaries, the largest changes (slower first), its table and the
/// instruction tables, then the notes (why a case has no rate, flags).
pub fn blocks(comparison: &Comparison) -> Vec<Block> {
    let (mut blocks, notes) = parts(comparison, None);
    blocks.extend(notes);
    blocks
}

/// The blocks before the notes, and the notes; with `width`, the table's long names on lines of
/// their own so that its rows fit that many columns.
fn parts(comparison: &Comparison, width: Option<usize>) -> (Vec<Block>, Vec<Block>) {
    let lines = |lines: Vec<String>| Block::List(lines.into_iter().map(|l| (l, Vec::new())).collect());
    let runs = comparison.runs.iter().enumerate().map(|(i, r)| format!("run {}: {r}", i + 1)).collect();
    let mut blocks = vec![lines(runs)];
    if !comparison.summaries.is_empty() {
        blocks.push(lines(comparison.summaries.clone()));
    }
    blocks.extend(largest(comparison));
    let heads: Vec<String> = (1..=comparison.runs.len()).map(|i| format!("run {i}")).collect();
    blocks.push(Block::Gap);
    if comparison.rows.iter().flat_map(|r| &r.cells).any(|c| c.ends_with(FLAGGED)) {
        blocks.push(Block::Para(format!("{FLAGGED} flagged: the notes after the table say why")));
    }
    let table = match width {
        Some(width) => fitted_table(comparison, &heads, width),
        None => table(comparison, &heads),
    };
    blocks.push(Block::Table(table));
    if !comparison.energy.is_empty() {
        let table = super::energy::side_by_side(&comparison.energy, comparison.runs.len());
        blocks.extend([Block::Gap, Block::Para(super::energy::SIDE_BY_SIDE.into()), Block::Table(table)]);
    }
    if !comparison.instructions.is_empty() {
        blocks.extend([
            Block::Gap,
            Block::Para(SIDE_BY_SIDE.into()),
            Block::Table(side_by_side_table(&comparison.instructions, comparison.runs.len())),
        ]);
    }
    let notes: Vec<(String, Vec<(String, String)>)> = comparison
        .rows
        .iter()
        .flat_map(|row| {
            let each = row.notes.iter().enumerate();
            each.filter_map(|(i, n)| {
                Some((format!("{}, run {}: {}", row.name, i + 1, n.as_ref()?), Vec::new()))
            })
        })
        .collect();
    let notes = match notes.is_empty() {
        true => Vec::new(),
        false => vec![
            Block::Gap,
            Block::Section {
                title: format!("notes: why a case has no rate, and flags ({}):", notes.len()),
                id: "notes".into(),
                blocks: vec![Block::List(notes)],
            },
        ],
    };
    (blocks, notes)
}

/// The changes of one direction a list names, at most this many, and at most [`PER_FAMILY`] of
/// one family.
const LARGEST: usize = 10;

/// The most changes of one family the list names: one family's many alike (a faster memory's
/// every sweep size) would hide the others.
const PER_FAMILY: usize = 2;

/// The largest changes with a verdict, what got slower first and then what got faster, each
/// list largest first: what to look at first.
fn largest(comparison: &Comparison) -> Vec<Block> {
    [Verdict::Slower, Verdict::Faster].into_iter().filter_map(|v| changes(comparison, v)).collect()
}

/// The largest changes whose verdict is `wanted`, as a numbered list under a title that says how
/// many there are in all; `None` when there are none.
fn changes(comparison: &Comparison, wanted: Verdict) -> Option<Block> {
    let mut changes: Vec<(f64, &str, String)> = Vec::new();
    for row in &comparison.rows {
        for (i, verdict) in row.verdicts.iter().enumerate() {
            let Some((verdict, change)) = verdict else { continue };
            if *verdict != wanted {
                continue;
            }
            let ratio = row.ratios[i].map(ratio_text).unwrap_or_default();
            let run = if comparison.runs.len() > 2 { format!(" (run {})", i + 1) } else { String::new() };
            changes.push((change.abs(), row.family.as_str(), format!("{}: {ratio}{run}", row.name)));
        }
    }
    if changes.is_empty() {
        return None;
    }
    changes.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut named: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut lines: Vec<String> = Vec::new();
    for (_, family, line) in &changes {
        let count = named.entry(family).or_default();
        if *count < PER_FAMILY && lines.len() < LARGEST {
            *count += 1;
            lines.push(line.clone());
        }
    }
    let shown = match lines.len() == changes.len() {
        true => format!("{}", changes.len()),
        false => format!("the largest {} of {}, at most {PER_FAMILY} a family", lines.len(), changes.len()),
    };
    Some(Block::Section {
        title: format!("{} ({shown}):", wanted.word()),
        id: format!("compare-{}", wanted.word()),
        blocks: vec![Block::Numbered(lines)],
    })
}

/// Every case side by side under `heads` (a column per run), each run's rate with its ratio to
/// the first run's and its verdict in brackets.
pub fn table(comparison: &Comparison, heads: &[String]) -> Table {
    let columns = std::iter::once("case").chain(heads.iter().map(String::as_str)).map(Column::left);
    let mut table = Table::new(columns.collect());
    for row in &comparison.rows {
        let cells = (0..row.cells.len()).map(|i| Cell::Text(cell(row, i)));
        table.push(None, std::iter::once(Cell::text(row.name.as_str())).chain(cells).collect());
    }
    table
}

/// [`table`] with each name too long for `width` columns beside the cells on a line of its own,
/// the cells on the line below it.
fn fitted_table(comparison: &Comparison, heads: &[String], width: usize) -> Table {
    let mut table = table(comparison, heads);
    let rows = std::mem::take(&mut table.rows);
    let mut widths: Vec<usize> = heads.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        if let doc::Row::Cells(_, cells) = row {
            for (w, cell) in widths.iter_mut().zip(&cells[1..]) {
                *w = (*w).max(cell.shown().chars().count());
            }
        }
    }
    // The least a name gets, however many runs there are.
    let room = width.saturating_sub(widths.iter().map(|w| w + 2).sum::<usize>()).max(24);
    for row in rows {
        match row {
            doc::Row::Cells(id, mut cells) if cells[0].shown().chars().count() > room => {
                // A row of one missing cell spans the line, and no column is widened by it.
                let name = std::mem::replace(&mut cells[0], Cell::text(""));
                table.push(None, vec![Cell::Missing(name.shown())]);
                table.push(id, cells);
            }
            row => table.rows.push(row),
        }
    }
    table
}

/// Run `i`'s rate (or why it has none), then its ratio and verdict against the first run's.
fn cell(row: &Row, i: usize) -> String {
    match (i, row.ratios[i], row.verdicts[i]) {
        (0, _, _) | (_, None, _) => row.cells[i].clone(),
        (_, Some(ratio), None) => format!("{} ({})", row.cells[i], ratio_text(ratio)),
        // "same" goes without saying: the verdicts that ask for a look are said.
        (_, Some(ratio), Some((Verdict::Same, _))) => format!("{} ({})", row.cells[i], ratio_text(ratio)),
        (_, Some(ratio), Some((v, _))) => format!("{} ({}, {})", row.cells[i], ratio_text(ratio), v.word()),
    }
}

/// The comparison as text: aligned columns, the notes fitted to 120 columns.
pub fn to_text(comparison: &Comparison) -> String {
    let (blocks, notes) = parts(comparison, Some(crate::report::columns::WIDTH));
    let notes = crate::report::columns::fit(doc::text(&notes).trim_end());
    format!("{}{notes}{}", doc::text(&blocks), if notes.is_empty() { "" } else { "\n" })
}

/// The comparison as markdown.
pub fn to_markdown(comparison: &Comparison) -> String {
    doc::markdown(&blocks(comparison))
}

/// The compare verdicts of every run against the first.
pub fn page(labels: &[String], runs: &[Run]) -> Vec<Block> {
    let comparison = crate::report::compare::compare(labels, runs);
    let mut blocks =
        vec![Block::Heading { level: 2, text: "Compared with the first run".into(), id: "compare".into() }];
    blocks.push(Block::List(comparison.summaries.iter().map(|s| (s.clone(), Vec::new())).collect()));
    blocks.extend(largest(&comparison));
    blocks.push(Block::Fold {
        summary: format!("Every case side by side ({} rows)", comparison.rows.len()),
        blocks: vec![Block::Table(table(&comparison, &comparison.runs))],
    });
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::Run;

    /// Two runs of 30 cases in 3 families: the second has 12 cases slower (by 4% to 15%) and 2
    /// faster (by 20% and 30%).
    fn runs() -> Vec<Run> {
        let mut base = crate::results::model::tests::run_of(30);
        for (i, case) in base.cases.iter_mut().enumerate() {
            case.family = format!("family {}", i % 3);
        }
        let mut other = base.clone();
        for (i, case) in other.cases.iter_mut().enumerate() {
            let rate = case.rate.as_mut().unwrap();
            match i {
                0..12 => rate.value *= 0.96 - 0.01 * i as f64,
                28 => rate.value *= 1.2,
                29 => rate.value *= 1.3,
                _ => {}
            }
        }
        vec![base, other]
    }

    #[test]
    fn what_got_slower_is_listed_first_largest_first_and_at_most_two_a_family() {
        let comparison = crate::report::compare::compare(&["a".into(), "b".into()], &runs());
        let text = to_text(&comparison);
        let slower = text.find("slower (the largest 6 of 12, at most 2 a family):\n").expect(&text);
        let faster = text.find("faster (2):\n  1. case 29: 1.300x\n  2. case 28: 1.200x\n").expect(&text);
        assert!(slower < faster, "{text}");
        // 11, 10 and 9 are the slowest of their families; then 8, 7 and 6.
        let listed: Vec<&str> =
            text[slower..faster].lines().skip(1).map(|l| l.split(':').next().unwrap().trim()).collect();
        assert_eq!(listed, ["1. case 11", "2. case 10", "3. case 9", "4. case 8", "5. case 7", "6. case 6"]);
        assert!(to_markdown(&comparison).contains("## slower (the largest 6 of 12, at most 2 a family)"));
    }

    #[test]
    fn the_page_lists_the_changes_too() {
        let runs = runs();
        let page = doc::text(&page(&["a".into(), "b".into()], &runs));
        let slower = page.find("slower (the largest 6 of 12").expect(&page);
        let faster = page.find("faster (2)").expect(&page);
        let table = page.find("Every case side by side").expect(&page);
        assert!(slower < faster && faster < table, "{page}");
    }
}
