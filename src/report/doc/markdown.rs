//! Blocks as markdown (CommonMark with GitHub's tables): every text passes through
//! [`crate::report::markdown::text`], charts are linked from `charts/`.

use std::fmt::Write as _;

use super::html::escape;
use super::{Align, Block, Row};

/// Text for markdown, a table cell too (see [`crate::report::markdown::text`]).
fn md(text: &str) -> String {
    crate::report::markdown::text(text)
}

/// The blocks as markdown, sections from `##`.
pub fn markdown(blocks: &[Block]) -> String {
    let mut out = String::new();
    for block in blocks {
        markdown_block(&mut out, block, 2);
    }
    out
}

/// A document: `# title`, then its blocks.
pub fn markdown_document(title: &str, blocks: &[Block]) -> String {
    format!("# {}\n\n{}", md(title), markdown(blocks))
}

/// One block; a section's title is a heading of `level`.
fn markdown_block(out: &mut String, block: &Block, level: u8) {
    match block {
        Block::Heading { level, text, id } => {
            let _ =
                writeln!(out, "<a id=\"{id}\"></a>\n\n{} {}\n", "#".repeat(usize::from(*level)), md(text));
        }
        Block::Section { title, id, blocks } => {
            if !id.is_empty() {
                let _ = writeln!(out, "<a id=\"{id}\"></a>\n");
            }
            let hashes = "#".repeat(usize::from(level.min(6)));
            let _ = writeln!(out, "{hashes} {}\n", md(title.trim_end_matches(':')));
            for block in blocks {
                markdown_block(out, block, level + 1);
            }
        }
        Block::Para(text) => {
            let _ = writeln!(out, "{}\n", md(text));
        }
        Block::List(items) => {
            for (text, links) in items {
                let _ = writeln!(out, "- {}", md(text));
                for (label, id) in links {
                    let _ = writeln!(out, "  - [{}](#{id})", md(label));
                }
            }
            out.push('\n');
        }
        Block::Numbered(items) => {
            for (n, text) in items.iter().enumerate() {
                let _ = writeln!(out, "{}. {}", n + 1, md(text));
            }
            out.push('\n');
        }
        Block::Table(table) => {
            let head: Vec<String> = table.columns.iter().map(|c| md(&c.name)).collect();
            let _ = writeln!(out, "| {} |", head.join(" | "));
            let align = table.columns.iter().map(|c| match c.align {
                Align::Left => "---|",
                Align::Right => "--:|",
            });
            let _ = writeln!(out, "|{}", align.collect::<String>());
            for row in &table.rows {
                let _ = writeln!(out, "| {} |", cells(row, table.columns.len()).join(" | "));
            }
            out.push('\n');
        }
        Block::Gap => {}
        Block::Contents(entries) => {
            for (depth, text, id) in entries {
                let _ = writeln!(out, "{}- [{}](#{id})", "  ".repeat(usize::from(*depth)), md(text));
            }
            out.push('\n');
        }
        Block::Chart { file, .. } => {
            let _ = writeln!(out, "![{}](charts/{file})\n", md(file));
        }
        Block::Pre(text) => {
            // A blank first line is text's spacing; a code block needs none.
            let text = text.trim_start_matches('\n');
            let _ = writeln!(out, "{}\n", crate::report::markdown::code_block(text));
        }
        Block::Fold { summary, blocks } => {
            // An HTML block: markdown escapes are not read inside it, HTML's are.
            let _ = writeln!(out, "<details><summary>{}</summary>\n", escape(summary));
            for block in blocks {
                markdown_block(out, block, level);
            }
            out.push_str("</details>\n\n");
        }
    }
}

/// A row's markdown cells, as many as the columns: a group's name in bold; an anchor before the
/// first cell.
fn cells(row: &Row, columns: usize) -> Vec<String> {
    let (id, mut cells) = match row {
        Row::Group(name) => (None, vec![format!("**{}**", md(name))]),
        Row::Cells(id, cells) => (id.as_ref(), cells.iter().map(|c| md(&c.shown())).collect()),
    };
    cells.resize(columns.max(cells.len()), String::new());
    if let (Some(id), Some(first)) = (id, cells.first_mut()) {
        *first = format!("<a id=\"{id}\"></a>{first}");
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_escapes_what_commonmark_reads_as_markup() {
        let md = markdown(&[Block::Para("GEMM f16*f16+f32 in [a] `b` x_y <T>".into())]);
        assert_eq!(md, "GEMM f16\\*f16+f32 in \\[a\\] \\`b\\` x\\_y &lt;T>\n\n");
    }

    #[test]
    fn charts_link_and_anchored_rows_keep_their_anchor() {
        let blocks = vec![
            Block::Chart { file: "load.svg".into(), svg: "<svg></svg>".into() },
            Block::Table(crate::report::doc::table::tests::sample()),
        ];
        let md = markdown(&blocks);
        assert!(
            md.contains("![load.svg](charts/load.svg)")
                && md.contains("| case | rate |\n|---|--:|\n| **loads** |  |\n")
                && md.contains("| <a id=\"case-b\"></a>Buffer&lt;R8> | skipped |"),
            "{md}"
        );
    }

    #[test]
    fn sections_are_headings_one_level_down_and_lists_number_themselves() {
        let inner = Block::Section {
            title: "devices:".into(),
            id: String::new(),
            blocks: vec![Block::Numbered(vec!["1. x".into(), "b".into()])],
        };
        let md = markdown_document(
            "perftest fleet",
            &[Block::Section { title: "group 1".into(), id: String::new(), blocks: vec![inner] }],
        );
        assert_eq!(md, "# perftest fleet\n\n## group 1\n\n### devices\n\n1. 1\\. x\n2. b\n\n");
    }
}
