//! Where a run's time went, for the page: its phases summed over the cases, and the cases that
//! cost the most, so the slow part of a run is seen before it is guessed.

use super::Block;
use crate::format::seconds_text;
use crate::record::phases::Phases;
use crate::results::model::Run;

/// The costliest cases listed.
const CASES: usize = 10;

/// The fold that says where `run`'s wall time went; `None` for files that did not keep it.
pub fn block(run: &Run) -> Option<Block> {
    let (wall_s, sum) = run.time_spent()?;
    let share = |ms: f64| format!("{:.1}%", ms / 1e3 / wall_s * 100.0);
    let mut phases: Vec<(&str, f64)> = sum.largest_first().into_iter().filter(|(_, ms)| *ms > 0.0).collect();
    phases.push(("outside the cases (device, pipelines, warm-up)", (wall_s * 1e3 - sum.total_ms).max(0.0)));
    let mut rows: Vec<(Option<String>, Vec<String>)> =
        phases.iter().map(|(name, ms)| (None, vec![(*name).to_owned(), seconds(*ms), share(*ms)])).collect();
    rows.push((
        None,
        vec![
            "of it, timed samples on the GPU".into(),
            seconds(sum.samples_gpu_ms),
            share(sum.samples_gpu_ms),
        ],
    ));
    let mut costly: Vec<(&str, &Phases)> =
        run.cases.iter().filter_map(|c| Some((c.name.as_str(), c.phases.as_ref()?))).collect();
    costly.sort_by(|a, b| b.1.total_ms.total_cmp(&a.1.total_ms));
    let cases = costly
        .iter()
        .take(CASES)
        .map(|(name, p)| {
            let most = p.named().into_iter().max_by(|a, b| a.1.total_cmp(&b.1)).map_or("", |(n, _)| n);
            (None, vec![(*name).to_owned(), seconds(p.total_ms), most.to_owned()])
        })
        .collect();
    Some(Block::Fold {
        summary: format!(
            "Where the time went: {} wall, {} of it timed samples on the GPU",
            seconds(wall_s * 1e3),
            share(sum.samples_gpu_ms)
        ),
        blocks: vec![
            Block::Table { head: ["phase", "wall time", "share"].map(str::to_owned).to_vec(), rows },
            Block::Table {
                head: ["costliest case", "wall time", "mostly"].map(str::to_owned).to_vec(),
                rows: cases,
            },
        ],
    })
}

/// Milliseconds as seconds ([`seconds_text`]).
fn seconds(ms: f64) -> String {
    seconds_text(ms / 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_phases_largest_first_and_the_costliest_cases() {
        let mut run = crate::results::model::tests::sample_run();
        assert!(block(&run).is_none(), "a file without phases has no such fold");
        run.wall_s = Some(2.0);
        run.cases[0].phases = Some(Phases {
            setup_ms: 300.0,
            samples_ms: 1000.0,
            samples_gpu_ms: 990.0,
            total_ms: 1400.0,
            ..Phases::default()
        });
        let Some(Block::Fold { summary, blocks }) = block(&run) else { panic!("a fold") };
        assert_eq!(summary, "Where the time went: 2.00 s wall, 49.5% of it timed samples on the GPU");
        let Block::Table { rows, .. } = &blocks[0] else { panic!("a table") };
        let names: Vec<&str> = rows.iter().map(|(_, r)| r[0].as_str()).collect();
        assert_eq!(names[..2], ["samples", "setup"]);
        assert_eq!(rows[2].1, ["outside the cases (device, pipelines, warm-up)", "0.60 s", "30.0%"]);
        let Block::Table { rows, .. } = &blocks[1] else { panic!("a table") };
        assert_eq!(rows[0].1, ["ByteAddressBuffer.Load uniform", "1.40 s", "samples"]);
    }
}
