//! Runs that are parts of one: a full run made family by family (`--family load`, then `--family
//! branch`) on one device row with the same settings, joined so the report shows it as one run.

use crate::results::model::{Run, RunState};

/// Whether `a` and `b` ran on the same device row with the same perftest and measurement
/// settings, so that their cases can stand in one table.
fn parts_of_one(a: &Run, b: &Run) -> bool {
    let (x, y) = (&a.device, &b.device);
    let row = |d: &crate::results::model::Device| {
        (d.name.clone(), d.driver.clone(), d.vendor_id, d.device_id, d.queue_family)
    };
    let settings = |r: &Run| {
        let s = &r.settings;
        (r.perftest_version.clone(), s.target_ms.to_bits(), s.samples, s.verify, s.quick, s.axes.clone())
    };
    row(x) == row(y) && settings(a) == settings(b) && !a.cases.is_empty() && !b.cases.is_empty()
}

/// The runs as the report shows them: each run after the first that is a part of one with the
/// run just before it (same device row, perftest and measurement settings) and shares no case
/// with it is added to it (its label joined); any other run stands alone, compared with the first.
pub fn combine(labels: &[String], runs: Vec<Run>) -> (Vec<String>, Vec<Run>) {
    let mut out: Vec<(String, Run)> = Vec::new();
    for (label, run) in labels.iter().cloned().zip(runs) {
        match out.last_mut() {
            Some((last_label, last))
                if parts_of_one(last, &run)
                    && !run.cases.iter().any(|c| last.cases.iter().any(|l| l.name == c.name)) =>
            {
                last_label.push_str(&format!(" + {label}"));
                (last.header, last.facts) = (String::new(), None);
                for family in &run.families {
                    if !last.families.iter().any(|f| f.name == family.name) {
                        last.families.push(family.clone());
                    }
                }
                match run.settings.families.is_empty() {
                    // A part of every family: the whole is too.
                    true => last.settings.families.clear(),
                    false if !last.settings.families.is_empty() => {
                        last.settings.families.extend(run.settings.families)
                    }
                    false => {}
                }
                last.cases.extend(run.cases);
                last.levels.extend(run.levels);
                if run.ending.state != RunState::Complete {
                    last.ending = run.ending;
                }
            }
            _ => out.push((label, run)),
        }
    }
    out.into_iter().unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(families: &[&str], cases: &[&str]) -> Run {
        let mut run = crate::results::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/results/report/h100/final-quick1.json"
        )))
        .unwrap();
        run.settings.families = families.iter().map(|f| (*f).to_owned()).collect();
        run.cases.retain(|c| cases.contains(&c.name.as_str()));
        run
    }

    #[test]
    fn parts_of_one_run_combine_and_other_runs_stand_alone() {
        let labels: Vec<String> = ["a", "b", "c"].map(str::to_owned).to_vec();
        let a = part(&["alu"], &["ALU fp32 FMA"]);
        let b = part(&["gemm"], &["ALU fp64 FMA"]);
        let (names, runs) = combine(&labels[..2], vec![a.clone(), b.clone()]);
        assert_eq!(names, ["a + b"]);
        assert_eq!(
            (runs[0].cases.len(), runs[0].settings.families.clone()),
            (2, vec!["alu".into(), "gemm".into()])
        );
        // The same case again is a second run, to compare; so is a run with other settings.
        let (names, _) = combine(&labels[..2], vec![a.clone(), a.clone()]);
        assert_eq!(names, ["a", "b"]);
        let mut longer = b.clone();
        longer.settings.target_ms = 20.0;
        assert_eq!(combine(&labels[..2], vec![a.clone(), longer]).0.len(), 2);
        // A part of every family makes the whole every family.
        let all = part(&[], &["ALU int32 multiply-add"]);
        assert!(combine(&labels, vec![a, b, all]).1[0].settings.families.is_empty());
    }
}
