//! Opening a device row for a run: the cases the selection keeps of the families expanded with
//! the row's facts, the features, formats and queues they need, and the device created with
//! them. The parent plans with [`plan`] (no device created), the worker opens with [`open`]; both
//! select alike. The validation layer's messages are read with [`check_validation`].

use crate::caps::{DeviceInfo, Feature, QueueKind, Requirements};
use crate::error::{Error, Result};
use crate::registry::{self, CaseSpec, Selection};
use crate::vk::context::{Adapter, ContextOptions};
use crate::vk::debug::{drain, Sink};
use crate::vk::Context;

/// Fails if the validation layer said anything (read after every Vulkan object is destroyed,
/// so leaks reported at vkDestroyDevice count too).
pub fn check_validation(sink: &Sink) -> Result<()> {
    let messages = drain(sink);
    if messages.is_empty() {
        Ok(())
    } else {
        Err(Error::Validation { messages })
    }
}

/// The features each of `cases` needs, as one group per case, and the driver's shader statistics
/// and the shader clock as groups of their own (enabled where offered: the statistics are kept
/// in the results, the clock probe reads the clock); and the formats whose properties to query.
/// A group is enabled only if the device offers all of its features, so a case that lacks one
/// enables none (the Vulkan memory model that cooperative matrices need would otherwise change
/// the rules for every other shader). Groups hold features only: a case whose features are all
/// offered but whose shape or limit is not still enables them (harmless so far). Last, the kinds
/// of queue family the cases copy on ([`Requirements::queue`]): the device gets a queue of each
/// beside the run's, and none for a run without such copies.
pub fn needs(cases: &[CaseSpec]) -> (Vec<Vec<Feature>>, Vec<ash::vk::Format>, Vec<QueueKind>) {
    let mut all = Requirements::new();
    let mut groups: Vec<Vec<Feature>> = Vec::new();
    let mut queues: Vec<QueueKind> = Vec::new();
    for case in cases {
        let needs = case.requirements();
        let group: Vec<Feature> = needs.features.iter().copied().collect();
        if !group.is_empty() && !groups.contains(&group) {
            groups.push(group);
        }
        if let Some(kind) = needs.queue.filter(|kind| !queues.contains(kind)) {
            queues.push(kind);
        }
        all.union(&needs);
    }
    groups.push(vec![Feature::PipelineExecutableInfo]);
    groups.push(vec![Feature::ShaderSubgroupClock]);
    groups.push(vec![Feature::ShaderDeviceClock]);
    (groups, all.format_list(), queues)
}

/// Creates the device of `adapter` with what `cases` need.
pub fn context_for(adapter: Adapter, cases: &[CaseSpec]) -> Result<Context> {
    let (features, formats, queues) = needs(cases);
    Context::new(adapter, &features, &formats, &queues)
}

/// Opens the row `options` name, expands the families with its facts, keeps the cases `filter`
/// and `skip` select, and creates the device with what they need.
pub fn open(
    options: &ContextOptions,
    axes: &[registry::AxisSetting],
    selection: &Selection,
) -> Result<(Context, Vec<CaseSpec>)> {
    let adapter = Adapter::open(options)?;
    let (_, cases) = select(&adapter, axes, selection)?;
    Ok((context_for(adapter, &cases)?, cases))
}

/// The row's header facts and the cases `selection` keeps of the families expanded with its
/// facts: one selection for the parent ([`plan`]) and its worker ([`open`]), which must agree.
fn select(
    adapter: &Adapter,
    axes: &[registry::AxisSetting],
    selection: &Selection,
) -> Result<(DeviceInfo, Vec<CaseSpec>)> {
    let (info, facts) = adapter.describe(&[]);
    Ok((info, selection.apply(registry::expand(axes, Some(&facts)))?))
}

/// The device row's facts and the cases the selection keeps on it, read without creating a device
/// (the parent of a worker never does: a driver that crashes takes the worker, not the run).
pub fn plan(
    options: &ContextOptions,
    axes: &[registry::AxisSetting],
    selection: &Selection,
) -> Result<(DeviceInfo, Vec<CaseSpec>)> {
    let adapter = Adapter::open(options)?;
    let sink = adapter.validation_sink();
    let selected = select(&adapter, axes, selection);
    drop(adapter);
    check_validation(&sink)?;
    selected
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_queues_are_asked_for_only_by_cases_that_copy_on_them() {
        let family = |name| {
            let family = registry::families().into_iter().find(|f| f.name == name).unwrap();
            (family.expand)(&registry::Env { family, settings: &[], device: None })
        };
        let (_, _, queues) = needs(&family("load"));
        assert!(queues.is_empty(), "{queues:?}");
        let (_, _, queues) = needs(&family("copy"));
        assert_eq!(queues.len(), QueueKind::ALL.len(), "{queues:?}");
        assert!(QueueKind::ALL.iter().all(|kind| queues.contains(kind)));
    }
}
