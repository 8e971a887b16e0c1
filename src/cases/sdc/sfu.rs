//! The corruption screen's transcendental chains: `sin`, `exp2`, `log2` and `inversesqrt` in
//! turn, each result's bits folded into the chain's state (glsl/sdc_sfu.glsl).
//!
//! These operations approximate, each GPU and driver its own way, so no CPU knows their bits. The
//! known answer is the GPU's own: the case's first pass keeps every invocation's folded ends, and
//! each later pass is compared with them bit for bit (a unit that fails now and then shows); the
//! first pass also sums a fingerprint of all of them, which every GPU of one model and driver
//! shares, so `perftest fleet` and a reference find a GPU whose bits differ from its siblings'
//! (a unit wrong every time). A verify run checks the four operations of each invocation's first
//! step against the CPU, within the approximations' error.

use super::{mix32, GROUP};
use crate::caps::{Feature, Requirements};
use crate::record::faults::{LOG_BYTES, RECORDS};
use crate::registry::{CaseSpec, FaultLog, Glsl, Push, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "sdc_sfu.glsl", source: include_str!("../../../glsl/sdc_sfu.glsl") };

/// Chains per invocation, and steps of four operations in each.
const CHAINS: u32 = 4;
const STEPS: u32 = 16;
/// Workgroups of the grid per compute unit (every pass computes the same chains, so each has its
/// answer), and where the device does not say how many units: one grid for a model, so one
/// fingerprint.
const GROUPS_PER_UNIT: u32 = 64;
const GROUPS_UNKNOWN: u32 = 64;
/// Mixed into every chain's start.
const SEED: u32 = 0x51F0_5EED;
/// How far a verify run's sum of the four operations may be from the CPU's: the approximations'
/// error (NVIDIA's `sin` is within 2^-21 absolute, `exp2` and `log2` a few ulps), with room.
const BOUND: f64 = 1e-3;

/// Chain state `s` as the operations' argument, in [1, 2).
fn x_of(s: u32) -> f32 {
    f32::from_bits(0x3F80_0000 | (s >> 9))
}

/// What invocation `gid` writes in a verify run: the four operations of its first chain's first
/// argument, summed.
fn reference(gid: u32) -> Value {
    let x = f64::from(x_of(mix32(gid.wrapping_mul(CHAINS).wrapping_add(SEED))));
    let sum = x.sin() + x.exp2() + x.log2() + 1.0 / x.sqrt();
    Value::F32Within { value: sum as f32, bound: BOUND as f32 }
}

/// The transcendental chains in workgroups of `width` on a device of `units` compute units (where
/// it says); `sm_id` where the device names each unit.
pub(super) fn case(width: u32, units: Option<u32>, sm_id: bool) -> CaseSpec {
    let groups = units.map_or(GROUPS_UNKNOWN, |u| u.saturating_mul(GROUPS_PER_UNIT).clamp(1, 65_535));
    let invocations = u64::from(groups) * u64::from(width);
    let mut requires = Requirements::new();
    if sm_id {
        requires = requires.feature(Feature::ShaderSmBuiltins);
    }
    let (records, chains, steps) = (RECORDS.to_string(), format!("{CHAINS}u"), format!("{STEPS}u"));
    let mut case =
        CaseSpec::new("SDC transcendental chains (sin, exp2, log2, inversesqrt)", GLSL, [width, 1, 1])
            .narrowed_from(GROUP.into())
            .defines([("RECORDS", records.as_str()), ("CHAINS", chains.as_str()), ("STEPS", steps.as_str())])
            .defines(sm_id.then_some(("SM_ID", "1")))
            .resource(Resource::zeroed_storage_buffer(invocations * 4).read_write())
            .resource(Resource::zeroed_storage_buffer(LOG_BYTES).read_write())
            .resource(Resource::zeroed_storage_buffer(u64::from(groups) * 4).read_write())
            .push(Push::words(&[SEED, 0, 0, 0]))
            .work([Work::new((invocations * u64::from(CHAINS * STEPS * 4)) as f64, Unit::Op)])
            .requires(requires)
            .scale_by_problem(groups)
            .reference(reference);
    // One folded answer an invocation; the first pass keeps them and checks nothing.
    case.fault_log =
        Some(FaultLog { resource: 1, per_invocation: 1, unchecked_passes: 1, fingerprint: true });
    case
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_argument_is_in_one_binade_and_the_reference_sums_four_operations() {
        assert_eq!(x_of(0), 1.0);
        assert!(x_of(u32::MAX) < 2.0 && x_of(u32::MAX) > 1.999);
        let Value::F32Within { value, bound } = reference(0) else { panic!() };
        let x = f64::from(x_of(mix32(SEED)));
        assert!((f64::from(value) - (x.sin() + x.exp2() + x.log2() + x.powf(-0.5))).abs() < 1e-6);
        assert_eq!(bound, 1e-3);
    }

    #[test]
    fn the_case_keeps_answers_and_a_fingerprint() {
        let case = case(GROUP, None, false);
        let log = case.fault_log.unwrap();
        assert!(log.fingerprint && log.unchecked_passes == 1 && log.resource == 1);
        assert_eq!(case.scale, crate::registry::Scale::Problem { groups: GROUPS_UNKNOWN });
        case.validate().unwrap();
        // 64 workgroups for each of an H100's 132 SMs.
        let h100 = super::case(GROUP, Some(132), true);
        assert_eq!(h100.scale, crate::registry::Scale::Problem { groups: 8448 });
    }
}
