//! Many runs drawn as three. A chart of 500 runs (a CI history) would give each case 500 bars and
//! its legend 500 rows; beyond [`MAX_DRAWN`] runs, each case is drawn from three runs instead:
//! the run where its value is lowest, the one where it is the median, and the one where it is
//! highest, labelled so. The spread of a case across the runs is then the gap between its bars.

use super::metric::{value, Metric};
use crate::results::model::{CaseResult, Run};

/// The most runs a chart draws one by one.
pub const MAX_DRAWN: usize = 8;

/// `runs` as a chart draws them: `None` for at most [`MAX_DRAWN`] runs (drawn as they are),
/// otherwise the lowest, median and highest run of each case, with their labels.
pub fn summarize(runs: &[Run], metric: Metric) -> Option<(Vec<String>, Vec<Run>)> {
    let first = runs.first().filter(|_| runs.len() > MAX_DRAWN)?;
    // Each case's results across the runs, cases in order of first appearance.
    let mut names: Vec<&str> = Vec::new();
    let mut by_name: std::collections::HashMap<&str, Vec<&CaseResult>> = std::collections::HashMap::new();
    for case in runs.iter().flat_map(|r| &r.cases) {
        let found = by_name.entry(&case.name).or_insert_with(|| {
            names.push(&case.name);
            Vec::new()
        });
        found.push(case);
    }
    let mut picked: [Vec<CaseResult>; 3] = Default::default();
    for name in names {
        let mut found = by_name.remove(name).unwrap_or_default();
        // Cases without a value (skipped, failed) sort first; a case with values picks among those.
        found.sort_by(|a, b| {
            value(a, metric).partial_cmp(&value(b, metric)).unwrap_or(std::cmp::Ordering::Equal)
        });
        let valued = found.iter().position(|c| value(c, metric).is_some()).unwrap_or(0);
        let found = &found[valued..];
        let (Some(low), Some(high)) = (found.first(), found.last()) else { continue };
        let median = found[found.len() / 2];
        for (slot, case) in picked.iter_mut().zip([*low, median, *high]) {
            slot.push(case.clone());
        }
    }
    let devices: std::collections::BTreeSet<&str> = runs.iter().map(|r| r.device.name.as_str()).collect();
    let device = match devices.len() {
        1 => first.device.name.clone(),
        n => format!("{n} devices"),
    };
    let n = runs.len();
    let labels = ["lowest", "median", "highest"].map(|which| format!("the {which} of {n} runs per case"));
    let runs = picked.map(|cases| {
        let mut run = Run { cases, ..first.clone() };
        run.device.name = device.clone();
        run
    });
    Some((labels.to_vec(), runs.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::tests::sample_run;

    #[test]
    fn many_runs_become_their_lowest_median_and_highest_per_case() {
        assert!(
            summarize(&vec![sample_run(); MAX_DRAWN], Metric::Rate).is_none(),
            "a few are drawn as they are"
        );
        let runs: Vec<Run> = (0..500)
            .map(|i| {
                let mut run = sample_run();
                for case in &mut run.cases {
                    if let Some(rate) = &mut case.rate {
                        rate.value *= 1.0 + f64::from(i) / 1000.0;
                    }
                }
                run
            })
            .collect();
        let (labels, drawn) = summarize(&runs, Metric::Rate).unwrap();
        assert_eq!(
            labels,
            [
                "the lowest of 500 runs per case",
                "the median of 500 runs per case",
                "the highest of 500 runs per case"
            ]
        );
        let timed = runs[0].cases.iter().position(|c| c.rate.is_some()).unwrap();
        let base = runs[0].cases[timed].rate.as_ref().unwrap().value;
        let rate = |run: &Run| run.cases[timed].rate.as_ref().unwrap().value;
        assert_eq!(rate(&drawn[0]), base);
        assert!((rate(&drawn[1]) / base - 1.25).abs() < 1e-12, "{}", rate(&drawn[1]) / base);
        assert!((rate(&drawn[2]) / base - 1.499).abs() < 1e-12);
        assert_eq!(drawn[0].cases.len(), runs[0].cases.len(), "untimed cases are kept too");
    }
}
