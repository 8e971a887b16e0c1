//! The document model every view is built in: [`Block`]s (headings, sections, paragraphs, lists,
//! tables of typed cells, charts, preformatted text, folds), and one renderer per format: [`text`]
//! (the lines a terminal shows), [`markdown`] (escaped in one place), [`html`] and, for a table,
//! [`csv`] of its raw values. A view builds its blocks once; which format a user asked for is the
//! renderer's business.

mod csv;
mod html;
mod markdown;
pub(crate) mod table;
mod text;

pub use csv::csv;
pub use html::{escape, html};
pub use markdown::{markdown, markdown_document};
pub use table::{Align, Cell, Column, Hint, Row, Table};
pub use text::text;

/// One block of a document.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// A heading with its anchor.
    Heading {
        /// 2 for a section, 3 for a subsection.
        level: u8,
        /// Its words.
        text: String,
        /// Its anchor.
        id: String,
    },
    /// A paragraph of plain text.
    Para(String),
    /// A list; each item is text, then links (label, anchor).
    List(Vec<(String, Vec<(String, String)>)>),
    /// A table of typed cells.
    Table(Table),
    /// A table of contents: each entry's depth (0 for a section), its words and its anchor.
    Contents(Vec<(u8, String, String)>),
    /// A blank line in text, which spaces its blocks by hand; nothing in markdown and HTML, which
    /// space every block.
    Gap,
    /// A chart.
    Chart {
        /// Its file name under `charts/`, which markdown links to.
        file: String,
        /// Its SVG, which HTML holds inline.
        svg: String,
    },
    /// Preformatted text (the run's header).
    Pre(String),
    /// A titled part whose blocks sit under its title: a heading one level below its parent's in
    /// markdown and HTML, a line with its blocks indented under it in text.
    Section {
        /// Its title (text keeps a trailing colon, headings drop it).
        title: String,
        /// Its anchor; empty for none.
        id: String,
        /// What it holds.
        blocks: Vec<Block>,
    },
    /// A numbered list of lines.
    Numbered(Vec<String>),
    /// Blocks folded under a summary line (HTML `<details>`; markdown shows them; text indents them
    /// under it).
    Fold {
        /// The line shown folded.
        summary: String,
        /// What unfolds.
        blocks: Vec<Block>,
    },
}

/// The contents of `blocks`: every anchored heading of level 2 to 4 and anchored section, at its
/// depth, in order (a fold's too).
pub fn contents(blocks: &[Block]) -> Block {
    fn walk(blocks: &[Block], depth: u8, out: &mut Vec<(u8, String, String)>) {
        for block in blocks {
            match block {
                Block::Heading { level, text, id } if (2..=4).contains(level) && !id.is_empty() => {
                    out.push((level - 2, text.clone(), id.clone()));
                }
                Block::Section { title, id, blocks } => {
                    if !id.is_empty() {
                        out.push((depth, title.trim_end_matches(':').to_owned(), id.clone()));
                    }
                    walk(blocks, depth + 1, out);
                }
                Block::Fold { blocks, .. } => walk(blocks, depth, out),
                _ => {}
            }
        }
    }
    let mut entries = Vec::new();
    walk(blocks, 0, &mut entries);
    Block::Contents(entries)
}

/// A case's anchor: its name in lower-case letters, digits and dashes.
pub fn anchor(name: &str) -> String {
    let mut slug = String::from("case-");
    for c in name.chars() {
        match c {
            'a'..='z' | '0'..='9' => slug.push(c),
            'A'..='Z' => slug.push(c.to_ascii_lowercase()),
            '*' => slug.push('x'),
            '+' => slug.push('p'),
            _ if !slug.ends_with('-') => slug.push('-'),
            _ => {}
        }
    }
    slug.trim_end_matches('-').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_list_the_anchored_headings_and_sections_at_their_depth() {
        let blocks = [
            Block::Heading { level: 2, text: "H100 (a.json)".into(), id: "run-a".into() },
            Block::Heading { level: 3, text: "Findings".into(), id: "findings-a".into() },
            Block::Heading { level: 4, text: "Which buffer type?".into(), id: "which".into() },
            Block::Heading { level: 5, text: "too deep".into(), id: "deep".into() },
            Block::Section {
                title: "The fleet".into(),
                id: "fleet".into(),
                blocks: vec![Block::Section { title: "group 1:".into(), id: "g1".into(), blocks: vec![] }],
            },
            Block::Fold {
                summary: "more".into(),
                blocks: vec![Block::Heading { level: 3, text: "x".into(), id: String::new() }],
            },
        ];
        let Block::Contents(entries) = contents(&blocks) else { panic!("contents") };
        let shown: Vec<(u8, &str)> = entries.iter().map(|(d, t, _)| (*d, t.as_str())).collect();
        assert_eq!(
            shown,
            [
                (0, "H100 (a.json)"),
                (1, "Findings"),
                (2, "Which buffer type?"),
                (0, "The fleet"),
                (1, "group 1")
            ]
        );
    }

    #[test]
    fn anchors_are_plain_and_distinct() {
        assert_eq!(anchor("Buffer<R8>.Load uniform"), "case-buffer-r8-load-uniform");
        assert_ne!(anchor("GEMM f16*f16+f32 4096^3"), anchor("GEMM f16 f16 f32 4096^3"));
        assert!(anchor("Texture2D<RGBA8>.Sample(bilinear) linear")
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-'));
    }
}
