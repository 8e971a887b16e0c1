//! The report's blocks as HTML (one self-contained page: inline CSS and SVG, no script) and as
//! markdown (charts linked from `charts/`); every text escaped for its format.

use std::fmt::Write as _;

use super::Block;

/// `text` with `&`, `<`, `>` and `"` escaped for HTML.
pub fn escape(text: &str) -> String {
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
        html_block(&mut out, block);
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn html_block(out: &mut String, block: &Block) {
    match block {
        Block::Heading { level, text, id } => {
            let _ = writeln!(out, "<h{level} id=\"{}\">{}</h{level}>", escape(id), escape(text));
        }
        Block::Para(text) => {
            let _ = writeln!(out, "<p>{}</p>", escape(text));
        }
        Block::List(items) => {
            out.push_str("<ul>\n");
            for (text, links) in items {
                let _ = write!(out, "<li>{}", escape(text));
                if !links.is_empty() {
                    out.push_str("<ul>");
                    for (label, id) in links {
                        let _ = write!(out, "<li><a href=\"#{}\">{}</a></li>", escape(id), escape(label));
                    }
                    out.push_str("</ul>");
                }
                out.push_str("</li>\n");
            }
            out.push_str("</ul>\n");
        }
        Block::Table { head, rows } => {
            out.push_str("<table>\n");
            if head.iter().any(|h| !h.is_empty()) {
                out.push_str("<tr>");
                for h in head {
                    let _ = write!(out, "<th>{}</th>", escape(h));
                }
                out.push_str("</tr>\n");
            }
            for (id, cells) in rows {
                match id {
                    Some(id) => {
                        let _ = write!(out, "<tr id=\"{}\">", escape(id));
                    }
                    None => out.push_str("<tr>"),
                }
                for cell in cells {
                    let _ = write!(out, "<td>{}</td>", escape(cell));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</table>\n");
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
                html_block(out, block);
            }
            out.push_str("</details>\n");
        }
    }
}

/// Text for markdown, a table cell too (see [`crate::report::markdown::text`]).
fn md(text: &str) -> String {
    crate::report::markdown::text(text)
}

/// The page as markdown (charts linked from `charts/`).
pub fn markdown(blocks: &[Block]) -> String {
    let mut out = String::new();
    for block in blocks {
        markdown_block(&mut out, block);
    }
    out
}

fn markdown_block(out: &mut String, block: &Block) {
    match block {
        Block::Heading { level, text, id } => {
            let _ =
                writeln!(out, "<a id=\"{id}\"></a>\n\n{} {}\n", "#".repeat(usize::from(*level)), md(text));
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
        Block::Table { head, rows } => {
            let columns = head.len();
            let _ = writeln!(out, "| {} |", head.iter().map(|h| md(h)).collect::<Vec<_>>().join(" | "));
            let _ = writeln!(out, "|{}", "---|".repeat(columns));
            for (id, cells) in rows {
                let mut cells: Vec<String> = cells.iter().map(|c| md(c)).collect();
                if let (Some(id), Some(first)) = (id, cells.first_mut()) {
                    *first = format!("<a id=\"{id}\"></a>{first}");
                }
                let _ = writeln!(out, "| {} |", cells.join(" | "));
            }
            out.push('\n');
        }
        Block::Chart { file, .. } => {
            let _ = writeln!(out, "![{}](charts/{file})\n", md(file));
        }
        Block::Pre(text) => {
            let _ = writeln!(out, "{}\n", crate::report::markdown::code_block(text));
        }
        Block::Fold { summary, blocks } => {
            // An HTML block: markdown escapes are not read inside it, HTML's are.
            let _ = writeln!(out, "<details><summary>{}</summary>\n", escape(summary));
            for block in blocks {
                markdown_block(out, block);
            }
            out.push_str("</details>\n\n");
        }
    }
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
    fn html_escapes_text_and_keeps_inline_svg() {
        let blocks = vec![
            Block::Heading { level: 2, text: "a <b> & c".into(), id: "x".into() },
            Block::Chart {
                file: "load.svg".into(),
                svg: "<?xml version=\"1.0\"?>\n<svg width=\"1\"></svg>".into(),
            },
            Block::Table {
                head: vec!["case".into()],
                rows: vec![(Some("case-b".into()), vec!["Buffer<R8>".into()])],
            },
        ];
        let page = html("t", &blocks);
        assert!(page.contains("<h2 id=\"x\">a &lt;b&gt; &amp; c</h2>"), "{page}");
        assert!(
            page.contains("<figure><svg width=\"1\"></svg></figure>") && !page.contains("<?xml"),
            "{page}"
        );
        assert!(page.contains("<tr id=\"case-b\"><td>Buffer&lt;R8&gt;</td></tr>"), "{page}");
        let md = markdown(&blocks);
        assert!(
            md.contains("![load.svg](charts/load.svg)") && md.contains("<a id=\"case-b\"></a>Buffer&lt;R8>"),
            "{md}"
        );
    }
}
