//! How one case ended: timed (with its measurement and work), verified, skipped with a reason, or
//! failed in one of the ways a case can fail without ending the run.

use super::measurement::Measurement;
use crate::registry::Work;

/// How one case ended (serializable: a worker process streams it to the parent).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Outcome {
    /// Timed: the measurement and the work one measurement does.
    Timed {
        /// The samples and their summary.
        measurement: Measurement,
        /// Work of one measurement, per entry of the case's `work`.
        work: Vec<(f64, Work)>,
        /// The rate over the baseline's rate (above 1 = faster), when the case has a timed baseline.
        ratio: Option<f64>,
        /// Whether the line has the original's `time ratio` shape (the case has a baseline).
        with_time: bool,
        /// What the measurement's count counts.
        counted: Counted,
    },
    /// Verified against the CPU reference: this many results matched.
    Verified {
        /// Results compared.
        checked: usize,
    },
    /// Compiled and its pipeline created, nothing run (`--compile-only`).
    Compiled {
        /// The pipeline executables the driver reports statistics of (`None`: it reports none).
        executables: Option<usize>,
    },
    /// Not run, and why.
    Skipped(String),
    /// Failed: how, and the sentence that says what happened.
    Failed {
        /// How it failed.
        failure: Failure,
        /// What happened, in one sentence (the error, the signal, the time waited).
        detail: String,
    },
}

/// The ways a case fails that cost that case, never the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Failure {
    /// `--verify` found results that differ from the CPU reference.
    Differs,
    /// The worker process died while the case ran (a signal, an abort, a non-zero exit).
    Crashed,
    /// The case gave no answer within the watchdog's time; its worker was stopped.
    Hung,
    /// The driver returned `VK_ERROR_DEVICE_LOST`; the device was opened again for the next case.
    DeviceLost,
    /// A second Ctrl-C or SIGTERM stopped it before it finished.
    Interrupted,
    /// Any other error (an implausible GPU time, a Vulkan call that failed).
    Error,
}

impl Failure {
    /// The status word: `differs`, `crashed`, `hung`, `device lost`, `interrupted`, `failed`.
    pub fn word(self) -> &'static str {
        match self {
            Failure::Differs => "differs",
            Failure::Crashed => "crashed",
            Failure::Hung => "hung",
            Failure::DeviceLost => "device lost",
            Failure::Interrupted => "interrupted",
            Failure::Error => "failed",
        }
    }
}

/// What a timed case's count (the runner scales it to the target time) counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    /// Workgroups per dispatch.
    Workgroups,
    /// Repeats of one workgroup's work ([`crate::registry::Scale::PushWord`]).
    Repeats,
    /// Copies, made by the driver's transfer path rather than by shaders on the compute units.
    Copies,
    /// Dispatches in one command buffer ([`crate::registry::Scale::Dispatches`], and whole
    /// problems, [`crate::registry::Scale::Problem`]).
    Dispatches,
    /// Submissions, each waited for ([`crate::registry::Scale::Submissions`]).
    Submissions,
}

impl Counted {
    /// Every kind of count.
    pub const ALL: [Counted; 5] =
        [Counted::Workgroups, Counted::Repeats, Counted::Copies, Counted::Dispatches, Counted::Submissions];
}

impl std::fmt::Display for Counted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Counted::Workgroups => "workgroups",
            Counted::Repeats => "repeats of one workgroup",
            Counted::Copies => "copies",
            Counted::Dispatches => "dispatches",
            Counted::Submissions => "submissions",
        })
    }
}

/// The amount of the first work unit that the time in a ratio line is for: 2^32 loads.
pub const TIME_FOR: f64 = 4_294_967_296.0;

impl Outcome {
    /// For a timed case whose measurements take longer than a submission should (above
    /// [`super::measurement::MAX_SUBMIT_MS`]) even at the smallest dispatch (nothing is left to
    /// shrink): its milliseconds per measurement, and how many of what it dispatched.
    pub fn over_submission_cap(&self) -> Option<(f64, u64, Counted)> {
        let Outcome::Timed { measurement, counted, .. } = self else { return None };
        let ms = measurement.summary.median;
        (ms > super::measurement::MAX_SUBMIT_MS).then_some((ms, measurement.groups, *counted))
    }

    /// The rate of each work unit (per second), for timed outcomes; empty otherwise.
    pub fn rates(&self) -> Vec<(f64, Work)> {
        match self {
            Outcome::Timed { measurement, work, .. } => {
                let seconds = measurement.summary.median / 1e3;
                work.iter().map(|(amount, w)| (amount / seconds, *w)).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The rate of the case's first work unit (per second), for timed outcomes.
    pub fn rate(&self) -> Option<f64> {
        self.rates().first().map(|(rate, _)| *rate)
    }
}
