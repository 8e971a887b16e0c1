//! The slow SM: every compute unit's own rate of the same work (issue 39).
//!
//! A fixed grid of 2048 invocations per compute unit (the H100's most: 8 workgroups of 256) does
//! the same work in each workgroup: fp32 FMAs, loads of a 16 KiB buffer the L1 holds, or loads
//! of a 16 KiB shared-memory tile (glsl/units.glsl). Invocation 0 of each workgroup records the
//! unit that ran it (`gl_SMIDNV`, VK_NV_shader_sm_builtins) and the unit's clock before and
//! after; the runner reads the last timed dispatch's records and gives each unit the work of its
//! workgroups over the span of its own clock ([`crate::record::units`]). The dispatch is one
//! whole grid, repeated to the target time ([`crate::registry::Scale::Problem`]).
//!
//! Elsewhere the family is skipped with the reason: Arm's `gl_CoreIDARM` (VK_ARM_shader_core_builtins)
//! would serve as well, but perftest has no Arm device to prove it on yet.

use crate::caps::{Ceiling, Feature, Requirements};
use crate::registry::{self, CaseSpec, Env, Family, Glsl, Push, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "units.glsl", source: include_str!("../../glsl/units.glsl") };

/// Invocations per compute unit (the H100's most), and per workgroup where the device allows.
const PER_UNIT: u32 = 2048;
const GROUP: u32 = 256;
/// Compute units assumed where the device is not known (`--list`).
const UNITS: u32 = 132;
/// Words of the L1 buffer and of the shared tile (16 KiB).
const WORDS: u32 = 4096;
/// Words a workgroup's record takes.
const RECORD_WORDS: u32 = crate::record::units::RECORD_WORDS as u32;

/// One kind of work.
struct Kind {
    name: &'static str,
    define: &'static str,
    /// Loop trips of a timed dispatch: about a millisecond on an H100.
    trips: u32,
    /// What one invocation does per trip, and in what unit.
    per_trip: f64,
    unit: Unit,
    ceiling: Option<Ceiling>,
}

const KINDS: [Kind; 3] = [
    Kind {
        name: "Units fp32 FMA",
        define: "KIND_FMA",
        trips: 1024,
        per_trip: 2.0 * 8.0 * 16.0,
        unit: Unit::Flop,
        ceiling: Some(Ceiling::Fp32Fma),
    },
    Kind {
        name: "Units L1 load",
        define: "KIND_L1",
        trips: 256,
        per_trip: 8.0 * 16.0,
        unit: Unit::Load,
        ceiling: None,
    },
    Kind {
        name: "Units shared-memory load",
        define: "KIND_SHARED",
        trips: 256,
        per_trip: 8.0 * 16.0,
        unit: Unit::Load,
        ceiling: None,
    },
];

/// What invocation `gid` writes after one trip (a verify run), with the verify constants
/// (`fma(x, 1, 1)`; the L1 buffer's and the tile's word `i` is `i`).
fn reference(define: &str, gid: u32, width: u32) -> Value {
    match define {
        "KIND_FMA" => {
            // Chains x0 + k, each + 16: 8 x0 + 28 + 8 x 16, exact in f32.
            let x0 = (gid & 15) as f32;
            Value::F32(8.0 * x0 + 28.0 + 128.0)
        }
        _ => {
            let local = gid % width;
            let mut at = local + (gid & 31);
            let mut sum = 0u32;
            for _ in 0..16 {
                for k in 0..8u32 {
                    sum = sum.wrapping_add((at + k * 257) & (WORDS - 1));
                }
                at += 8 * 257;
            }
            Value::U32(sum)
        }
    }
}

/// `kind`'s case on a device of `units` compute units and workgroups of `width` (256 where the
/// device allows them: 8 a unit).
fn case(kind: &'static Kind, units: u32, width: u32) -> CaseSpec {
    let groups = units * (PER_UNIT / width);
    let records = Resource::zeroed_storage_buffer(u64::from(groups * RECORD_WORDS) * 4).read_write();
    let push = Push::per_mode(
        &[kind.trips, 1.0f32.to_bits(), 0.5f32.to_bits(), WORDS - 1],
        &[1, 1.0f32.to_bits(), 1.0f32.to_bits(), WORDS - 1],
    );
    // Work is counted per dispatch of the whole grid (Scale::Problem).
    let per_dispatch = kind.per_trip * f64::from(kind.trips) * f64::from(groups * width);
    let work = Work::new(per_dispatch, kind.unit);
    let work = kind.ceiling.map_or(work, |c| work.bounded_by(c));
    let requires =
        Requirements::new().feature(Feature::ShaderSmBuiltins).feature(Feature::ShaderSubgroupClock);
    let mut case = CaseSpec::new(kind.name, GLSL, [width, 1, 1])
        .narrowed_from(GROUP.into())
        .group("units")
        .defines([(kind.define, "1")])
        .requires(requires)
        .resource(records)
        .push(push)
        .work([work])
        .scale_by_problem(groups)
        .records_per_unit(0);
    if kind.define == "KIND_L1" {
        let data = Resource::storage_buffer(u64::from(WORDS) * 4, |b| {
            b.chunks_exact_mut(4).enumerate().for_each(|(i, w)| w.copy_from_slice(&(i as u32).to_ne_bytes()))
        });
        case = case.resource(data);
    }
    let define = kind.define;
    case.reference(move |gid| reference(define, gid, width))
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let units = env.device.and_then(|d| d.compute_units).unwrap_or(UNITS);
    let width = env.workgroup_width(GROUP);
    KINDS.iter().map(|kind| case(kind, units, width)).collect()
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "every compute unit's own rate of the same work (fp32 FMAs, L1 loads, shared-memory \
                       loads), to find a slow SM: the slowest and fastest units against the median",
            invocation: "a fixed grid of 8 workgroups of 256 per compute unit, each the same loop; invocation 0 \
                         of each records its unit (gl_SMIDNV) and the unit's clock around the work",
            rate: "the whole GPU's rate per second and per clock per unit, and each unit's own rate per its \
                   own clock (in the JSON's `units` and the summary's units lines)",
        },
        name: "units",
        order: 970,
        axes: &[],
        ratio_note: None,
        levels: false,
        device_cases: false,
        quick: &["Units fp32 FMA"],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_l1_reference_sums_the_words_the_shader_loads() {
        // Invocation 0: at = 0; step s loads (s x 8 x 257 + k x 257) & 4095 for k in 0..8.
        let expected: u32 = (0..128u32).map(|n| (n * 257) & 4095).sum();
        assert_eq!(reference("KIND_L1", 0, GROUP), Value::U32(expected));
        assert_eq!(reference("KIND_FMA", 17, GROUP), Value::F32(8.0 + 28.0 + 128.0));
    }

    #[test]
    fn the_grid_is_eight_workgroups_a_unit_with_a_record_each() {
        let case = case(&KINDS[0], 132, GROUP);
        assert_eq!(case.scale, crate::registry::Scale::Problem { groups: 1056 });
        assert_eq!(case.unit_records, Some(0));
        assert!(case.requirements().features.contains(&Feature::ShaderSmBuiltins));
    }
}
