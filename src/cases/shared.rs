//! Shared memory: load bandwidth of float, vec2 and vec4, bank conflicts over a stride sweep, and latency.
//!
//! Each workgroup fills 16 KiB of shared memory, then each invocation sums 512 loads of element
//! `(t * stride + i) & mask` (glsl/shared.glsl). Stride 1 is conflict-free; a stride of s words
//! puts gcd(s, banks) lanes of a subgroup on each bank it touches, so the rate falls by that
//! factor and the strides where it halves show the bank count. The latency case has the
//! workgroup fill shared memory with a random cycle through the 4096 words, then one invocation
//! chases it, repeated as the runner asks (as the latency family does for buffers).

use crate::caps::{Ceiling, Limit, Requirements};
use crate::registry::data::{Data, CONSTANT_WORD};
use crate::registry::{self, Axis, AxisUnit, CaseSpec, Env, Family, Glsl, Push, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "shared.glsl", source: include_str!("../../glsl/shared.glsl") };

/// Shared memory used: 16 KiB, the least Vulkan guarantees (WORDS in the GLSL).
const WORDS: u32 = 4096;
/// Loads per invocation (LOADS in the GLSL).
const LOADS: u32 = 512;
/// Dependent loads per repeat of the chase (CHAIN in the GLSL).
const CHAIN: u32 = 256;
/// Repeats of the chase in a verify run.
const VERIFY_REPEATS: u32 = 4;
/// Invocations per workgroup, where the device allows them (fewer elsewhere).
const GROUP: u32 = 256;

fn value(k: u32) -> f32 {
    (k % 61) as f32
}

/// Word `k` of shared memory on `data` (`value` in glsl/shared.glsl).
fn word(data: Data, k: u32) -> f32 {
    f32::from_bits(registry::data::word(data, k, value))
}

/// What invocation `gid` of a verify run in workgroups of `invocations` on `data` writes: the
/// sum of its loads.
fn reference(components: u32, stride: u32, invocations: u32, data: Data, gid: u32) -> Value {
    let t = gid % invocations;
    let mask = WORDS / components - 1;
    let loaded: Vec<f32> = (0..LOADS)
        .flat_map(|i| {
            let e = (t.wrapping_mul(stride).wrapping_add(i)) & mask;
            (0..components).map(move |c| word(data, e * components + c))
        })
        .collect();
    super::data::loads_sum(data, &loaded)
}

fn needs() -> Requirements {
    Requirements::new().limit(Limit::SharedMemoryBytes(WORDS * 4))
}

/// `Shared float|vec2|vec4` (stride 1) and `Shared float stride N`, on `data`.
fn loads(components: u32, stride: u32, name: String, group: &str, invocations: u32, data: Data) -> CaseSpec {
    let kind = match components {
        1 => "0",
        2 => "1",
        _ => "2",
    };
    let mask = WORDS / components - 1;
    let per_invocation = f64::from(LOADS);
    let case = CaseSpec::new(name, GLSL, [invocations, 1, 1])
        .narrowed_from(GROUP.into())
        .group(group)
        .defines([("KIND", kind)])
        .defines((data != Data::Default).then_some(("DATA", data.define())))
        .defines(
            (data == Data::Constant).then_some(("CONSTANT_WORD", format!("{CONSTANT_WORD:#x}u").as_str())),
        )
        .push(Push::words(&[stride, mask, 0, 0]))
        .work([
            Work::new(per_invocation, Unit::Load),
            Work::new(per_invocation * f64::from(4 * components), Unit::Byte).bounded_by(Ceiling::L1Bytes),
        ])
        .requires(needs())
        .reference(move |gid| reference(components, stride, invocations, data, gid));
    match group {
        "shared stride" => case.axis("stride", u64::from(stride), "Shared float stride"),
        _ => case,
    }
}

fn latency(invocations: u32) -> CaseSpec {
    let chain = super::latency::cycle(WORDS);
    let end = super::latency::chase(&chain, u64::from(VERIFY_REPEATS * CHAIN));
    CaseSpec::new("Shared latency", GLSL, [invocations, 1, 1])
        .narrowed_from(GROUP.into())
        .group("shared latency")
        .defines([("KIND", "3")])
        .resource(Resource::storage_buffer(u64::from(WORDS) * 4, move |bytes| {
            for (word, next) in bytes.chunks_exact_mut(4).zip(&chain) {
                word.copy_from_slice(&next.to_ne_bytes());
            }
        }))
        .push(Push::per_mode(&[0, 0, 1, 0], &[0, 0, VERIFY_REPEATS, 0]))
        .scale_by_push_word(2)
        // One invocation of the workgroup chases: CHAIN loads per repeat, spread over the group.
        .work([Work::new(f64::from(CHAIN) / f64::from(invocations), Unit::DependentLoad)])
        .requires(needs())
        .reference(move |_| Value::U32(end))
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let n = env.workgroup_width(GROUP);
    let mut cases = vec![
        loads(1, 1, "Shared float".into(), "shared", n, Data::Default),
        loads(2, 1, "Shared vec2".into(), "shared", n, Data::Default),
    ];
    // The energy table's case, on each data.
    cases.extend(Data::ALL.map(|data| loads(4, 1, "Shared vec4".into(), "shared", n, data).data(data)));
    for stride in env.axis("stride") {
        let stride = stride as u32;
        cases.push(loads(
            1,
            stride,
            format!("Shared float stride {stride}"),
            "shared stride",
            n,
            Data::Default,
        ));
    }
    cases.push(latency(n));
    cases
}

/// The strides of the bank-conflict sweep, in 32-bit words.
const STRIDE: Axis = Axis {
    name: "stride",
    unit: AxisUnit::Count("words"),
    default: "1:32:1,64",
    max: 4096,
    about: "the distance in 32-bit words between the elements neighbouring invocations read, default \
            1 to 32 and 64",
};

inventory::submit! {
    Family {
        about: registry::About {
            measures: "shared-memory (workgroup) loads: the bandwidth of float, vec2 and vec4, bank conflicts \
                       over a stride sweep, and the latency of one dependent load",
            invocation: "the workgroup fills 16 KiB of shared memory, then each invocation sums 512 loads of \
                         element (t * stride + i), wrapping; the latency case follows a random cycle through \
                         the 4096 words, one invocation alone",
            rate: "loads and bytes per second; for the latency case, nanoseconds (and clocks) per load",
        },
        name: "shared",
        order: 320,
        axes: &[STRIDE],
        ratio_note: None,
        levels: false,
        device_cases: false,
        quick: &["Shared float", "Shared vec4", "Shared float stride 32", "Shared latency"],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stride_one_sums_every_lane_of_its_window() {
        let Value::F32(total) = reference(1, 1, GROUP, Data::Default, 0) else { panic!() };
        let expected: f32 = (0..LOADS).map(value).sum();
        assert_eq!(total, expected);
        let Value::F32(wide) = reference(4, 1, GROUP, Data::Default, 3) else { panic!() };
        let expected: f32 =
            (0..LOADS).map(|i| (0..4).map(|c| value(((3 + i) & 1023) * 4 + c)).sum::<f32>()).sum();
        assert_eq!(wide, expected);
    }
}
