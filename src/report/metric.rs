//! What a chart shows of each case, and reads of it: its headline rate or its ratio.

use crate::results::model::CaseResult;

/// What the charts show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Metric {
    /// Each case's headline rate (loads/s, FLOPS, ...).
    Rate,
    /// Each case's ratio to its baseline.
    Ratio,
}

/// What `metric` reads of `case`: its headline rate or its ratio (what the charts show
/// and [`super::spread`] ranks runs by).
pub fn value(case: &CaseResult, metric: Metric) -> Option<f64> {
    match metric {
        Metric::Rate => case.rate.as_ref().map(|a| a.value),
        Metric::Ratio => case.ratio,
    }
}
