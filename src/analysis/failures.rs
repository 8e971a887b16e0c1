//! The run's verdict on its failed cases: each failure cost only its case, and the exit code says
//! the worst of them (a lost device, then a crash or hang, then a difference from the CPU
//! reference, then any other error), with a sentence that names them.

use crate::error::{Error, ExitCode, Result};
use crate::results::model::{Run, Status};

/// The statuses in the order their exit codes win, each with its code.
const WORST_FIRST: [(Status, ExitCode); 5] = [
    (Status::DeviceLost, ExitCode::DeviceLost),
    (Status::Crashed, ExitCode::Crashed),
    (Status::Hung, ExitCode::Crashed),
    (Status::Differs, ExitCode::Verify),
    (Status::Failed, ExitCode::Failure),
];

/// How many names a summary lists before it says how many more there are.
const NAMED: usize = 5;

impl Run {
    /// `Err` naming the failed cases if any failed, with the code of the worst status.
    pub fn failures(&self) -> Result<()> {
        self.corruption()?;
        let failed: Vec<_> =
            self.cases.iter().filter(|c| WORST_FIRST.iter().any(|(s, _)| *s == c.status)).collect();
        let Some(&(_, code)) = WORST_FIRST.iter().find(|(s, _)| failed.iter().any(|c| c.status == *s)) else {
            return Ok(());
        };
        let mut names: Vec<String> =
            failed.iter().take(NAMED).map(|c| format!("\"{}\" ({})", c.name, c.status.word())).collect();
        if failed.len() > NAMED {
            names.push(format!("and {} more", failed.len() - NAMED));
        }
        let what = if failed.iter().all(|c| c.status == Status::Differs) {
            "differ from the CPU reference"
        } else {
            "failed"
        };
        let advice = match code {
            ExitCode::Verify => "every other case was checked",
            _ => "each cost only its case; the reason is on its line; leave a case out with --skip",
        };
        Err(Error::Cases {
            summary: format!(
                "{} of {} cases {what}: {}; {advice}",
                failed.len(),
                self.cases.len(),
                names.join(", ")
            ),
            code,
        })
    }
}

impl Run {
    /// `Err` naming the cases whose shaders found results that differ from their known bits
    /// (the `sdc` family): silent data corruption, worse than any failure of a case, since the
    /// GPU answered and was wrong.
    fn corruption(&self) -> Result<()> {
        let corrupt: Vec<_> = self
            .cases
            .iter()
            .filter_map(|c| c.faults.as_ref().filter(|f| f.mismatches > 0).map(|f| (c, f)))
            .collect();
        if corrupt.is_empty() {
            return Ok(());
        }
        let names: Vec<String> = corrupt
            .iter()
            .take(NAMED)
            .map(|(c, f)| format!("\"{}\" ({} of {} results)", c.name, f.mismatches, f.checked))
            .collect();
        let units: Vec<String> = corrupt
            .iter()
            .flat_map(|(_, f)| f.faults.iter().map(|fault| fault.unit))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .map(|u| u.map_or("an unknown unit".to_string(), |u| format!("unit {u}")))
            .collect();
        Err(Error::Cases {
            summary: format!(
                "{} of {} cases computed results that differ from their known bits (silent data corruption) \
                 on {}: {}; drain the GPU, and run the sdc family again to confirm",
                corrupt.len(),
                self.cases.len(),
                units.join(", "),
                names.join(", ")
            ),
            code: ExitCode::Corrupt,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::error::ExitCode;
    use crate::results::model::tests::sample_run;
    use crate::results::model::Status;

    #[test]
    fn corrupt_results_end_the_run_with_their_own_code_before_any_failure() {
        use crate::record::faults::{Fault, FaultCount};
        let mut run = sample_run();
        let fault =
            Fault { unit: Some(17), workgroup: 3, invocation: 4, result: 0, expected: 1, observed: 3 };
        run.cases[0].faults =
            Some(FaultCount { checked: 1 << 30, mismatches: 0, faults: vec![], ..Default::default() });
        assert!(run.failures().is_ok(), "a clean check is no failure");
        run.cases[0].faults = Some(FaultCount {
            checked: 1 << 30,
            mismatches: 2,
            faults: vec![fault; 2],
            ..Default::default()
        });
        run.cases[1].status = Status::DeviceLost;
        let error = run.failures().unwrap_err();
        assert_eq!(error.exit_code(), ExitCode::Corrupt);
        let text = error.to_string();
        assert!(text.contains("on unit 17:") && text.contains("(2 of 1073741824 results)"), "{text}");
    }

    #[test]
    fn the_worst_failure_sets_the_code_and_every_failure_is_named() {
        let mut run = sample_run();
        assert!(run.failures().is_ok(), "ok and skipped cases are no failure");
        let template = run.cases[0].clone();
        run.cases = (0..8)
            .map(|i| {
                let mut case = template.clone();
                case.name = format!("case {i}");
                case.status = if i < 7 { Status::Differs } else { Status::Ok };
                case
            })
            .collect();
        let error = run.failures().unwrap_err();
        assert_eq!(error.exit_code(), ExitCode::Verify);
        let text = error.to_string();
        assert!(
            text.starts_with("7 of 8 cases differ from the CPU reference: \"case 0\" (differs)"),
            "{text}"
        );
        assert!(text.contains("and 2 more; every other case was checked"), "{text}");
        run.cases[3].status = Status::Crashed;
        assert_eq!(run.failures().unwrap_err().exit_code(), ExitCode::Crashed);
        run.cases[5].status = Status::DeviceLost;
        let error = run.failures().unwrap_err();
        assert_eq!(error.exit_code(), ExitCode::DeviceLost);
        assert!(error.to_string().starts_with("7 of 8 cases failed"), "{error}");
    }
}
