//! The answer at the end of a run: what its findings say a programmer should do, each with its
//! numbers, at most [`TOP`] of them, then how to see them all with their evidence.

use super::{Block, RunSection};
use crate::analysis::findings;
use crate::results::model::Run;

inventory::submit! { RunSection { name: "answer", order: 90, blocks } }

/// The findings said at the end of a run; the page has them all.
pub const TOP: usize = 10;

/// The findings under their heading, and where the rest are; none where the run supports none.
fn blocks(run: &Run) -> Vec<Block> {
    let found = findings::of(run);
    if found.is_empty() {
        return Vec::new();
    }
    let items = found.iter().take(TOP).map(|f| f.text.clone()).collect();
    let more = match found.len().saturating_sub(TOP) {
        0 => String::new(),
        n => format!("{n} more and "),
    };
    vec![
        Block::Gap,
        Block::Section {
            title: format!("answer: what the run says ({}):", crate::format::count(found.len(), "finding")),
            id: "answer".into(),
            blocks: vec![
                Block::Numbered(items),
                Block::Para(format!(
                    "{more}the evidence of each: perftest report RUN.json --output DIR (RUN.json: the record --json keeps)"
                )),
            ],
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::instructions::tests::{case, run_of};

    #[test]
    fn says_the_findings_with_their_numbers_and_where_the_evidence_is() {
        let run = run_of(vec![
            case("Instr fp32 fma throughput", 32e12, 128.0, Some(1.0)),
            case("Instr fp32 sin throughput", 4e12, 16.0, Some(0.125)),
        ]);
        let text = crate::report::doc::text(&blocks(&run));
        assert!(
            text.starts_with(
                "\nanswer: what the run says (2 findings):\n  1. One call costs, in fp32 FMAs (128 ops/clk/SM)"
            ),
            "{text}"
        );
        assert!(text.contains("sin 8.0.\n  2. None of the 2 timed results"), "{text}");
        assert!(text.ends_with(
            "  the evidence of each: perftest report RUN.json --output DIR (RUN.json: the record --json keeps)\n"
        ));
        assert!(blocks(&run_of(Vec::new())).is_empty(), "no findings, no answer");
    }
}
