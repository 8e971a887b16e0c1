//! Known driver faults as data, and `perftest check`'s verdict on a run against them: every case
//! the selection lists is in the run with a status, every failure is a listed one, and every listed
//! failure still happens. Mesa CI's `*-fails.txt` and deqp-runner's baselines are the model; the
//! file is JSON so that each entry says why.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::results::model::{Run, RunState, Status};

/// The known faults of one driver.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Expectations {
    /// Text the run's driver (`device.driver`) must contain, such as `Mesa 22.3`: a file applies to
    /// the driver and version it was written for, and says so when used with another.
    pub driver: String,
    /// The faults.
    pub faults: Vec<Fault>,
    /// The reasons the driver's skips may give (empty: any reason); a skip whose reason contains
    /// none of them is a problem, so a new missing feature or limit is noticed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skips: Vec<KnownSkip>,
}

/// A reason the driver is known to make cases skip.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KnownSkip {
    /// Text the skip's reason contains (`the device has no host-cached memory type`).
    pub reason: String,
    /// What the driver lacks, and why that is expected.
    pub why: String,
}

impl Expectations {
    /// Whether a skip with `reason` is one this driver is known to make.
    pub fn expects_skip(&self, reason: &str) -> bool {
        self.skips.is_empty() || self.skips.iter().any(|s| reason.contains(&s.reason))
    }
}

/// One case that the driver is known to fail.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// The case's name.
    pub case: String,
    /// Its status: `crashed`, `hung`, `device_lost`, `differs`, `failed`.
    pub status: Status,
    /// Why: the driver's defect, with where it was seen.
    pub why: String,
    /// The subgroup sizes it happens at (empty: every size).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subgroup_sizes: Vec<u32>,
}

impl Expectations {
    /// Reads an expectations file, with a sentence naming it if it cannot be used.
    pub fn load(path: &Path) -> Result<Self> {
        let bad = |problem: String| Error::ResultsFile { path: path.display().to_string(), problem };
        let text = crate::results::model::read_bounded(path).map_err(bad)?;
        serde_json::from_str(&text).map_err(|e| {
            bad(format!("is not an expectations file ({e}); see ci/expectations/ for the layout"))
        })
    }
}

/// What is wrong with `run` against `expected`, given the names its selection lists (and the
/// families whose device may add cases the list cannot name), one sentence each (empty:
/// nothing); `file` names the expectations in the advice.
pub fn check(
    run: &Run,
    listed: &[String],
    open: &[&str],
    expected: &Expectations,
    file: &str,
) -> Vec<String> {
    let mut problems = Vec::new();
    if !run.device.driver.contains(&expected.driver) {
        problems.push(format!(
            "{file} is for drivers whose name contains \"{}\", and the run's is \"{}\": use the file of this driver",
            expected.driver, run.device.driver
        ));
        return problems;
    }
    let missing: Vec<&str> =
        listed.iter().filter(|n| !run.cases.iter().any(|c| c.name == **n)).map(String::as_str).collect();
    if !missing.is_empty() {
        problems.push(format!(
            "{} {} missing from the run, the first \"{}\"",
            crate::format::count(missing.len(), "listed case"),
            crate::format::is_are(missing.len()),
            missing[0]
        ));
    }
    let extra = run.cases.iter().find(|c| !listed.contains(&c.name) && !open.contains(&c.family.as_str()));
    if let Some(extra) = extra {
        problems.push(format!("the run has \"{}\", which its selection does not list", extra.name));
    }
    if run.ending.state == RunState::Interrupted {
        problems.push("the run was interrupted".into());
    }
    let applies =
        |f: &Fault| f.subgroup_sizes.is_empty() || f.subgroup_sizes.contains(&run.device.subgroup_size);
    for case in run.cases.iter().filter(|c| c.status.is_failure()) {
        let known =
            expected.faults.iter().any(|f| f.case == case.name && f.status == case.status && applies(f));
        if !known {
            problems.push(format!(
                "new: \"{}\" is {} ({}); if the driver is at fault, add it to {file} with why",
                case.name,
                case.status.word(),
                case.reason.as_deref().unwrap_or("no reason")
            ));
        }
    }
    for case in run.cases.iter().filter(|c| c.status == Status::Skipped) {
        let reason = case.reason.as_deref().unwrap_or("");
        if !expected.expects_skip(reason) {
            problems.push(format!(
                "new skip: \"{}\" was skipped ({reason}), for a reason {file} does not list; if the driver \
                 lacks it, add the reason to {file} with why",
                case.name
            ));
        }
    }
    for fault in expected.faults.iter().filter(|f| applies(f)) {
        match run.cases.iter().find(|c| c.name == fault.case) {
            Some(case) if case.status != fault.status => problems.push(format!(
                "fixed: \"{}\" is {}, not {} as {file} expects; remove it from {file}",
                fault.case,
                case.status.word(),
                fault.status.word()
            )),
            None if listed.contains(&fault.case) => {}
            None => problems.push(format!(
                "stale: {file} lists \"{}\", which the selection does not have; remove it",
                fault.case
            )),
            Some(_) => {}
        }
    }
    let failures = run.failures().err().map(|e| e.exit_code() as u8).unwrap_or(0);
    let ending_ok = run.ending.exit_code == failures || run.ending.state == RunState::Interrupted;
    if !ending_ok {
        problems.push(format!(
            "the run ended with exit {} where its cases give {failures}: {}",
            run.ending.exit_code,
            run.ending.message.as_deref().unwrap_or("no message").lines().next().unwrap_or("")
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::tests::sample_run;
    use crate::results::model::Ending;

    fn lavapipe() -> Expectations {
        Expectations {
            driver: "NVIDIA".into(),
            faults: vec![Fault {
                case: "ALU fp64 FMA".into(),
                status: Status::Crashed,
                why: "test".into(),
                subgroup_sizes: vec![],
            }],
            skips: vec![],
        }
    }

    fn crashed_run() -> (Run, Vec<String>) {
        let mut run = sample_run();
        run.cases[1].status = Status::Crashed;
        run.cases[1].reason = Some("SIGSEGV".into());
        run.ending = Ending::of(&run.failures());
        let listed = run.cases.iter().map(|c| c.name.clone()).collect();
        (run, listed)
    }

    #[test]
    fn a_listed_fault_passes_and_a_new_one_fails_naming_the_file() {
        let (run, listed) = crashed_run();
        assert_eq!(run.ending.exit_code, 14);
        assert_eq!(check(&run, &listed, &[], &lavapipe(), "f.json"), Vec::<String>::new());
        let problems = check(&run, &listed, &[], &Expectations { faults: vec![], ..lavapipe() }, "f.json");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("new: \"ALU fp64 FMA\" is crashed (SIGSEGV); if the driver"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_fault_that_no_longer_happens_says_to_remove_it() {
        let mut run = sample_run();
        let listed: Vec<String> = run.cases.iter().map(|c| c.name.clone()).collect();
        run.cases[1].status = Status::Ok;
        let problems = check(&run, &listed, &[], &lavapipe(), "f.json");
        assert_eq!(
            problems,
            ["fixed: \"ALU fp64 FMA\" is ok, not crashed as f.json expects; remove it from f.json"]
        );
        let other = Expectations {
            faults: vec![Fault { subgroup_sizes: vec![4], ..lavapipe().faults[0].clone() }],
            ..lavapipe()
        };
        assert!(check(&run, &listed, &[], &other, "f.json").is_empty(), "a fault of another subgroup size");
    }

    #[test]
    fn a_device_may_add_cases_only_to_a_family_that_says_so() {
        let (run, listed) = crashed_run();
        // The device advertised a shape --list cannot know: the run has a case the list lacks.
        let fewer: Vec<String> = listed.iter().skip(1).cloned().collect();
        let family = run.cases[0].family.clone();
        let problems = check(&run, &fewer, &[], &lavapipe(), "f.json");
        assert!(problems[0].contains("which its selection does not list"), "{problems:?}");
        assert!(check(&run, &fewer, &[family.as_str()], &lavapipe(), "f.json").is_empty());
    }

    #[test]
    fn missing_cases_another_driver_and_a_wrong_ending_are_problems() {
        let (mut run, mut listed) = crashed_run();
        listed.push("Not run".into());
        assert!(check(&run, &listed, &[], &lavapipe(), "f.json")[0].starts_with("1 listed case is missing"));
        listed.pop();
        run.ending.exit_code = 9;
        let problems = check(&run, &listed, &[], &lavapipe(), "f.json");
        assert!(problems[0].starts_with("the run ended with exit 9 where its cases give 14"), "{problems:?}");
        run.device.driver = "llvmpipe Mesa 25.0".into();
        assert!(check(&run, &listed, &[], &lavapipe(), "f.json")[0].contains("use the file of this driver"));
    }

    #[test]
    fn a_skip_for_a_reason_the_file_does_not_list_is_a_problem() {
        let (run, listed) = crashed_run();
        // sample_run's skip: "the device lacks shaderFloat64".
        let known = KnownSkip { reason: "the device lacks shaderFloat64".into(), why: "test".into() };
        let with_skips = Expectations { skips: vec![known], faults: vec![], ..lavapipe() };
        let without = Expectations { faults: vec![], ..lavapipe() };
        let mut skipped = run.clone();
        skipped.cases[1].status = Status::Skipped;
        skipped.cases[1].reason = Some("the device lacks shaderFloat64".into());
        skipped.ending = Ending::of(&skipped.failures());
        assert_eq!(check(&skipped, &listed, &[], &with_skips, "f.json"), Vec::<String>::new());
        skipped.cases[1].reason = Some("the device lacks shaderInt64".into());
        let problems = check(&skipped, &listed, &[], &with_skips, "f.json");
        assert!(
            problems
                .iter()
                .any(|p| p
                    .starts_with("new skip: \"ALU fp64 FMA\" was skipped (the device lacks shaderInt64)")),
            "{problems:?}"
        );
        assert_eq!(
            check(&skipped, &listed, &[], &without, "f.json"),
            Vec::<String>::new(),
            "no list: any skip"
        );
    }
}
