//! 2D textures as in sebbbi/perftest: Texture2D Load, Sample(nearest) and Sample(bilinear), nine formats.
//!
//! Each 16x16 workgroup's invocations read 256 texels of a 32x32 texture (at most
//! 16 KB) from a start chosen by the pattern, sum them, and pass on a neighbour's
//! sum (glsl/texture.glsl). Samples hit texel centres, so nearest and bilinear
//! filtering both return the texel itself: the CPU reference is the texel data.

use ash::vk;

use super::data::{fill_typed, typed_texel, Pattern};
use super::load::{partner, sum_loads, work, BASELINE};
use crate::caps::Requirements;
use crate::registry::{
    self, originals, CaseSpec, Env, Family, FormatInfo, Glsl, Resource, ResourceKind, Value,
};

/// Width and height of every texture.
const SIZE: usize = 32;
/// Workgroups are 16 invocations wide and, where the device allows, 16 rows tall.
const SIDE: u32 = 16;

const GLSL: Glsl = Glsl { file: "texture.glsl", source: include_str!("../../glsl/texture.glsl") };

/// The texel invocation `tid` (0..255 in a 16x16 group, fewer rows where the device allows fewer) starts at.
fn start(pattern: Pattern, tid: usize) -> (usize, usize) {
    match pattern {
        Pattern::Uniform => (0, 0),
        Pattern::Linear => (tid % 16, tid / 16),
        Pattern::Random => {
            let mut h = (tid as u32).wrapping_mul(0x9E37_79B1);
            h ^= h >> 15;
            ((h & 15) as usize, ((h >> 4) & 15) as usize)
        }
    }
}

/// The three operations of the original, in its order, and the UAV load (`RWTexture2D.Load`).
#[derive(Clone, Copy)]
pub(super) enum Op {
    Load,
    SampleNearest,
    SampleBilinear,
    /// imageLoad from a storage image declared without a format.
    StorageLoad,
}

impl Op {
    /// Its value on the `op` axis.
    fn axis_value(self) -> &'static str {
        match self {
            Op::Load | Op::StorageLoad => "load",
            Op::SampleNearest => "nearest",
            Op::SampleBilinear => "bilinear",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Op::Load => ".Load",
            Op::SampleNearest => ".Sample(nearest)",
            Op::SampleBilinear => ".Sample(bilinear)",
            Op::StorageLoad => ".Load",
        }
    }
}

/// `Texture2D<label>op pattern` in workgroups of 16 x `rows` invocations.
pub(super) fn case(f: &'static FormatInfo, op: Op, pattern: Pattern, rows: u32) -> CaseSpec {
    let (label, format) = (f.texture_label, f.format);
    let (op_define, filter) = match op {
        Op::Load => ("0", vk::Filter::NEAREST),
        Op::SampleNearest => ("1", vk::Filter::NEAREST),
        Op::SampleBilinear => ("1", vk::Filter::LINEAR),
        Op::StorageLoad => ("2", vk::Filter::NEAREST),
    };
    // texelFetch and imageLoad of a float format are exact; UNORM conversion and filtering may round.
    let exact = matches!(op, Op::Load | Op::StorageLoad) && f.channel_bytes > 1;
    let size = [SIZE as u32; 2];
    let fill = move |b: &mut [u8]| fill_typed(f, b);
    let (prefix, group, resource, requires) = match op {
        Op::StorageLoad => (
            "RW",
            "uav texture",
            Resource::new(ResourceKind::StorageImage { format, size }, fill),
            f.storage_needs(),
        ),
        _ => ("", "texture", Resource::sampled_image(format, size, filter, fill), Requirements::new()),
    };
    CaseSpec::new(
        format!("{prefix}Texture2D<{label}>{} {}", op.label(), pattern.name()),
        GLSL,
        [SIDE, rows, 1],
    )
    .narrowed_from(u64::from(SIDE * SIDE))
    .group(format!("{group} {label}{}", op.label()))
    // In the uav and broadcast families, textures sit beside typed, raw and structured buffers;
    // formats go by the buffer label there too, so one value selects both.
    .label("type", "texture")
    .label("op", op.axis_value())
    .label("format", f.buffer_label)
    .label("pattern", pattern.name())
    .defines([("OP", op_define), ("PATTERN", pattern.define())])
    // Only a storage image declares its format: the sampled cases share one shader across formats.
    .defines(matches!(op, Op::StorageLoad).then_some(("FORMAT", f.qualifier)))
    .resource(resource)
    .requires(requires)
    .work(work(f.texel_bytes()))
    .baseline(BASELINE)
    .reference(move |gid| {
        let (x0, y0) = start(pattern, partner(gid, SIDE * rows));
        let total = sum_loads(0, |i| typed_texel(f, (y0 + i / 16) * SIZE + x0 + i % 16));
        if exact {
            Value::F32(total)
        } else {
            Value::F32Near(total)
        }
    })
}

/// The rows of the family's workgroups on the device of `env`.
pub(super) fn rows(env: &Env) -> u32 {
    env.workgroup_rows(SIDE, SIDE)
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let rows = rows(env);
    let mut cases = Vec::new();
    for op in [Op::Load, Op::SampleNearest, Op::SampleBilinear] {
        for f in originals() {
            cases.extend(Pattern::ALL.map(|p| case(f, op, p, rows)));
        }
    }
    cases
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "2D texture reads as sebbbi/perftest: texelFetch (Load), and textureLod with a nearest or \
                       a bilinear sampler, nine formats, a 32x32 texture (L1-resident)",
            invocation: "256 texels of a 16x16 window from a start chosen by the pattern, at texel centres (so \
                         both filters return the texel), summed, through groupshared memory to the result write",
            rate: "loads (texels) per second, and bytes per second (the format's texel size)",
        },
        name: "texture",
        order: 200,
        axes: &[],
        ratio_note: Some("\"Buffer<RGBA8>.Load random\""),
        levels: false,
        device_cases: false,
        quick: &[
            "Texture2D<RGBA8>.Load linear",
            "Texture2D<RGBA8>.Sample(nearest) linear",
            "Texture2D<RGBA8>.Sample(bilinear) linear",
            "Texture2D<RGBA32F>.Load linear",
            "Texture2D<RGBA32F>.Sample(bilinear) linear",
        ],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_stay_inside_the_texture() {
        for pattern in Pattern::ALL {
            for tid in 0..256 {
                let (x, y) = start(pattern, tid);
                assert!(x + 15 < SIZE && y + 15 < SIZE, "{pattern:?}, invocation {tid}");
            }
        }
        let random: std::collections::HashSet<(usize, usize)> =
            (0..256).map(|tid| start(Pattern::Random, tid)).collect();
        assert!(random.len() > 100, "random starts spread: {}", random.len());
    }

    #[test]
    fn linear_starts_follow_the_invocation_grid() {
        assert_eq!(start(Pattern::Linear, 17), (1, 1));
        assert_eq!(start(Pattern::Uniform, 200), (0, 0));
    }
}
