//! The one way a GPU test opens a device under the validation layer, runs cases on it, and ends:
//! dropping everything, then failing on any message the layer gave.

use perftest::record::outcome::Outcome;
use perftest::registry::{self, CaseSpec, Selection};
use perftest::runner::assemble::Finished;
use perftest::runner::open::{check_validation, context_for, open};
use perftest::runner::run::{prepare, run_cases, RunSettings};
use perftest::vk::context::{Adapter, ContextOptions};
use perftest::vk::debug::Sink;
use perftest::vk::Context;

/// A device opened for a test, with the cases it is to run.
pub struct Gpu {
    /// The device.
    pub ctx: Context,
    /// The cases, in run order.
    pub cases: Vec<CaseSpec>,
    sink: Sink,
}

impl Gpu {
    /// The device, with the cases `selection` keeps of the families expanded by `axes` on it.
    pub fn open(axes: &[&str], selection: Selection) -> Self {
        let options = ContextOptions { validation: true, ..Default::default() };
        let axes: Vec<registry::AxisSetting> =
            axes.iter().map(|a| registry::parse_setting(a).unwrap()).collect();
        let (ctx, cases) = open(&options, &axes, &selection).unwrap_or_else(|e| panic!("{e}"));
        let sink = ctx.validation_sink();
        Gpu { ctx, cases, sink }
    }

    /// The device, with `cases` made by the test itself.
    pub fn with_cases(cases: Vec<CaseSpec>) -> Self {
        let options = ContextOptions { validation: true, ..Default::default() };
        let adapter = Adapter::open(&options).unwrap_or_else(|e| panic!("{e}"));
        let ctx = context_for(adapter, &cases).unwrap_or_else(|e| panic!("{e}"));
        let sink = ctx.validation_sink();
        Gpu { ctx, cases, sink }
    }

    /// Builds every case's pipeline and runs every case as `settings` say, handing each to
    /// `on_done` as it finishes; one result per case, in order.
    pub fn run(&self, settings: &RunSettings, on_done: impl FnMut(Finished<'_>)) -> Vec<(String, Outcome)> {
        let prepared =
            prepare(&self.ctx, &self.cases, 2, !settings.verify, false).unwrap_or_else(|e| panic!("{e}"));
        let results =
            run_cases(&self.ctx, &self.cases, &prepared, settings, on_done).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(results.len(), self.cases.len(), "a result per case");
        results
    }

    /// Drops the device and fails on any validation message.
    pub fn close(self) {
        let Gpu { ctx, sink, .. } = self;
        drop(ctx);
        check_validation(&sink).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The cases of `family` whose names contain `filter`.
pub fn of(family: &str, filter: &str) -> Selection {
    Selection { families: vec![family.to_owned()], filter: Some(filter.to_owned()), ..Default::default() }
}
