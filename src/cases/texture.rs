//! 2D textures as in sebbbi/perftest: Texture2D Load, Sample(nearest) and Sample(bilinear), nine formats.
//!
//! Each 16x16 workgroup's invocations read 256 texels of a 32x32 texture (at most
//! 16 KB) from a start chosen by the pattern, sum them, and pass on a neighbour's
//! sum (glsl/texture.glsl). Samples hit texel centres, so nearest and bilinear
//! filtering both return the texel itself: the CPU reference is the texel data.

use ash::vk;

use super::load::{
    fill_typed, params, partner, sum_loads, texel_bytes, typed_layout, typed_texel, work, BASELINE,
};
use crate::registry::{Case, Family, Glsl, Requirement, Resource, Value, Work};

/// Width and height of every texture.
const SIZE: usize = 32;

const GLSL: Glsl = Glsl { file: "texture.glsl", source: include_str!("../../glsl/texture.glsl") };

/// The texel invocation `tid` (0..255 in a 16x16 group) starts at.
fn start(pattern: u32, tid: usize) -> (usize, usize) {
    match pattern {
        0 => (0, 0),
        1 => (tid % 16, tid / 16),
        _ => {
            let mut h = (tid as u32).wrapping_mul(0x9E37_79B1);
            h ^= h >> 15;
            ((h & 15) as usize, ((h >> 4) & 15) as usize)
        }
    }
}

/// What invocation `gid` writes: its neighbour's sum of 256 texels, in the shader's order.
fn texture_reference(format: vk::Format, exact: bool, case: &Case, gid: u32) -> Value {
    let (x0, y0) = start(case.variant, partner(gid));
    let total = sum_loads(0, |i| typed_texel(format, (y0 + i / 16) * SIZE + x0 + i % 16));
    if exact {
        Value::F32(total)
    } else {
        Value::F32Near(total)
    }
}

/// One family: `Texture2D<LABEL>OP {uniform, linear, random}` for one format and operation.
macro_rules! texture_family {
    ($order:expr, $label:literal, $format:ident, $op:literal, $op_define:literal, $filter:ident, $requires:expr) => {
        const _: () = {
            const FORMAT: vk::Format = vk::Format::$format;
            const BYTES: u32 = texel_bytes(FORMAT);
            const WORK: [Work; 2] = work(BYTES);
            const REQUIRES: &[Requirement] = &$requires;
            static CASES: [Case; 3] = [
                Case {
                    name: concat!("Texture2D<", $label, ">", $op, " uniform"),
                    defines: &[("OP", $op_define), ("PATTERN", "0")],
                    work: &WORK,
                    requires: REQUIRES,
                    variant: 0,
                },
                Case {
                    name: concat!("Texture2D<", $label, ">", $op, " linear"),
                    defines: &[("OP", $op_define), ("PATTERN", "1")],
                    work: &WORK,
                    requires: REQUIRES,
                    variant: 1,
                },
                Case {
                    name: concat!("Texture2D<", $label, ">", $op, " random"),
                    defines: &[("OP", $op_define), ("PATTERN", "2")],
                    work: &WORK,
                    requires: REQUIRES,
                    variant: 2,
                },
            ];
            inventory::submit! {
                Family {
                    name: concat!("texture ", $label, $op),
                    order: $order,
                    glsl: GLSL,
                    local_size: [16, 16, 1],
                    resources: &[Resource::Image2D {
                        format: FORMAT,
                        size: [SIZE as u32, SIZE as u32],
                        texel_bytes: BYTES as u64,
                        filter: vk::Filter::$filter,
                        fill: |bytes| fill_typed(FORMAT, bytes),
                    }],
                    cases: &CASES,
                    params,
                    // texelFetch of a float format is exact; UNORM conversion and filtering may round.
                    reference: |case, gid| {
                        let exact = $op_define == "0" && typed_layout(FORMAT).1 > 1;
                        texture_reference(FORMAT, exact, case, gid)
                    },
                    baseline: Some(BASELINE),
                    sweep: false,
                }
            }
        };
    };
}

/// The nine formats of one operation, in the original's order, at family orders `$base`...
macro_rules! texture_op {
    ($base:literal, $op:literal, $op_define:literal, $filter:ident, linear: $linear:tt) => {
        texture_op!(@one $base + 0, "R8", R8_UNORM, $op, $op_define, $filter, $linear);
        texture_op!(@one $base + 1, "RG8", R8G8_UNORM, $op, $op_define, $filter, $linear);
        texture_op!(@one $base + 2, "RGBA8", R8G8B8A8_UNORM, $op, $op_define, $filter, $linear);
        texture_op!(@one $base + 3, "R16F", R16_SFLOAT, $op, $op_define, $filter, $linear);
        texture_op!(@one $base + 4, "RG16F", R16G16_SFLOAT, $op, $op_define, $filter, $linear);
        texture_op!(@one $base + 5, "RGBA16F", R16G16B16A16_SFLOAT, $op, $op_define, $filter, $linear);
        texture_op!(@one $base + 6, "R32F", R32_SFLOAT, $op, $op_define, $filter, $linear);
        texture_op!(@one $base + 7, "RG32F", R32G32_SFLOAT, $op, $op_define, $filter, $linear);
        texture_op!(@one $base + 8, "RGBA32F", R32G32B32A32_SFLOAT, $op, $op_define, $filter, $linear);
    };
    (@one $order:expr, $label:literal, $format:ident, $op:literal, $op_define:literal, $filter:ident, false) => {
        texture_family!($order, $label, $format, $op, $op_define, $filter,
            [Requirement::SampledImage(vk::Format::$format)]);
    };
    (@one $order:expr, $label:literal, $format:ident, $op:literal, $op_define:literal, $filter:ident, true) => {
        texture_family!($order, $label, $format, $op, $op_define, $filter,
            [Requirement::SampledImage(vk::Format::$format), Requirement::LinearFilter(vk::Format::$format)]);
    };
}

texture_op!(200, ".Load", "0", NEAREST, linear: false);
texture_op!(300, ".Sample(nearest)", "1", NEAREST, linear: false);
texture_op!(400, ".Sample(bilinear)", "1", LINEAR, linear: true);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_stay_inside_the_texture() {
        for pattern in 0..3 {
            for tid in 0..256 {
                let (x, y) = start(pattern, tid);
                assert!(x + 15 < SIZE && y + 15 < SIZE, "pattern {pattern}, invocation {tid}");
            }
        }
        let random: std::collections::HashSet<(usize, usize)> = (0..256).map(|tid| start(2, tid)).collect();
        assert!(random.len() > 100, "random starts spread: {}", random.len());
    }

    #[test]
    fn linear_starts_follow_the_invocation_grid() {
        assert_eq!(start(1, 17), (1, 1));
        assert_eq!(start(0, 200), (0, 0));
    }
}
