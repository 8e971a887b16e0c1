//! Blocks as the lines a terminal shows: a section's title on a line, what it holds indented two
//! spaces under it; a gap a blank line; lists as bare lines, numbered lists numbered; tables in
//! columns two spaces apart, each on its column's side. Every line's control characters are shown
//! as escapes.

use crate::format::{pad_end, pad_start, printable};

use super::{Align, Block, Cell, Row, Table};

/// The blocks as text.
pub fn text(blocks: &[Block]) -> String {
    let mut out = String::new();
    for block in blocks {
        text_block(&mut out, block, 0);
    }
    out
}

fn line(out: &mut String, depth: usize, text: &str) {
    for part in text.split('\n') {
        out.push_str(&"  ".repeat(depth));
        out.push_str(&printable(part));
        out.push('\n');
    }
}

fn text_block(out: &mut String, block: &Block, depth: usize) {
    match block {
        Block::Heading { text, .. } | Block::Para(text) => line(out, depth, text),
        Block::Section { title, blocks, .. } | Block::Fold { summary: title, blocks } => {
            line(out, depth, title);
            for block in blocks {
                text_block(out, block, depth + 1);
            }
        }
        Block::List(items) => items.iter().for_each(|(text, _)| line(out, depth, text)),
        Block::Numbered(items) => {
            for (n, text) in items.iter().enumerate() {
                line(out, depth, &format!("{}. {text}", n + 1));
            }
        }
        Block::Table(t) => table(out, depth, t),
        Block::Gap => out.push('\n'),
        Block::Contents(entries) => {
            for (at, text, _) in entries {
                line(out, depth + usize::from(*at), text);
            }
        }
        Block::Pre(text) => line(out, depth, text.trim_end()),
        Block::Chart { file, .. } => line(out, depth, &format!("(chart: {file})")),
    }
}

/// The one text aligner: each column as wide as its widest cell (at least its least width), two
/// spaces apart, on its side; rows under a group name indented under it; a row's last cell that
/// spans the rest (a case without numbers says why) follows the cells before it; no trailing
/// spaces.
fn table(out: &mut String, depth: usize, table: &Table) {
    let shown = |cells: &[Cell]| -> Vec<String> {
        cells.iter().map(|c| printable(&c.shown()).into_owned()).collect()
    };
    let head: Vec<String> = table.columns.iter().map(|c| printable(&c.name).into_owned()).collect();
    let mut widths: Vec<usize> = table.columns.iter().map(|c| c.width).collect();
    let mut widen = |cells: &[String], spans: bool| {
        let counted = if spans { cells.len() - 1 } else { cells.len() };
        for (w, cell) in widths.iter_mut().zip(&cells[..counted]) {
            *w = (*w).max(cell.chars().count());
        }
    };
    if table.text_head {
        widen(&head, false);
    }
    let spans =
        |cells: &[Cell]| cells.len() < table.columns.len() && matches!(cells.last(), Some(Cell::Missing(_)));
    for row in &table.rows {
        if let Row::Cells(_, cells) = row {
            widen(&shown(cells), spans(cells));
        }
    }
    let line = |out: &mut String, depth: usize, cells: &[String], spans: bool| {
        let mut text = String::new();
        for (c, cell) in cells.iter().enumerate() {
            if c > 0 {
                text.push_str("  ");
            }
            let last = c + 1 == cells.len();
            match (spans && last, table.columns.get(c).map(|c| c.align)) {
                (true, _) | (_, None) => text.push_str(cell),
                (false, Some(Align::Left)) => text.push_str(&pad_end(cell, widths[c])),
                (false, Some(Align::Right)) => text.push_str(&pad_start(cell, widths[c])),
            }
        }
        out.push_str(&"  ".repeat(depth));
        out.push_str(text.trim_end());
        out.push('\n');
    };
    if table.text_head {
        line(out, depth, &head, false);
    }
    let mut under = depth;
    for row in &table.rows {
        match row {
            Row::Group(name) => {
                line(out, depth, &[printable(name).into_owned()], true);
                under = depth + 1;
            }
            Row::Cells(_, cells) => line(out, under, &shown(cells), spans(cells)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::doc::{Column, Hint};

    #[test]
    fn sections_indent_what_they_hold_and_gaps_are_blank_lines() {
        let blocks = [
            Block::Section {
                title: "group 1: H100".into(),
                id: "g".into(),
                blocks: vec![
                    Block::Para("settings: 5 samples".into()),
                    Block::Section {
                        title: "devices:".into(),
                        id: String::new(),
                        blocks: vec![Block::Numbered(vec!["a".into(), "b".into()])],
                    },
                    Block::Fold {
                        summary: "outside (1):".into(),
                        blocks: vec![Block::List(vec![("x".into(), vec![])])],
                    },
                ],
            },
            Block::Gap,
            Block::Para("fleet: healthy\u{1b}[2J".into()),
        ];
        assert_eq!(
            text(&blocks),
            "group 1: H100\n  settings: 5 samples\n  devices:\n    1. a\n    2. b\n  outside (1):\n    x\n\nfleet: healthy\\u{1b}[2J\n"
        );
    }

    #[test]
    fn tables_align_their_columns_on_their_side_under_their_groups() {
        let mut t = Table::new(vec![Column::left("op"), Column::right("ops/clk", 9), Column::left("note")]);
        t.rows.push(Row::Group("fp32".into()));
        t.push(None, vec![Cell::text("fp32 add"), Cell::number(123.5, "", Hint::Sig4), Cell::text("ok")]);
        t.push(Some("x".into()), vec![Cell::text("sin"), Cell::number(15.8, "", Hint::Sig4), Cell::text("")]);
        t.push(None, vec![Cell::text("cos"), Cell::Missing("skipped (no)".into())]);
        assert_eq!(
            text(&[Block::Table(t.clone())]),
            "op          ops/clk  note\nfp32\n  fp32 add      123.5  ok\n  sin           15.80\n  cos       skipped (no)\n"
        );
        t.text_head = false;
        assert!(text(&[Block::Table(t)]).starts_with("fp32\n  fp32 add      123.5  ok\n"));
    }
}
