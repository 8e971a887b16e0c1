//! Blocks as HTML: one self-contained page (inline CSS and SVG, no script), every text escaped.

use std::fmt::Write as _;

use super::{Block, Row};

/// `text` with `&`, `<`, `>` and `"` escaped for HTML.
pub fn escape(text: &str) -> String {
    // Control characters from a results file (ESC, BEL) become visible escapes first: a page
    // holds text, never a terminal's commands.
    let text = crate::format::printable_lines(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str =
    "body{font:15px/1.45 system-ui,sans-serif;max-width:1240px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;\
vertical-align:top}td:not(:first-child){font-variant-numeric:tabular-nums}tr:target{background:#ffd}\
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:12px}svg{max-width:100%;height:auto}\
details{margin:.4em 0}summary{cursor:pointer;color:#235}li{margin:.3em 0}li ul{font-size:13px;color:#444}";

/// The page as HTML.
pub fn html(title: &str, blocks: &[Block]) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(title),
        escape(title)
    );
    for block in blocks {
        html_block(&mut out, block, 2);
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// One block; a section's title is a heading of `level`.
fn html_block(out: &mut String, block: &Block, level: u8) {
    match block {
        Block::Heading { level, text, id } => {
            let _ = writeln!(out, "<h{level} id=\"{}\">{}</h{level}>", escape(id), escape(text));
        }
        Block::Section { title, id, blocks } => {
            let level = level.min(6);
            let title = escape(title.trim_end_matches(':'));
            match id.is_empty() {
                true => {
                    let _ = writeln!(out, "<h{level}>{title}</h{level}>");
                }
                false => {
                    let _ = writeln!(out, "<h{level} id=\"{}\">{title}</h{level}>", escape(id));
                }
            }
            for block in blocks {
                html_block(out, block, level + 1);
            }
        }
        Block::Para(text) => {
            let _ = writeln!(out, "<p>{}</p>", escape(text));
        }
        Block::List(items) => {
            out.push_str("<ul>\n");
            for (text, links) in items {
                let _ = write!(out, "<li>{}", escape(text));
                // An item's links are its evidence: folded, so that the items read as a list.
                if !links.is_empty() {
                    let _ = write!(out, "<details><summary>evidence ({})</summary><ul>", links.len());
                    for (label, id) in links {
                        let _ = write!(out, "<li><a href=\"#{}\">{}</a></li>", escape(id), escape(label));
                    }
                    out.push_str("</ul></details>");
                }
                out.push_str("</li>\n");
            }
            out.push_str("</ul>\n");
        }
        Block::Numbered(items) => {
            out.push_str("<ol>\n");
            for text in items {
                let _ = writeln!(out, "<li>{}</li>", escape(text));
            }
            out.push_str("</ol>\n");
        }
        Block::Table(table) => {
            out.push_str("<table>\n");
            // A table of unnamed columns (facts and their values) has no head row.
            if table.columns.iter().any(|c| !c.name.is_empty()) {
                out.push_str("<tr>");
                for column in &table.columns {
                    let _ = write!(out, "<th>{}</th>", escape(&column.name));
                }
                out.push_str("</tr>\n");
            }
            let columns = table.columns.len();
            for row in &table.rows {
                match row {
                    Row::Group(name) => {
                        let _ = writeln!(out, "<tr><th colspan=\"{columns}\">{}</th></tr>", escape(name));
                    }
                    Row::Cells(id, cells) => {
                        match id {
                            Some(id) => {
                                let _ = write!(out, "<tr id=\"{}\">", escape(id));
                            }
                            None => out.push_str("<tr>"),
                        }
                        for (c, cell) in cells.iter().enumerate() {
                            // The last cell of a short row spans the columns left.
                            let span = match c + 1 == cells.len() && cells.len() < columns {
                                true => format!(" colspan=\"{}\"", columns - c),
                                false => String::new(),
                            };
                            let _ = write!(out, "<td{span}>{}</td>", escape(&cell.shown()));
                        }
                        out.push_str("</tr>\n");
                    }
                }
            }
            out.push_str("</table>\n");
        }
        Block::Gap => {}
        Block::Contents(entries) => {
            // Each deeper entry opens a list inside the item before it; a shallower one closes them.
            out.push_str("<nav>\n<ul>\n");
            let mut depth: u8 = 0;
            for (n, (at, text, id)) in entries.iter().enumerate() {
                if n > 0 && *at <= depth {
                    out.push_str("</li>\n");
                }
                while depth < *at {
                    out.push_str("\n<ul>\n<li>");
                    depth += 1;
                }
                while depth > *at {
                    out.push_str("</ul>\n</li>\n");
                    depth -= 1;
                }
                if !out.ends_with("<li>") {
                    out.push_str("<li>");
                }
                let _ = write!(out, "<a href=\"#{}\">{}</a>", escape(id), escape(text));
            }
            if !entries.is_empty() {
                out.push_str("</li>\n");
            }
            out.push_str(&"</ul>\n</li>\n".repeat(usize::from(depth)));
            out.push_str("</ul>\n</nav>\n");
        }
        Block::Chart { svg, .. } => {
            // plotters writes an XML SVG document; inline, the element alone.
            let element = svg.find("<svg").map_or(svg.as_str(), |at| &svg[at..]);
            let _ = writeln!(out, "<figure>{element}</figure>");
        }
        Block::Pre(text) => {
            let _ = writeln!(out, "<pre>{}</pre>", escape(text));
        }
        Block::Fold { summary, blocks } => {
            let _ = writeln!(out, "<details>\n<summary>{}</summary>", escape(summary));
            for block in blocks {
                html_block(out, block, level);
            }
            out.push_str("</details>\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_items_links_are_its_evidence_folded() {
        let items =
            vec![("Structured is fastest".to_owned(), vec![("a<b: 1.9 T".to_owned(), "case-a".to_owned())])];
        let page = html("t", &[Block::List(items)]);
        assert!(
            page.contains(
                "<li>Structured is fastest<details><summary>evidence (1)</summary><ul><li><a \
                 href=\"#case-a\">a&lt;b: 1.9 T</a></li></ul></details></li>"
            ),
            "{page}"
        );
    }

    #[test]
    fn html_escapes_text_and_keeps_inline_svg() {
        let blocks = vec![
            Block::Heading { level: 2, text: "a <b> & c".into(), id: "x".into() },
            Block::Chart {
                file: "load.svg".into(),
                svg: "<?xml version=\"1.0\"?>\n<svg width=\"1\"></svg>".into(),
            },
            Block::Table(crate::report::doc::table::tests::sample()),
        ];
        let page = html("t", &blocks);
        assert!(page.contains("<h2 id=\"x\">a &lt;b&gt; &amp; c</h2>"), "{page}");
        assert!(
            page.contains("<figure><svg width=\"1\"></svg></figure>") && !page.contains("<?xml"),
            "{page}"
        );
        assert!(
            page.contains(
                "<tr><th>case</th><th>rate</th></tr>\n<tr><th colspan=\"2\">loads</th></tr>\n\
                 <tr id=\"case-b\"><td>Buffer&lt;R8&gt;</td><td>skipped</td></tr>\n<tr><td colspan=\"2\">none</td></tr>"
            ),
            "{page}"
        );
    }

    #[test]
    fn a_terminals_commands_in_a_results_file_are_shown_not_kept() {
        let page = html("t\u{7}", &[Block::Para("GPU\u{1b}]0;owned\u{7} <x>".into())]);
        assert!(!page.contains(['\u{1b}', '\u{7}']), "{page:?}");
        assert!(page.contains("GPU\\u{1b}]0;owned\\u{7} &lt;x&gt;"), "{page}");
    }

    #[test]
    fn contents_nest_their_lists_inside_items() {
        let entries = vec![
            (0, "a".to_owned(), "a".to_owned()),
            (1, "b".to_owned(), "b".to_owned()),
            (1, "c".to_owned(), "c".to_owned()),
            (0, "d".to_owned(), "d".to_owned()),
        ];
        let page = html("t", &[Block::Contents(entries)]);
        let nav = &page[page.find("<nav>").unwrap()..page.find("</nav>").unwrap()];
        assert_eq!(
            nav.replace('\n', ""),
            "<nav><ul><li><a href=\"#a\">a</a><ul><li><a href=\"#b\">b</a></li><li><a href=\"#c\">c</a></li></ul>\
             </li><li><a href=\"#d\">d</a></li></ul>"
        );
    }

    #[test]
    fn sections_nest_their_headings_and_numbered_lists_are_ordered() {
        let inner = Block::Section {
            title: "devices:".into(),
            id: String::new(),
            blocks: vec![Block::Numbered(vec!["a<b".into()])],
        };
        let page = html(
            "t",
            &[Block::Section { title: "The fleet".into(), id: "fleet".into(), blocks: vec![inner] }],
        );
        assert!(
            page.contains("<h2 id=\"fleet\">The fleet</h2>\n<h3>devices</h3>\n<ol>\n<li>a&lt;b</li>\n</ol>"),
            "{page}"
        );
    }
}
