//! The corruption screen's atomics: adds of known words into counters whose totals are known,
//! in shared memory and in device memory (glsl/sdc_atomic.glsl).
//!
//! In each of a workgroup's cycles every invocation adds [`ROUNDS`] words to the workgroup's
//! counters, a counter taking adds from several subgroups at once; then each counter is read,
//! reset and compared with its known total. The words are linear in the invocation and the round
//! (wrapping), so the shader has every counter's total in closed form (the same for each: over
//! the rounds each counter takes the adds of every invocation residue alike); the CPU's
//! reference sums it add by add. Any flipped bit in an add, a lost add or one counted twice moves a total: the sum
//! modulo 2^32 of the others cannot undo it. The device counters are each workgroup's own words,
//! so the grid is one fixed problem (as many workgroups as [`GROUPS_PER_UNIT`] per compute unit).

use super::{mix32, not_understood, Flip, GROUP, GROUP_UNITS};
use crate::caps::{Feature, Requirements};
use crate::record::faults::{LOG_BYTES, RECORDS};
use crate::registry::{CaseSpec, Glsl, Push, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "sdc_atomic.glsl", source: include_str!("../../../glsl/sdc_atomic.glsl") };

/// Adds per invocation per cycle, and cycles per dispatch.
const ROUNDS: u32 = 256;
const CYCLES: u32 = 2;
/// Counters per workgroup (fewer where a workgroup has fewer invocations).
const COUNTERS: u32 = 32;
/// Workgroups per compute unit, and where the device does not say how many units.
const GROUPS_PER_UNIT: u32 = 16;
const GROUPS_UNKNOWN: u32 = 64;
/// Mixed into every workgroup's words.
const SEED: u32 = 0xA70_31C5;
/// The words' multipliers (glsl/sdc_atomic.glsl's A and B) and each cycle's step of the salt.
const A: u32 = 0x9E37_79B1;
const B: u32 = 0x85EB_CA77;
const CYCLE_STEP: u32 = 0x632B_E5AB;

/// Where the counters live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    Shared,
    Device,
}

impl Place {
    pub(super) const ALL: [Place; 2] = [Place::Shared, Place::Device];

    fn name(self) -> &'static str {
        match self {
            Place::Shared => "SDC shared-memory atomic adds, known totals",
            Place::Device => "SDC device-memory atomic adds, known totals",
        }
    }
}

/// Cycle `cycle`'s salt for workgroup `group`.
fn salt(group: u32, cycle: u32) -> u32 {
    mix32(group ^ SEED).wrapping_add(cycle.wrapping_mul(CYCLE_STEP))
}

/// Counter `c`'s total after a cycle salted `salt` in workgroups of `width` with `counters`
/// counters, add by add.
fn total(c: u32, salt: u32, width: u32, counters: u32) -> u32 {
    let mut sum = 0u32;
    for k in 0..ROUNDS {
        for t in (0..width).filter(|t| (t + k) % counters == c) {
            sum = sum.wrapping_add(t.wrapping_mul(A).wrapping_add(k.wrapping_mul(B)).wrapping_add(salt));
        }
    }
    sum
}

/// What invocation `gid` writes in a verify run: the total its counter reached in the last cycle.
fn reference(gid: u32, width: u32, counters: u32) -> Value {
    let (group, t) = (gid / width, gid % width);
    Value::U32(total(t % counters, salt(group, CYCLES - 1), width, counters))
}

/// The atomics with counters in `place`, in workgroups of `width` on a device of `units` compute
/// units (where it says); `sm_id` where the device names each unit.
pub(super) fn case(
    place: Place,
    width: u32,
    units: Option<u32>,
    sm_id: bool,
    inject: Option<&Result<Flip, String>>,
    checked: bool,
) -> CaseSpec {
    let counters = COUNTERS.min(width);
    let groups = units.map_or(GROUPS_UNKNOWN, |u| u.saturating_mul(GROUPS_PER_UNIT).clamp(1, 65_535));
    let mut requires = Requirements::new();
    if sm_id {
        requires = requires.feature(Feature::ShaderSmBuiltins);
    }
    let (records, rounds, cycles, counter_text) =
        (RECORDS.to_string(), ROUNDS.to_string(), format!("{CYCLES}u"), format!("{counters}u"));
    let mut case = CaseSpec::new(place.name(), GLSL, [width, 1, 1])
        .narrowed_from(GROUP.into())
        .defines([
            ("RECORDS", records.as_str()),
            ("ROUNDS", rounds.as_str()),
            ("CYCLES", cycles.as_str()),
            ("COUNTERS", counter_text.as_str()),
        ])
        .defines(sm_id.then_some(("SM_ID", "1")))
        .defines((place == Place::Device).then_some(("DEVICE", "1")))
        .defines((!checked).then_some(("UNCHECKED", "1")))
        .resource(Resource::zeroed_storage_buffer(LOG_BYTES).read_write());
    if place == Place::Device {
        case = case.resource(
            Resource::zeroed_storage_buffer(u64::from(groups) * u64::from(counters) * 4).read_write(),
        );
    }
    let case = case
        .push(Push::words(&[SEED, 0, 0, 0]))
        // A problem's work: every add of every invocation of the grid.
        .work([Work::new(f64::from(groups) * f64::from(width) * f64::from(ROUNDS * CYCLES), Unit::Op)])
        .requires(requires)
        .scale_by_problem(groups)
        // What is checked is every add: each moves a total that is compared.
        .logs_faults(0, u64::from(ROUNDS * CYCLES))
        .reference(move |gid| reference(gid, width, counters));
    let case = if checked { case } else { case.note("checking compiled out (PERFTEST_SDC_CHECK=off)") };
    match inject {
        None => case,
        Some(Err(why)) => not_understood(case, why),
        Some(Ok(flip)) => {
            let target = if sm_id {
                format!("unit {}", flip.unit)
            } else {
                format!(
                    "the workgroups whose index modulo {GROUP_UNITS} is {} (no unit ids on this device)",
                    flip.unit
                )
            };
            let (unit, bit) = (format!("{}u", flip.unit), flip.bit.to_string());
            case.defines([("INJECT", "1"), ("INJECT_UNIT", unit.as_str()), ("INJECT_BIT", bit.as_str())])
                .injected(format!("bit {} of each cycle's first atomic add flipped on {target}", flip.bit))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shader's closed form (glsl/sdc_atomic.glsl's `total`): every counter's total.
    fn closed_form(salt: u32, width: u32, counters: u32) -> u32 {
        let sharers = width / counters;
        let residues = sharers * (ROUNDS / counters) * (counters * (counters - 1) / 2);
        let spread = ROUNDS * counters * (sharers * (sharers - 1) / 2);
        let rounds = B.wrapping_mul(ROUNDS * (ROUNDS - 1) / 2).wrapping_add(ROUNDS.wrapping_mul(salt));
        A.wrapping_mul(residues.wrapping_add(spread)).wrapping_add(sharers.wrapping_mul(rounds))
    }

    #[test]
    fn the_closed_form_the_shader_checks_with_is_the_sum_add_by_add() {
        // Every counter's total is the same: the rounds are a multiple of the counters.
        for (width, counters) in [(256, 32), (128, 32), (32, 32), (64, 16), (16, 16)] {
            assert_eq!(ROUNDS % counters, 0);
            for c in [0, 1, counters - 1] {
                for s in [0, 7, salt(3, 2)] {
                    assert_eq!(closed_form(s, width, counters), total(c, s, width, counters), "{width} {c}");
                }
            }
        }
    }

    #[test]
    fn one_flipped_bit_in_one_add_moves_the_total() {
        let (width, counters, s) = (256, 32, salt(5, 0));
        let clean = total(3, s, width, counters);
        // Invocation 3's round-0 word goes to counter 3.
        let word = 3u32.wrapping_mul(A).wrapping_add(s);
        for bit in 0..32 {
            let flipped = clean.wrapping_sub(word).wrapping_add(word ^ 1 << bit);
            assert_ne!(flipped, clean, "bit {bit}");
        }
        assert_ne!(reference(0, width, counters), reference(width, width, counters), "workgroups differ");
    }

    #[test]
    fn the_cases_and_their_injector() {
        for place in Place::ALL {
            let case = case(place, GROUP, Some(132), true, Some(&Ok(Flip { unit: 4, bit: 9 })), true);
            case.validate().unwrap();
            assert!(case.injected.as_deref().is_some_and(|i| i.contains("unit 4")), "{:?}", case.injected);
            assert_eq!(case.scale, crate::registry::Scale::Problem { groups: 132 * GROUPS_PER_UNIT });
        }
        // The device's counters: 32 words for each of the grid's workgroups.
        let device = case(Place::Device, GROUP, None, false, None, false);
        assert_eq!(device.resources.len(), 2);
        assert!(device.defines.iter().any(|(k, _)| k == "UNCHECKED"));
    }
}
