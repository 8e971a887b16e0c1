//! Text made safe for CommonMark and GitHub's tables: every markdown writer (`--format markdown`,
//! `compare --format markdown`, report.md) passes each field through here, so that a case name
//! such as `Buffer<R8>` stays text and a results file cannot smuggle HTML or markup into a page.

/// `text` as literal CommonMark inline text: what CommonMark reads as markup is escaped
/// (`<` and `&` as entities, so `Buffer<R8>` is not a tag; `*`, `_`, brackets, backticks,
/// backslashes, `|`, `#`, `~` with a backslash; a leading `-`, `+`, `=`, `>` or `1.` so a line
/// cannot start a list, heading or quote), line breaks as spaces and other control characters
/// as visible escapes.
pub fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.chars().enumerate() {
        match c {
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            '*' | '_' | '[' | ']' | '`' | '\\' | '|' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '-' | '+' | '=' | '>' if i == 0 => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    // `1. ` or `1) ` at the start would begin an ordered list (`5.63 TFLOPS` would not).
    let digits = out.chars().take_while(char::is_ascii_digit).count();
    let mut after = out[digits..].chars();
    if digits > 0 && matches!(after.next(), Some('.' | ')')) && matches!(after.next(), None | Some(' ')) {
        out.insert(digits, '\\');
    }
    out
}

/// A fence for `text` as a code block: a run of backticks longer than any in it (at least three),
/// so no line of the text can close the block early.
pub fn fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat((longest + 1).max(3))
}

/// `text` as a fenced code block, its control characters but line breaks and tabs visible escapes.
pub fn code_block(text: &str) -> String {
    let body = crate::format::printable_lines(text.trim_end());
    let fence = fence(&body);
    format!("{fence}\n{body}\n{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stay_text_and_markup_stays_literal() {
        assert_eq!(text("Buffer<R8>.Load uniform"), "Buffer&lt;R8>.Load uniform");
        assert_eq!(
            text("GEMM f16*f16+f32 [a] `b` x_y a|b"),
            "GEMM f16\\*f16+f32 \\[a\\] \\`b\\` x\\_y a\\|b"
        );
        assert_eq!(text("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)>");
        assert_eq!(text("&lt; # ~~x~~"), "&amp;lt; \\# \\~\\~x\\~\\~");
        assert_eq!(text("- a\n# b\u{1b}[2J"), "\\- a \\# b\\u{1b}\\[2J");
        assert_eq!(text("1. first"), "1\\. first");
        assert_eq!(text("5.63 TFLOPS"), "5.63 TFLOPS");
        assert_eq!(text("> quoted"), "\\> quoted");
    }

    #[test]
    fn a_fence_is_longer_than_any_backtick_run_inside() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("a ``` b ```` c"), "`````");
        let block = code_block("```\n</pre><script>");
        assert!(block.starts_with("````\n```\n") && block.ends_with("\n````"), "{block}");
    }
}
