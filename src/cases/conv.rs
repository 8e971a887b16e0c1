//! The texture-cache study (../shared/reference/texture-cache-article.txt) redone on Vulkan: a 1D convolution.
//!
//! `out[i] = sum over k < M of in[i + k] * w[k]`, one output per invocation (glsl/conv.glsl),
//! for masks of M = 3 to 255 taps, in float16 (stored as 16 bits, summed in fp32), float and
//! double, over working sets of 1 to 256 MiB, through four paths:
//! - `plain`: storage buffers with no qualifier (CUDA's plain pointer);
//! - `readonly`: `readonly restrict` storage buffers, the path NVIDIA's compiler may turn into
//!   non-coherent loads through the texture cache (CUDA's `__ldg`, `ld.global.nc`);
//! - `texel`: uniform texel buffers (`texelFetch`), the texture path itself;
//! - `reuse`: the article's "register reuse": the workgroup's window of the input and the mask
//!   loaded once into shared memory, and read from there.
//!
//! Each case's ratio is against the `plain` case of the same type, M and size: the article's
//! figure 5. The output is written to a buffer in every run. Data and weights are small
//! integers, so every sum is exact in each type and `--verify` compares it to the bit.

use crate::caps::{Ceiling, Feature, Limit, Requirements};
use crate::format::format_bytes;
use crate::registry::{
    self, floor_power_of_two, Axis, AxisUnit, CaseSpec, Env, Family, Glsl, Push, Resource, Unit, Value, Work,
};
use ash::vk;

const GLSL: Glsl = Glsl { file: "conv.glsl", source: include_str!("../../glsl/conv.glsl") };

/// Outputs per workgroup, one per invocation, where the device allows 256 invocations (fewer elsewhere).
const GROUP: u64 = 256;
/// The smallest working set: every set holds at least a workgroup's window for the largest mask.
const MIN_BYTES: u64 = 64 << 10;

/// The element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Type {
    Half,
    Float,
    Double,
}

impl Type {
    const ALL: [Type; 3] = [Type::Half, Type::Float, Type::Double];

    fn label(self) -> &'static str {
        match self {
            Type::Half => "half",
            Type::Float => "float",
            Type::Double => "double",
        }
    }

    fn bytes(self) -> u64 {
        match self {
            Type::Half => 2,
            Type::Float => 4,
            Type::Double => 8,
        }
    }

    /// Bytes of the sum and of the shared arrays (float16 is summed in fp32).
    fn sum_bytes(self) -> u64 {
        self.bytes().max(4)
    }

    /// The uniform texel buffer format that holds one element.
    fn texel_format(self) -> vk::Format {
        match self {
            Type::Half => vk::Format::R16_SFLOAT,
            Type::Float => vk::Format::R32_SFLOAT,
            Type::Double => vk::Format::R32G32_UINT,
        }
    }

    fn needs(self) -> Requirements {
        match self {
            // The output is float16_t in a storage buffer on every path.
            Type::Half => Requirements::new().feature(Feature::StorageBuffer16BitAccess),
            Type::Float => Requirements::new(),
            Type::Double => Requirements::new().feature(Feature::ShaderFloat64),
        }
    }

    /// The FMA pipe that bounds the sums (float16 is summed in fp32).
    fn ceiling(self) -> Ceiling {
        match self {
            Type::Half | Type::Float => Ceiling::Fp32Fma,
            Type::Double => Ceiling::Fp64Fma,
        }
    }

    /// `value` as this type's bytes (`value` is a small integer: exact in each type).
    fn encode(self, value: f64, out: &mut [u8]) {
        match self {
            // half_bits takes normal values only: zero is all zero bits.
            Type::Half if value == 0.0 => out.fill(0),
            Type::Half => out.copy_from_slice(&super::data::half_bits(value as f32).to_ne_bytes()),
            Type::Float => out.copy_from_slice(&(value as f32).to_ne_bytes()),
            Type::Double => out.copy_from_slice(&value.to_ne_bytes()),
        }
    }
}

/// How the shader reads the input and the mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    Plain,
    Readonly,
    Texel,
    Reuse,
}

impl Path {
    const ALL: [Path; 4] = [Path::Plain, Path::Readonly, Path::Texel, Path::Reuse];

    fn label(self) -> &'static str {
        match self {
            Path::Plain => "plain",
            Path::Readonly => "readonly",
            Path::Texel => "texel",
            Path::Reuse => "reuse",
        }
    }
}

/// The smallest signal kept on the device from case to case ([`Resource::contents`]).
const KEPT_FROM: u64 = 64 << 20;

/// Input element `e`: 0 to 7 from a hash of its index, so that no two nearby windows sum alike
/// (a periodic signal would make every output of some masks equal, and a misplaced window pass).
fn signal(e: u64) -> f64 {
    f64::from((e as u32).wrapping_mul(0x9E37_79B1) >> 29)
}

/// Mask weight `k`: 1 to 3. The largest sum, 1024 x 7 x 3, is exact in fp32 and fp64.
fn weight(k: u64) -> f64 {
    (1 + k % 3) as f64
}

fn fill(ty: Type, value: fn(u64) -> f64) -> impl Fn(&mut [u8]) + Send + Sync + 'static {
    move |bytes: &mut [u8]| {
        super::data::fill_elements(bytes, ty.bytes() as usize, |e, chunk| ty.encode(value(e as u64), chunk));
    }
}

/// The start the last window (of `group` outputs) moves back to: its reads end at the set's last
/// element.
fn last_first(elements: u64, taps: u64, group: u64) -> u64 {
    elements - group - (taps - 1)
}

/// Where workgroup 0 starts before the move back: the set's last window (`phase` in the GLSL).
fn phase(elements: u64, group: u64) -> u64 {
    elements - group
}

/// What invocation `gid` (in workgroups of `group`) writes: its sum, as a float (every sum is an
/// integer below 2^24).
fn reference(elements: u64, taps: u64, group: u64, gid: u32) -> Value {
    let gid = u64::from(gid);
    let first = ((gid - gid % group + phase(elements, group)) & (elements - 1))
        .min(last_first(elements, taps, group));
    let i = first + gid % group;
    let sum: f64 = (0..taps).map(|k| signal(i + k) * weight(k)).sum();
    Value::F32(sum as f32)
}

/// `Conv1D<TYPE> M=taps PATH SIZE`, in workgroups of `group` invocations.
fn case(ty: Type, path: Path, taps: u64, bytes: u64, group: u64) -> CaseSpec {
    let elements = bytes / ty.bytes();
    let name =
        |path: Path| format!("Conv1D<{}> M={taps} {} {}", ty.label(), path.label(), format_bytes(bytes));
    // A line per path in each size's panel: the variant drops both axis values.
    let variant = format!("Conv1D<{}> {}", ty.label(), path.label());
    let mask_bytes = taps * ty.bytes();
    let (input, mask) = match path {
        Path::Texel => (
            Resource::texel_buffer(ty.texel_format(), bytes, fill(ty, signal)),
            Resource::texel_buffer(ty.texel_format(), mask_bytes, fill(ty, weight)),
        ),
        _ => (
            Resource::storage_buffer(bytes, fill(ty, signal)),
            Resource::storage_buffer(mask_bytes, fill(ty, weight)),
        ),
    };
    // Every case of a type and size reads the same signal and mask: kept from case to case where
    // the upload costs (256 MiB: 80 ms a case on the H200). Not below KEPT_FROM: there the upload
    // costs a few ms, and the rate depends on where the signal lies beside the output in the L2
    // (kept, the 1 and 16 MiB rates moved -3% to +9%, reproducibly: results/half-the-time-3/).
    let (input, mask) = match bytes >= KEPT_FROM {
        true => (
            input.contents(format!("Conv1D<{}> signal", ty.label())),
            mask.contents(format!("Conv1D<{}> weights", ty.label())),
        ),
        false => (input, mask),
    };
    let output = Resource::zeroed_storage_buffer(bytes).read_write();
    let mut needs = ty.needs();
    if path == Path::Reuse {
        let shared = (group + taps - 1 + taps) * ty.sum_bytes();
        needs = needs.limit(Limit::SharedMemoryBytes(shared as u32));
    }
    let (type_define, path_define, max_taps) =
        ((ty as u8).to_string(), (path as u8).to_string(), taps.to_string());
    let case = CaseSpec::new(name(path), GLSL, [group as u32, 1, 1])
        .narrowed_from(GROUP)
        .group(format!("conv {} {}", ty.label(), format_bytes(bytes)))
        .label("type", ty.label())
        .label("path", path.label())
        .axis("bytes", bytes, variant.clone())
        .axis("m", taps, variant)
        .defines([("TYPE", type_define.as_str()), ("PATH", path_define.as_str())])
        .defines((path == Path::Reuse).then_some(("MAX_TAPS", max_taps.as_str())))
        .resource(input)
        .resource(mask)
        .resource(output)
        .push(Push::words(&[
            (elements - 1) as u32,
            last_first(elements, taps, group) as u32,
            taps as u32,
            phase(elements, group) as u32,
        ]))
        .requires(needs)
        .work([Work::new(2.0 * taps as f64, Unit::Flop).bounded_by(ty.ceiling())])
        .baseline(name(Path::Plain))
        .reference(move |gid| reference(elements, taps, group, gid));
    // readonly restrict against plain: the access qualifiers are the only difference in the source.
    match path {
        Path::Readonly => case.twin(name(Path::Plain)),
        _ => case,
    }
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let taps = env.axis_rounded("m", |m| (m >= 1).then_some(m));
    // Sizes rounded down to a power of two, at least 64 KiB, each once.
    let sizes = env.axis_rounded("bytes", |b| Some(floor_power_of_two(b.max(MIN_BYTES))));
    let group = u64::from(env.workgroup_width(GROUP as u32));
    let mut cases = Vec::new();
    for ty in Type::ALL {
        for &bytes in &sizes {
            for &m in &taps {
                cases.extend(Path::ALL.map(|path| case(ty, path, m, bytes, group)));
            }
        }
    }
    cases
}

/// The mask sizes.
const TAPS: Axis = Axis {
    name: "m",
    unit: AxisUnit::Count("taps"),
    default: "3,7,15,31,63,127,255",
    max: 1024,
    about: "mask size M (taps), 1 to 1024; default the article's 3 to 255 by 2x+1",
};

/// The working-set sizes (the input; the output is as large).
const BYTES: Axis = Axis {
    name: "bytes",
    unit: AxisUnit::Bytes,
    default: "1M,16M,256M",
    max: 1 << 30,
    about: "input size in bytes (rounded down to a power of two, at least 64 KiB; the output is as \
            large), default 1 MiB (in the L2), 16 MiB and 256 MiB (past the H100's 50 MiB L2)",
};

inventory::submit! {
    Family {
        about: registry::About {
            measures: "the texture-cache study: a 1D convolution out[i] = sum of in[i+k] * w[k] over an M-tap \
                       mask, in float16, float and double, through plain storage buffers, readonly restrict \
                       ones (non-coherent loads), uniform texel buffers, and a shared-memory window (register \
                       reuse); 1 to 256 MiB of input",
            invocation: "one output: M multiply-adds of input and mask (float16 summed in fp32), written to the \
                         output buffer",
            rate: "FLOP per second (2 per tap); the ratio is the speedup over the plain path at the same type, \
                   M and size",
        },
        name: "conv",
        order: 280,
        axes: &[TAPS, BYTES],
        ratio_note: Some("the plain path of the same type, M and size"),
        levels: false,
        device_cases: false,
        quick: &[
            "Conv1D<float> M=15 plain 1 MiB",
            "Conv1D<float> M=15 readonly 1 MiB",
            "Conv1D<float> M=15 texel 1 MiB",
            "Conv1D<float> M=15 reuse 1 MiB",
        ],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases(settings: &[&str]) -> Vec<CaseSpec> {
        let family = registry::families().into_iter().find(|f| f.name == "conv").unwrap();
        let settings: Vec<_> = settings.iter().map(|s| registry::parse_setting(s).unwrap()).collect();
        expand(&Env { family, settings: &settings, device: None })
    }

    #[test]
    fn names_say_type_mask_path_and_size_and_ratios_are_against_plain() {
        let all = cases(&["conv.m=63", "conv.bytes=16M"]);
        assert_eq!(all.len(), 3 * 4);
        let readonly = all.iter().find(|c| c.name == "Conv1D<float> M=63 readonly 16 MiB").unwrap();
        assert_eq!(readonly.baseline.as_deref(), Some("Conv1D<float> M=63 plain 16 MiB"));
        assert_eq!(readonly.variant, "Conv1D<float> readonly");
        assert_eq!(readonly.twin.as_deref(), Some("Conv1D<float> M=63 plain 16 MiB"));
        assert_eq!(readonly.group, "conv float 16 MiB");
        assert_eq!(readonly.axes, [("bytes", 16 << 20), ("m", 63)]);
        assert_eq!(readonly.work[0].per_invocation, 126.0);
    }

    #[test]
    fn sizes_round_down_to_powers_of_two_of_at_least_64_kib() {
        let all = cases(&["conv.m=3", "conv.bytes=1K,100K,96K,3M"]);
        let mut sizes: Vec<u64> = all.iter().map(|c| c.axes[0].1).collect();
        sizes.dedup();
        assert_eq!(sizes, [64 << 10, 2 << 20, 64 << 10, 2 << 20, 64 << 10, 2 << 20]);
    }

    /// The output invocation `gid` computes, as the reference places it.
    fn output_index(elements: u64, taps: u64, gid: u64) -> u64 {
        ((gid - gid % GROUP + phase(elements, GROUP)) & (elements - 1)).min(last_first(elements, taps, GROUP))
            + gid % GROUP
    }

    #[test]
    fn a_verify_run_of_two_workgroups_checks_the_moved_window_and_the_wrap() {
        for (elements, taps) in [(32768, 1024), (32768, 3), (1 << 20, 255)] {
            let last = last_first(elements, taps, GROUP);
            assert_eq!(last + GROUP - 1 + taps - 1, elements - 1, "the last window ends at the set's end");
            // Workgroup 0 is the last window, moved back; workgroup 1 wraps to the set's start.
            assert_eq!(output_index(elements, taps, 0), last);
            assert_eq!(output_index(elements, taps, GROUP), 0);
            let reads_end = (0..2 * GROUP).map(|gid| output_index(elements, taps, gid) + taps - 1).max();
            assert_eq!(reads_end, Some(elements - 1), "no read past the set");
        }
    }

    #[test]
    fn the_reference_is_the_convolution() {
        // Invocation 257 (workgroup 1, output 1) of M = 3: in[1..4] times w = 1, 2, 3.
        let expected = signal(1) + 2.0 * signal(2) + 3.0 * signal(3);
        assert_eq!(reference(1 << 16, 3, GROUP, 257), Value::F32(expected as f32));
        // Sums reach 1024 x 7 x 3 at most: exact in fp32.
        let largest = (0..1024).map(|k| 7.0 * weight(k)).sum::<f64>();
        assert!(largest < f64::from(1u32 << 24));
    }

    #[test]
    fn a_window_in_the_wrong_place_gives_other_sums() {
        // --verify must catch a shader that computes the right convolution at the wrong outputs.
        let elements = 8192;
        for taps in [1, 3, 7, 21, 63, 255, 1024] {
            let sums = |first: u64| -> Vec<f64> {
                (0..GROUP).map(|t| (0..taps).map(|k| signal(first + t + k) * weight(k)).sum()).collect()
            };
            let (moved_back, wrapped) = (sums(last_first(elements, taps, GROUP)), sums(0));
            for shift in [1, GROUP, last_first(elements, taps, GROUP) - GROUP] {
                assert_ne!(sums(shift), wrapped, "M = {taps}: a window {shift} along sums alike");
                assert_ne!(sums(last_first(elements, taps, GROUP) - shift), moved_back, "M = {taps}");
            }
        }
    }

    #[test]
    fn float16_data_are_exact_halves() {
        let mut bytes = [0xFFu8; 14];
        fill(Type::Half, signal)(&mut bytes);
        let halves: Vec<u16> = bytes.chunks_exact(2).map(|c| u16::from_ne_bytes([c[0], c[1]])).collect();
        let expected: Vec<u16> = (0..7)
            .map(|e| if signal(e) == 0.0 { 0 } else { super::super::data::half_bits(signal(e) as f32) })
            .collect();
        assert_eq!(halves, expected);
        assert!((0..7).any(|e| signal(e) == 0.0) && (0..7).any(|e| signal(e) > 1.0), "zero and normals");
    }
}
