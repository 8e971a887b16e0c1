//! Flags that need the whole run: throttled (against the run's median clock), ratios against a
//! baseline that ended flagged, and `--strict`'s verdict on both.

use super::trust;
use crate::error::{Error, Result};
use crate::results::flag::Flag;
use crate::results::model::{CaseResult, Run};

impl Run {
    /// Sets the run's median clock and flags each case whose clock is 5% or more below it,
    /// beyond its clock's uncertainty, unless its own load held it there (the same clock after a
    /// re-warm).
    pub fn flag_throttled(&mut self) {
        self.clock_median_mhz = trust::median_clock(self.cases.iter().filter_map(|c| c.clock_mhz));
        let Some(median) = self.clock_median_mhz else { return };
        for case in &mut self.cases {
            let read = case.clock.as_ref();
            let own_load = read.is_some_and(|r| r.own_load);
            let uncertainty = read.and_then(|r| r.uncertainty);
            let flag = case
                .clock_mhz
                .filter(|_| !own_load)
                .and_then(|mhz| trust::throttled(mhz, median, uncertainty));
            case.flags.retain(|f| !matches!(f, Flag::Throttled { .. }));
            // Throttled goes before implausible and re-measured, as `trust::flags` orders them.
            let later = |f: &Flag| matches!(f, Flag::Implausible { .. } | Flag::Remeasured { .. });
            let at = case.flags.iter().position(later).unwrap_or(case.flags.len());
            if let Some(flag) = flag {
                case.flags.insert(at, flag);
            }
        }
    }

    /// Flags each case whose ratio is against a baseline that has flags of its own (after
    /// [`Run::flag_throttled`], so a baseline that ran off the run's median clock counts), and
    /// clears the flag where the baseline has none.
    pub fn flag_baselines(&mut self) {
        let flags_of = |name: &str| -> Vec<Flag> {
            let base = self.cases.iter().find(|c| c.name == name);
            base.map(|c| c.flags.iter().filter(|f| !matches!(f, Flag::Baseline(_))).cloned().collect())
                .unwrap_or_default()
        };
        let verdicts: Vec<Option<Flag>> = self
            .cases
            .iter()
            .map(|c| {
                // The baseline's own 1.000x needs no flag for being against itself.
                let baseline = c.baseline.as_deref().filter(|b| c.ratio.is_some() && *b != c.name);
                baseline.and_then(|b| trust::baseline_flag(&flags_of(b)))
            })
            .collect();
        for (case, verdict) in self.cases.iter_mut().zip(verdicts) {
            case.flags.retain(|f| !matches!(f, Flag::Baseline(_)));
            case.flags.extend(verdict);
        }
    }

    /// Each flagged baseline, with its flags and how many ratios are against it, in run order.
    pub fn flagged_baselines(&self) -> Vec<(&str, Vec<String>, usize)> {
        let mut flagged: Vec<(&str, Vec<String>, usize)> = Vec::new();
        for case in self.cases.iter().filter(|c| c.baseline_flagged()) {
            let Some(baseline) = case.baseline.as_deref() else { continue };
            match flagged.iter_mut().find(|(name, _, _)| *name == baseline) {
                Some((_, _, count)) => *count += 1,
                None => {
                    let base = self.cases.iter().find(|c| c.name == baseline);
                    let flags =
                        base.map(|c| c.flags.iter().map(Flag::to_string).collect()).unwrap_or_default();
                    flagged.push((baseline, flags, 1));
                }
            }
        }
        flagged
    }

    /// The `--strict` verdict: an error naming the implausible results, or else the first
    /// baseline that stayed flagged, if there are any.
    pub fn strict(&self) -> Result<()> {
        let flagged: Vec<&CaseResult> = self.cases.iter().filter(|c| c.implausible().is_some()).collect();
        if let Some(first) = flagged.first() {
            return Err(Error::Implausible {
                count: flagged.len(),
                first: first.name.clone(),
                detail: first.implausible().map(Flag::to_string).unwrap_or_default(),
            });
        }
        match self.flagged_baselines().first() {
            None => Ok(()),
            Some((baseline, flags, ratios)) => Err(Error::FlaggedBaseline {
                baseline: (*baseline).to_owned(),
                flags: flags.join("; "),
                ratios: *ratios,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::tests::sample_run;

    #[test]
    fn cases_off_the_run_median_clock_are_flagged_throttled_and_strict_names_the_implausible() {
        let mut run = sample_run();
        let template = run.cases[0].clone();
        run.cases = [1980.0, 1980.0, 1395.0, 1975.0]
            .iter()
            .enumerate()
            .map(|(i, mhz)| CaseResult {
                name: format!("case {i}"),
                clock_mhz: Some(*mhz),
                ..template.clone()
            })
            .collect();
        run.cases[2].flags = vec![Flag::parse(
            "implausible: 150% of the L1 peak (128.0 B/clk/SM): the compiler may have removed work",
        )];
        run.cases[2]
            .flags
            .push(Flag::parse("re-measured once: it ran at 1390 MHz, the warm-up reached 1980 MHz"));
        run.flag_throttled();
        assert_eq!(run.clock_median_mhz, Some(1977.5));
        assert_eq!(run.cases[2].flags[0].to_string(), "throttled: ran at 1395 MHz, run median 1978 MHz");
        assert!(matches!(run.cases[2].flags[1], Flag::Implausible { .. }), "throttled goes first");
        assert!(matches!(run.cases[2].flags[2], Flag::Remeasured { .. }), "{:?}", run.cases[2].flags);
        assert!(run.cases.iter().filter(|c| c.name != "case 2").all(|c| c.flags.is_empty()));
        run.flag_throttled();
        assert_eq!(run.cases[2].flags.len(), 3, "flagging twice does not repeat the flag");
        let error = run.strict().unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::Implausible);
        assert!(error
            .to_string()
            .starts_with("1 result is above a known peak of the hardware, the first \"case 2\""));
        run.cases.remove(2);
        assert!(run.strict().is_ok());
    }

    #[test]
    fn ratios_against_a_baseline_that_ended_flagged_are_flagged_and_fail_strict() {
        let mut run = sample_run();
        let template = run.cases[0].clone();
        let baseline = "Buffer<RGBA8>.Load random";
        let case =
            |name: &str, ratio: f64| CaseResult { name: name.into(), ratio: Some(ratio), ..template.clone() };
        run.cases = vec![
            case("Buffer<R8>.Load random", 0.9),
            case(baseline, 1.0),
            case("Buffer<RGBA8>.Load linear", 1.02),
        ];
        // The cold start of the issue: the baseline alone ran at 473 MHz.
        run.cases[1].clock_mhz = Some(473.0);
        run.flag_throttled();
        run.flag_baselines();
        let texts = |case: &CaseResult| case.flags.iter().map(Flag::to_string).collect::<Vec<_>>();
        assert_eq!(texts(&run.cases[1]), ["throttled: ran at 473 MHz, run median 1980 MHz"]);
        for i in [0, 2] {
            assert_eq!(
                texts(&run.cases[i]),
                ["ratio against a flagged baseline (throttled)"],
                "{}",
                run.cases[i].name
            );
        }
        assert_eq!(
            run.flagged_baselines(),
            [(baseline, vec!["throttled: ran at 473 MHz, run median 1980 MHz".to_owned()], 2)],
            "the baseline's own 1.000x is not counted against itself"
        );
        let error = run.strict().unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::FlaggedBaseline);
        assert!(
            error.to_string().starts_with(
                "the baseline \"Buffer<RGBA8>.Load random\" is flagged (throttled: ran at 473 MHz, run median 1980 MHz), \
                 so 2 ratios against it are doubtful"
            ),
            "{error}"
        );
        // Re-measured at the run's clock: the flags go, and strict passes.
        run.cases[1].clock_mhz = Some(1980.0);
        run.flag_throttled();
        run.flag_baselines();
        assert!(run.cases.iter().all(|c| c.flags.is_empty()), "{:?}", run.cases);
        assert!(run.strict().is_ok() && run.flagged_baselines().is_empty());
        // A case without a ratio (ALU) is never flagged for a baseline.
        run.cases[1].flags = vec![Flag::Noisy];
        run.cases[2].ratio = None;
        run.flag_baselines();
        assert!(run.cases[2].flags.is_empty());
        assert_eq!(texts(&run.cases[0]), ["ratio against a flagged baseline (noisy)"]);
    }
}
