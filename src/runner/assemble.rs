//! Putting finished cases back in list order with their ratios: a timed run measures the baselines
//! first ([`order`]), records arrive in that order (from this process or from workers, across
//! restarts), and each case is handed on in its place once the cases before it are, with its ratio
//! against its baseline's rate.

use std::collections::HashMap;

use super::message::Record;
use crate::record::outcome::Outcome;
use crate::registry::CaseSpec;

/// The order to run `cases` in, as indices: in a timed run each baseline first (in the order cases
/// name them), so that every line can print its ratio; then the rest in list order.
pub fn order(cases: &[CaseSpec], verify: bool) -> Vec<usize> {
    let index_of: HashMap<&str, usize> =
        cases.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
    let mut first: Vec<usize> = Vec::new();
    if !verify {
        for baseline in cases.iter().filter_map(|c| c.baseline.as_deref()) {
            if let Some(&index) = index_of.get(baseline).filter(|i| !first.contains(i)) {
                first.push(index);
            }
        }
    }
    let rest = (0..cases.len()).filter(|i| !first.contains(i));
    first.iter().copied().chain(rest).collect()
}

/// `order` for the device at `slot` (from 0) of `of` running at once: each case that covers the
/// device's own free memory (the SDC pass over it, last in a run) moves to `(of - slot) / of` of
/// the way through, so that no two devices allocate most of their memory together. The driver
/// allocates and frees device memory for one device at a time; four H200s that each reached the
/// pass last and together took 20-25 s over it, against 6-8 s alone (results/half-the-time-9/).
/// The device at slot 0, and one running alone, keeps `order`.
pub fn stagger(cases: &[CaseSpec], order: Vec<usize>, slot: usize, of: usize) -> Vec<usize> {
    if slot == 0 || slot >= of {
        return order;
    }
    let (moved, mut rest): (Vec<usize>, Vec<usize>) =
        order.into_iter().partition(|&i| cases[i].requires.own_memory);
    let at = rest.len() * (of - slot) / of;
    rest.splice(at..at, moved);
    rest
}

/// A finished case, as the assembler hands it on.
pub struct Finished<'a> {
    /// The case.
    pub case: &'a CaseSpec,
    /// What the worker sent, its outcome's ratio filled in and a missing baseline noted.
    pub record: &'a Record,
    /// The outcome of the baseline its ratio is against, where it has a ratio.
    pub baseline: Option<&'a Outcome>,
}

/// Holds records until the cases before them are in, then hands them on in list order.
pub struct Assembler<'c> {
    cases: &'c [CaseSpec],
    index_of: HashMap<&'c str, usize>,
    held: HashMap<usize, Record>,
    next: usize,
    baselines: HashMap<&'c str, Outcome>,
    missing: Vec<&'c str>,
}

impl<'c> Assembler<'c> {
    /// An assembler for `cases`, in list order.
    pub fn new(cases: &'c [CaseSpec]) -> Self {
        Assembler {
            cases,
            index_of: cases.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect(),
            held: HashMap::new(),
            next: 0,
            baselines: HashMap::new(),
            missing: Vec::new(),
        }
    }

    /// The cases, in list order.
    pub fn cases(&self) -> &'c [CaseSpec] {
        self.cases
    }

    /// Whether `case` is one of the cases and has not come in yet.
    pub fn awaits(&self, case: &str) -> bool {
        self.index_of.get(case).is_some_and(|&i| i >= self.next && !self.held.contains_key(&i))
    }

    /// Takes one record (a name that is not one of the cases, or came already, is ignored) and
    /// hands on every case now in place.
    pub fn take(&mut self, record: Record, on_done: &mut dyn FnMut(Finished<'_>)) {
        if !self.awaits(&record.case) {
            return;
        }
        let index = self.index_of[record.case.as_str()];
        let name = self.cases[index].name.as_str();
        if self.cases.iter().any(|c| c.baseline.as_deref() == Some(name)) {
            self.baselines.insert(name, record.outcome.clone());
        }
        self.held.insert(index, record);
        while let Some(record) = self.held.remove(&self.next) {
            self.hand_on(self.next, record, on_done);
            self.next += 1;
        }
    }

    /// Hands on what is still held (cases measured early, such as baselines, whose turn never
    /// came because the run stopped), in list order.
    pub fn finish(&mut self, on_done: &mut dyn FnMut(Finished<'_>)) {
        let mut held: Vec<(usize, Record)> = self.held.drain().collect();
        held.sort_by_key(|(index, _)| *index);
        for (index, record) in held {
            self.hand_on(index, record, on_done);
        }
        self.next = self.cases.len();
    }

    fn hand_on(&mut self, index: usize, mut record: Record, on_done: &mut dyn FnMut(Finished<'_>)) {
        let case = &self.cases[index];
        let Record { outcome, notes, .. } = &mut record;
        let own_rate = outcome.rate();
        let mut against = None;
        if let (Some(baseline), Outcome::Timed { ratio, with_time, .. }) = (&case.baseline, outcome) {
            *with_time = true;
            match self.baselines.get(baseline.as_str()).filter(|o| o.rate().is_some()) {
                Some(base) => {
                    *ratio = own_rate.zip(base.rate()).map(|(r, b)| r / b);
                    // The baseline's own 1.000x needs no flag for being against itself.
                    against = (*baseline != case.name).then_some(base);
                }
                // Said once per missing baseline, on the first line that lacks it.
                None if !self.missing.contains(&baseline.as_str()) => {
                    notes.push(format!(
                        "no ratios: the baseline \"{baseline}\" was not timed (filtered out, skipped or failed)"
                    ));
                    self.missing.push(baseline);
                }
                None => {}
            }
        }
        on_done(Finished { case, record: &record, baseline: against });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::outcome::Failure;
    use crate::registry;

    /// Four load cases and, last in the list, the baseline their ratios are against.
    fn loads() -> Vec<CaseSpec> {
        let loads: Vec<CaseSpec> =
            registry::expand(&[], None).into_iter().filter(|c| c.family == "load").collect();
        let baseline = loads[0].baseline.clone().expect("load cases have a baseline");
        let mut cases: Vec<CaseSpec> = loads.iter().filter(|c| c.name != baseline).take(4).cloned().collect();
        cases.extend(loads.iter().find(|c| c.name == baseline).cloned());
        assert!(cases.len() == 5 && cases.iter().all(|c| c.baseline.as_ref() == Some(&baseline)));
        cases
    }

    fn record(case: &CaseSpec, outcome: Outcome) -> Record {
        Record {
            case: case.name.clone(),
            outcome,
            notes: vec![],
            shader: None,
            validation: vec![],
            phases: Default::default(),
            energy: None,
        }
    }

    #[test]
    fn a_pass_over_free_memory_moves_through_the_run_by_the_devices_slot() {
        let mut cases = loads();
        cases.push(cases[0].clone());
        cases[5].name = "over free memory".into();
        cases[5].requires = cases[5].requires.clone().own_memory();
        let order = order(&cases, false);
        let at = |order: &[usize]| order.iter().position(|&i| i == 5).unwrap();
        assert_eq!(at(&order), 5, "last in the list, last in the run");
        // Alone, or first of several, the order stays; the others take it earlier, evenly.
        assert_eq!(stagger(&cases, order.clone(), 0, 1), order);
        assert_eq!(stagger(&cases, order.clone(), 0, 4), order);
        let places: Vec<usize> = (1..4).map(|slot| at(&stagger(&cases, order.clone(), slot, 4))).collect();
        assert_eq!(places, [3, 2, 1]);
        // Every case still runs once, and the baseline still first.
        for slot in 0..4 {
            let mut staggered = stagger(&cases, order.clone(), slot, 4);
            assert_eq!(staggered[0], order[0]);
            staggered.sort_unstable();
            assert_eq!(staggered, (0..6).collect::<Vec<_>>());
        }
    }

    #[test]
    fn baselines_run_first_in_timed_runs_only() {
        let cases = loads();
        assert_eq!(order(&cases, false), [4, 0, 1, 2, 3]);
        assert_eq!(order(&cases, true), (0..cases.len()).collect::<Vec<_>>());
    }

    #[test]
    fn cases_come_out_in_list_order_and_a_failed_baseline_gives_no_ratio() {
        let cases = loads();
        let mut assembler = Assembler::new(&cases);
        let mut seen: Vec<(String, bool)> = Vec::new();
        let mut on_done = |f: Finished<'_>| {
            seen.push((f.case.name.clone(), f.record.notes.iter().any(|n| n.starts_with("no ratios"))))
        };
        for &index in order(&cases, false).iter().rev() {
            let failed = Outcome::Failed { failure: Failure::Crashed, detail: "SIGSEGV".into() };
            assembler.take(record(&cases[index], failed), &mut on_done);
        }
        assembler.finish(&mut on_done);
        let names: Vec<&str> = seen.iter().map(|(n, _)| n.as_str()).collect();
        let listed: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, listed);
        // Failed cases are not timed: no line has a ratio, so no note about a missing one either.
        assert!(seen.iter().all(|(_, note)| !note));
    }

    #[test]
    fn a_record_that_came_already_or_names_no_case_is_ignored() {
        let cases = loads();
        let mut assembler = Assembler::new(&cases);
        let mut count = 0;
        let skipped = Outcome::Skipped("test".into());
        assembler.take(record(&cases[0], skipped.clone()), &mut |_| count += 1);
        assembler.take(record(&cases[0], skipped.clone()), &mut |_| count += 1);
        let mut stranger = record(&cases[1], skipped);
        stranger.case = "no such case".into();
        assembler.take(stranger, &mut |_| count += 1);
        assert_eq!(count, 1);
        assert!(!assembler.awaits(&cases[0].name) && assembler.awaits(&cases[1].name));
    }
}
