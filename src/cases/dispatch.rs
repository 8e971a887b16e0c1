//! The cost of a dispatch (vkpeak #4 asks for it): how many near-empty dispatches one command
//! buffer runs per second, one after another or with a compute barrier between two, recorded
//! with `vkCmdDispatch` or `vkCmdDispatchIndirect`.
//!
//! A dispatch is one workgroup whose first invocation adds 1 to a counter (glsl/dispatch.glsl).
//! The runner records more dispatches, not more workgroups, to reach its target time
//! ([`Scale::Dispatches`]); the rate is dispatches per second, and its inverse the time the GPU's
//! front end and the launch take per dispatch. A verify run records 64 dispatches the same way
//! and checks that the counter reads 64. `Submit round trip` submits one dispatch per command
//! buffer and waits for each (CPU-timed, submit to fence): its note gives the median and 99th
//! percentile round trip.

use crate::registry::VERIFY_DISPATCHES;
use crate::registry::{self, CaseSpec, Env, Family, Glsl, Reset, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "dispatch.glsl", source: include_str!("../../glsl/dispatch.glsl") };

/// The dispatch variants, in run order: (name, barrier between two dispatches, indirect).
const VARIANTS: [(&str, bool, bool); 4] = [
    ("Dispatch direct", false, false),
    ("Dispatch direct, barrier between", true, false),
    ("Dispatch indirect", false, true),
    ("Dispatch indirect, barrier between", true, true),
];

/// A case of glsl/dispatch.glsl whose counter a verify run expects at 64.
fn counting(env: &Env, name: &str) -> CaseSpec {
    let width = env.workgroup_width(64);
    let counter = Resource::zeroed_storage_buffer(16).read_write().reset(Reset::Fill(0));
    CaseSpec::new(name, GLSL, [width, 1, 1])
        .group("dispatch")
        .resource(counter)
        .checks(0)
        .reference(|word| Value::U32(if word == 0 { VERIFY_DISPATCHES as u32 } else { 0 }))
}

fn case(env: &Env, name: &str, barrier: bool, indirect: bool) -> CaseSpec {
    counting(env, name)
        .label("barrier", if barrier { "yes" } else { "no" })
        .label("call", if indirect { "indirect" } else { "direct" })
        .scale_by_dispatches(barrier, indirect)
        .work([Work::new(1.0, Unit::Dispatch)])
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let mut cases: Vec<CaseSpec> =
        VARIANTS.iter().map(|&(name, barrier, indirect)| case(env, name, barrier, indirect)).collect();
    // One dispatch per submission, each waited for: what a frame's or a step's submit costs.
    cases.push(
        counting(env, "Submit round trip").scale_by_submissions().work([Work::new(1.0, Unit::Submission)]),
    );
    cases
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "what a dispatch costs: near-empty dispatches per second in one command buffer, \
                       direct or indirect, back to back or with a compute barrier between two; and the \
                       round trip of one small submission, CPU-timed from submit to fence",
            invocation: "one workgroup per dispatch; its first invocation adds 1 to a counter; the runner \
                         records more dispatches (not more workgroups) to fill its target time, or makes \
                         more submissions of one dispatch, each waited for",
            rate: "dispatches per second, with the nanoseconds each takes (and clocks where the clock is \
                   known)",
        },
        name: "dispatch",
        order: 360,
        axes: &[],
        ratio_note: None,
        levels: false,
        device_cases: false,
        quick: &["Dispatch direct", "Dispatch indirect"],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Scale;

    #[test]
    fn each_case_scales_by_dispatches_or_submissions_and_checks_the_counter() {
        let family = registry::families().into_iter().find(|f| f.name == "dispatch").unwrap();
        let env = Env { family, settings: &[], device: None };
        let cases = expand(&env);
        let scales: Vec<(&str, Scale)> = cases.iter().map(|c| (c.name.as_str(), c.scale)).collect();
        assert_eq!(
            scales,
            [
                ("Dispatch direct", Scale::Dispatches { barrier: false, indirect: false }),
                ("Dispatch direct, barrier between", Scale::Dispatches { barrier: true, indirect: false }),
                ("Dispatch indirect", Scale::Dispatches { barrier: false, indirect: true }),
                ("Dispatch indirect, barrier between", Scale::Dispatches { barrier: true, indirect: true }),
                ("Submit round trip", Scale::Submissions),
            ]
        );
        let reference = cases[0].reference.clone().unwrap();
        assert_eq!((reference(0), reference(1)), (Value::U32(64), Value::U32(0)));
        assert!(cases.iter().all(|c| c.checks == Some(0) && c.validate().is_ok()));
        assert_eq!(cases[4].work[0].unit, Unit::Submission);
    }
}
