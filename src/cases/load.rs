//! Buffer loads as in sebbbi/perftest: typed (texel) buffers, raw words, structured, constant buffer.
//!
//! Each invocation sums 256 loads starting at an element chosen by the pattern
//! (uniform: 0; linear: its index; random: a hash in 0..15), writes the sum to
//! groupshared memory, and passes on its neighbour's sum (glsl/load.glsl). Every
//! buffer holds 512 elements (at most 8 KB), so the loads stay in L1.

use ash::vk;

use crate::registry::{Case, Family, Glsl, Mode, Params, Requirement, Resource, Unit, Value, Work};

/// Loads per invocation (LOADS in glsl/load.glsl).
pub(super) const LOADS: usize = 256;
/// Elements in each buffer: the largest index is 255 + 255.
const ELEMENTS: usize = 512;
/// The case every load and sample ratio is relative to (1.0x), as in the original.
pub const BASELINE: &str = "Buffer<RGBA8>.Load random";

const GLSL: Glsl = Glsl { file: "load.glsl", source: include_str!("../../glsl/load.glsl") };

/// The element invocation `tid` (0..255) starts at.
fn start(pattern: u32, tid: usize) -> usize {
    match pattern {
        0 => 0,
        1 => tid,
        _ => {
            let h = (tid as u32).wrapping_mul(0x9E37_79B1);
            ((h ^ (h >> 15)) & 15) as usize
        }
    }
}

/// The float at position `k` of every float buffer: k/16 steps in [1/16, 4], exact in fp16.
pub(super) fn float_value(k: usize) -> f32 {
    (1 + (k * 5) % 64) as f32 / 16.0
}

/// The byte at position `k` of every 8-bit buffer: never zero.
pub(super) fn unorm8(k: usize) -> u8 {
    (1 + (k * 7) % 255) as u8
}

/// The word at position `k` of the raw buffer.
fn raw_word(k: usize) -> u32 {
    (k as u32).wrapping_mul(0x9E37_79B1) ^ 0x5BD1_E995
}

/// The fp16 bits of `v`, which must be a normal fp16 value with at most 11 significant bits.
pub(super) fn half_bits(v: f32) -> u16 {
    let bits = v.to_bits();
    let exponent = ((bits >> 23) & 0xFF) as i32 - 127 + 15;
    (((bits >> 16) & 0x8000) | ((exponent as u32) << 10) | ((bits >> 13) & 0x3FF)) as u16
}

/// Sums LOADS four-wide loads from `first` in the shader's order: per component, then x+y+z+w.
pub(super) fn sum_loads(first: usize, load: impl Fn(usize) -> [f32; 4]) -> f32 {
    let mut sum = [0f32; 4];
    for i in 0..LOADS {
        let v = load(first + i);
        for c in 0..4 {
            sum[c] += v[c];
        }
    }
    sum[0] + sum[1] + sum[2] + sum[3]
}

/// The invocation whose sum invocation `gid` writes (glsl/load.glsl: `stash[tid ^ 1]`).
pub(super) fn partner(gid: u32) -> usize {
    (gid as usize % 256) ^ 1
}

pub(super) fn params(_case: &Case, mode: Mode) -> Params {
    // Float sums are finite, never the NaN sentinel; raw sums avoid it (a unit test checks).
    Params { write_enable: u32::from(mode == Mode::Verify), sentinel: u32::MAX, ..Params::default() }
}

pub(super) const fn work(bytes_per_load: u32) -> [Work; 2] {
    [
        Work { per_invocation: LOADS as f64, unit: Unit::Load },
        Work { per_invocation: (LOADS as u32 * bytes_per_load) as f64, unit: Unit::Byte },
    ]
}

// ---- Typed buffers: Buffer<FORMAT>.Load, a uniform texel buffer read with texelFetch ----

/// Channels and bytes per channel of a typed format.
pub(super) const fn typed_layout(format: vk::Format) -> (usize, usize) {
    match format {
        vk::Format::R8_UNORM => (1, 1),
        vk::Format::R8G8_UNORM => (2, 1),
        vk::Format::R8G8B8A8_UNORM => (4, 1),
        vk::Format::R16_SFLOAT => (1, 2),
        vk::Format::R16G16_SFLOAT => (2, 2),
        vk::Format::R16G16B16A16_SFLOAT => (4, 2),
        vk::Format::R32_SFLOAT => (1, 4),
        vk::Format::R32G32_SFLOAT => (2, 4),
        _ => (4, 4),
    }
}

/// Bytes per texel of a typed format.
pub(super) const fn texel_bytes(format: vk::Format) -> u32 {
    let (channels, size) = typed_layout(format);
    (channels * size) as u32
}

pub(super) fn fill_typed(format: vk::Format, bytes: &mut [u8]) {
    let (_, size) = typed_layout(format);
    for (k, chunk) in bytes.chunks_exact_mut(size).enumerate() {
        match size {
            1 => chunk[0] = unorm8(k),
            2 => chunk.copy_from_slice(&half_bits(float_value(k)).to_ne_bytes()),
            _ => chunk.copy_from_slice(&float_value(k).to_ne_bytes()),
        }
    }
}

/// What texelFetch returns for element `e`: missing green and blue read 0, missing alpha 1.
pub(super) fn typed_texel(format: vk::Format, e: usize) -> [f32; 4] {
    let (channels, size) = typed_layout(format);
    let mut texel = [0.0, 0.0, 0.0, 1.0];
    for (c, value) in texel.iter_mut().enumerate().take(channels) {
        let k = e * channels + c;
        *value = if size == 1 { f32::from(unorm8(k)) / 255.0 } else { float_value(k) };
    }
    texel
}

fn typed_reference(format: vk::Format, case: &Case, gid: u32) -> Value {
    let sum = sum_loads(start(case.variant, partner(gid)), |e| typed_texel(format, e));
    // UNORM to float conversion may round differently on the GPU; the float formats are exact.
    if typed_layout(format).1 == 1 {
        Value::F32Near(sum)
    } else {
        Value::F32(sum)
    }
}

macro_rules! typed_family {
    ($order:literal, $label:literal, $format:ident) => {
        const _: () = {
            const FORMAT: vk::Format = vk::Format::$format;
            const BYTES: u32 = texel_bytes(FORMAT);
            const WORK: [Work; 2] = work(BYTES);
            const REQUIRES: [Requirement; 1] = [Requirement::UniformTexelBuffer(FORMAT)];
            static CASES: [Case; 3] = [
                Case {
                    name: concat!("Buffer<", $label, ">.Load uniform"),
                    defines: &[("KIND", "1"), ("WIDTH", "4"), ("PATTERN", "0")],
                    work: &WORK,
                    requires: &REQUIRES,
                    variant: 0,
                },
                Case {
                    name: concat!("Buffer<", $label, ">.Load linear"),
                    defines: &[("KIND", "1"), ("WIDTH", "4"), ("PATTERN", "1")],
                    work: &WORK,
                    requires: &REQUIRES,
                    variant: 1,
                },
                Case {
                    name: concat!("Buffer<", $label, ">.Load random"),
                    defines: &[("KIND", "1"), ("WIDTH", "4"), ("PATTERN", "2")],
                    work: &WORK,
                    requires: &REQUIRES,
                    variant: 2,
                },
            ];
            inventory::submit! {
                Family {
                    name: concat!("load typed ", $label),
                    order: $order,
                    glsl: GLSL,
                    local_size: [256, 1, 1],
                    resources: &[Resource::TexelBuffer {
                        format: FORMAT,
                        bytes: ELEMENTS as u64 * BYTES as u64,
                        fill: |bytes| fill_typed(FORMAT, bytes),
                    }],
                    cases: &CASES,
                    params,
                    reference: |case, gid| typed_reference(FORMAT, case, gid),
                    baseline: Some(BASELINE),
                    sweep: false,
                }
            }
        };
    };
}

typed_family!(100, "R8", R8_UNORM);
typed_family!(101, "RG8", R8G8_UNORM);
typed_family!(102, "RGBA8", R8G8B8A8_UNORM);
typed_family!(103, "R16f", R16_SFLOAT);
typed_family!(104, "RG16f", R16G16_SFLOAT);
typed_family!(105, "RGBA16f", R16G16B16A16_SFLOAT);
typed_family!(106, "R32f", R32_SFLOAT);
typed_family!(107, "RG32f", R32G32_SFLOAT);
typed_family!(108, "RGBA32f", R32G32B32A32_SFLOAT);

// ---- Raw, structured and constant buffers: one family each, all widths as cases ----

/// `Case::variant` of the families below: pattern, width (bits 4..) and word offset (bits 8..).
const fn variant(pattern: u32, width: u32, offset: u32) -> u32 {
    pattern | (width << 4) | (offset << 8)
}

fn decode(variant: u32) -> (u32, usize, usize) {
    (variant & 15, ((variant >> 4) & 15) as usize, (variant >> 8) as usize)
}

/// The three patterns of one load, as cases named `BASE uniform`, `BASE linear`, `BASE random`.
macro_rules! cases {
    ($( $base:literal, $kind:literal, $width:literal, $offset:literal, $work:expr );* $(;)?) => {
        [ $(
            Case {
                name: concat!($base, " uniform"),
                defines: &[("KIND", $kind), ("WIDTH", stringify!($width)), ("PATTERN", "0"), ("OFFSET", stringify!($offset))],
                work: $work,
                requires: &[],
                variant: variant(0, $width, $offset),
            },
            Case {
                name: concat!($base, " linear"),
                defines: &[("KIND", $kind), ("WIDTH", stringify!($width)), ("PATTERN", "1"), ("OFFSET", stringify!($offset))],
                work: $work,
                requires: &[],
                variant: variant(1, $width, $offset),
            },
            Case {
                name: concat!($base, " random"),
                defines: &[("KIND", $kind), ("WIDTH", stringify!($width)), ("PATTERN", "2"), ("OFFSET", stringify!($offset))],
                work: $work,
                requires: &[],
                variant: variant(2, $width, $offset),
            },
        )* ]
    };
}

const WORK_4: [Work; 2] = work(4);
const WORK_8: [Work; 2] = work(8);
const WORK_12: [Work; 2] = work(12);
const WORK_16: [Work; 2] = work(16);

static RAW: [Case; 18] = cases![
    "ByteAddressBuffer.Load", "2", 1, 0, &WORK_4;
    "ByteAddressBuffer.Load2", "2", 2, 0, &WORK_8;
    "ByteAddressBuffer.Load3", "2", 3, 0, &WORK_12;
    "ByteAddressBuffer.Load4", "2", 4, 0, &WORK_16;
    "ByteAddressBuffer.Load2 unaligned", "2", 2, 1, &WORK_8;
    "ByteAddressBuffer.Load4 unaligned", "2", 4, 1, &WORK_16;
];

/// Words in the raw buffer: 512 four-word elements plus the unaligned offset.
const RAW_WORDS: usize = ELEMENTS * 4 + 1;

fn fill_raw(bytes: &mut [u8]) {
    for (k, chunk) in bytes.chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&raw_word(k).to_ne_bytes());
    }
}

fn raw_reference(case: &Case, gid: u32) -> Value {
    let (pattern, width, offset) = decode(case.variant);
    let first = start(pattern, partner(gid));
    let mut sum = [0u32; 4];
    for i in 0..LOADS {
        for (c, s) in sum.iter_mut().enumerate().take(width) {
            *s = s.wrapping_add(raw_word((first + i) * width + offset + c));
        }
    }
    Value::U32(sum.iter().fold(0, |a, &b| a.wrapping_add(b)))
}

inventory::submit! {
    Family {
        name: "load raw",
        order: 110,
        glsl: GLSL,
        local_size: [256, 1, 1],
        resources: &[Resource::StorageBuffer { bytes: RAW_WORDS as u64 * 4, fill: fill_raw }],
        cases: &RAW,
        params,
        reference: raw_reference,
        baseline: Some(BASELINE),
        sweep: false,
    }
}

static STRUCTURED: [Case; 9] = cases![
    "StructuredBuffer<float>.Load", "3", 1, 0, &WORK_4;
    "StructuredBuffer<float2>.Load", "3", 2, 0, &WORK_8;
    "StructuredBuffer<float4>.Load", "3", 4, 0, &WORK_16;
];

fn fill_floats(bytes: &mut [u8]) {
    for (k, chunk) in bytes.chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&float_value(k).to_ne_bytes());
    }
}

/// Element `e` of a float buffer read `width` floats at a time; the rest read 0.
fn float_element(width: usize, e: usize) -> [f32; 4] {
    let mut v = [0.0; 4];
    for (c, value) in v.iter_mut().enumerate().take(width) {
        *value = float_value(e * width + c);
    }
    v
}

fn float_reference(case: &Case, gid: u32) -> Value {
    let (pattern, width, _) = decode(case.variant);
    Value::F32(sum_loads(start(pattern, partner(gid)), |e| float_element(width, e)))
}

inventory::submit! {
    Family {
        name: "load structured",
        order: 120,
        glsl: GLSL,
        local_size: [256, 1, 1],
        resources: &[Resource::StorageBuffer { bytes: (ELEMENTS * 16) as u64, fill: fill_floats }],
        cases: &STRUCTURED,
        params,
        reference: float_reference,
        baseline: Some(BASELINE),
        sweep: false,
    }
}

static CONSTANT: [Case; 3] = cases!["cbuffer{float4} load", "4", 4, 0, &WORK_16];

inventory::submit! {
    Family {
        name: "load constant",
        order: 130,
        glsl: GLSL,
        local_size: [256, 1, 1],
        // 1024 vec4: the 16384-byte range every device guarantees for uniform buffers.
        resources: &[Resource::UniformBuffer { bytes: 16384, fill: fill_floats }],
        cases: &CONSTANT,
        params,
        reference: float_reference,
        baseline: Some(BASELINE),
        sweep: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_bits_encodes_the_data_exactly() {
        assert_eq!(half_bits(1.0), 0x3C00);
        assert_eq!(half_bits(0.0625), 0x2C00);
        assert_eq!(half_bits(4.0), 0x4400);
        assert_eq!(half_bits(1.5625), 0x3E40);
        for k in 0..ELEMENTS * 4 {
            assert!(float_value(k) > 0.0 && unorm8(k) > 0, "the data is never zero");
        }
    }

    #[test]
    fn patterns_stay_inside_the_buffers() {
        for pattern in 0..3 {
            let last = (0..256).map(|tid| start(pattern, tid)).max().unwrap() + LOADS - 1;
            assert!(last < ELEMENTS, "pattern {pattern} reads element {last}");
        }
        let random: std::collections::HashSet<usize> = (0..256).map(|tid| start(2, tid)).collect();
        assert_eq!(random.len(), 16, "random starts cover 0..15");
    }

    #[test]
    fn raw_sums_never_hit_the_sentinel() {
        // Timing runs write a result only if it equals the sentinel (u32::MAX): raw sums must not.
        for case in &RAW {
            for gid in 0..256 {
                assert_ne!(raw_reference(case, gid), Value::U32(u32::MAX), "{} {gid}", case.name);
            }
        }
    }

    #[test]
    fn raw_loads_stay_inside_the_buffer() {
        for case in &RAW {
            let (_, width, offset) = decode(case.variant);
            assert!((ELEMENTS - 1) * width + offset + width <= RAW_WORDS, "{}", case.name);
        }
    }

    #[test]
    fn typed_texels_fill_missing_channels_like_texel_fetch() {
        assert_eq!(typed_texel(vk::Format::R32_SFLOAT, 0), [float_value(0), 0.0, 0.0, 1.0]);
        let rgba8 = typed_texel(vk::Format::R8G8B8A8_UNORM, 1);
        assert_eq!(rgba8[3], f32::from(unorm8(7)) / 255.0);
    }
}
