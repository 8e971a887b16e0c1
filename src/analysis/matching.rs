//! The one way runs are matched: by case name, in the first run's order, then the cases the
//! earlier runs lack, in the order they appear.

use std::collections::HashMap;

use crate::results::model::{CaseResult, Run};

/// One case across several runs.
#[derive(Debug)]
pub struct Matched<'a> {
    /// The case name.
    pub name: &'a str,
    /// Its result in each run, `None` where the run lacks it.
    pub found: Vec<Option<&'a CaseResult>>,
}

impl<'a> Matched<'a> {
    /// The first result found (for the case's group, variant and axes).
    pub fn any(&self) -> &'a CaseResult {
        self.found.iter().flatten().next().copied().expect("a matched case is in at least one run")
    }
}

/// Matches the cases of `runs` by name.
pub fn match_runs(runs: &[Run]) -> Vec<Matched<'_>> {
    let mut rows: Vec<Matched<'_>> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (r, run) in runs.iter().enumerate() {
        for case in &run.cases {
            let at = *index.entry(case.name.as_str()).or_insert_with(|| {
                rows.push(Matched { name: &case.name, found: vec![None; runs.len()] });
                rows.len() - 1
            });
            rows[at].found[r].get_or_insert(case);
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_match_by_name_in_first_run_order_then_new_ones() {
        let first = crate::results::model::tests::sample_run();
        let mut second = first.clone();
        second.cases.reverse();
        let mut extra = second.cases[0].clone();
        extra.name = "Only in run 2".into();
        second.cases.push(extra);
        let runs = [first, second];
        let rows = match_runs(&runs);
        let names: Vec<&str> = rows.iter().map(|r| r.name).collect();
        assert_eq!(names, ["ByteAddressBuffer.Load uniform", "ALU fp64 FMA", "Only in run 2"]);
        assert!(rows[0].found.iter().all(Option::is_some));
        assert!(rows[2].found[0].is_none() && rows[2].found[1].is_some());
        assert_eq!(rows[2].any().name, "Only in run 2");
    }
}
