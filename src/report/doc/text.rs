//! Blocks as the lines a terminal shows: a section's title on a line, what it holds indented two
//! spaces under it (a blank line after each outermost one); lists as bare lines, numbered lists
//! numbered; tables in columns two spaces apart, numbers to the right. Every line's control
//! characters are shown as escapes.

use crate::format::printable;

use super::Block;

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
            if depth == 0 && matches!(block, Block::Section { .. }) {
                out.push('\n');
            }
        }
        Block::List(items) => items.iter().for_each(|(text, _)| line(out, depth, text)),
        Block::Numbered(items) => {
            for (n, text) in items.iter().enumerate() {
                line(out, depth, &format!("{}. {text}", n + 1));
            }
        }
        Block::Table { head, rows } => table(out, depth, head, rows),
        Block::Pre(text) => line(out, depth, text.trim_end()),
        Block::Chart { file, .. } => line(out, depth, &format!("(chart: {file})")),
    }
}

/// Whether a cell reads as a number (it starts with a digit, a sign or a dot): right-aligned.
fn numeric(cell: &str) -> bool {
    cell.trim_start_matches(['+', '-', '.']).starts_with(|c: char| c.is_ascii_digit())
}

/// The one text aligner: each column as wide as its widest cell, two spaces apart, numbers to the
/// right; no trailing spaces.
fn table(out: &mut String, depth: usize, head: &[String], rows: &[(Option<String>, Vec<String>)]) {
    let cells: Vec<Vec<String>> = std::iter::once(head.to_vec())
        .filter(|h| h.iter().any(|c| !c.is_empty()))
        .chain(rows.iter().map(|(_, cells)| cells.clone()))
        .map(|row| row.iter().map(|c| printable(c).into_owned()).collect())
        .collect();
    let columns = cells.iter().map(Vec::len).max().unwrap_or(0);
    let width =
        |c: usize| cells.iter().filter_map(|row| row.get(c)).map(|s| s.chars().count()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns).map(width).collect();
    for row in &cells {
        let mut text = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                text.push_str("  ");
            }
            let pad = widths[c] - cell.chars().count();
            match numeric(cell) && c > 0 {
                true => text.push_str(&format!("{}{cell}", " ".repeat(pad))),
                false => text.push_str(&format!("{cell}{}", " ".repeat(pad))),
            }
        }
        out.push_str(&"  ".repeat(depth));
        out.push_str(text.trim_end());
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_indent_what_they_hold_and_end_with_a_blank_line() {
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
            Block::Para("fleet: healthy\u{1b}[2J".into()),
        ];
        assert_eq!(
            text(&blocks),
            "group 1: H100\n  settings: 5 samples\n  devices:\n    1. a\n    2. b\n  outside (1):\n    x\n\nfleet: healthy\\u{1b}[2J\n"
        );
    }

    #[test]
    fn tables_align_their_columns_and_numbers_to_the_right() {
        let rows = vec![
            (None, vec!["fp32 add".to_owned(), "123.5".to_owned(), "ok".to_owned()]),
            (Some("x".to_owned()), vec!["sin".to_owned(), "15.8".to_owned(), "".to_owned()]),
        ];
        let out = text(&[Block::Table { head: vec!["op".into(), "ops/clk".into(), "note".into()], rows }]);
        assert_eq!(out, "op        ops/clk  note\nfp32 add    123.5  ok\nsin          15.8\n");
    }
}
