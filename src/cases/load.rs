//! Buffer loads as in sebbbi/perftest: typed (texel) buffers, raw words, structured, constant buffer.
//!
//! Each invocation sums 256 loads starting at an element chosen by the pattern
//! (uniform: 0; linear: its index; random: a hash in 0..15), writes the sum to
//! groupshared memory, and passes on its neighbour's sum (glsl/load.glsl). Every
//! buffer holds 512 elements (at most 8 KB), so the loads stay in L1.

use super::data::{fill_typed, float_value, raw_word, start, typed_texel, Pattern};
use crate::caps::{Ceiling, Requirements};
use crate::registry::{
    self, originals, CaseSpec, Env, Family, FormatInfo, Glsl, Push, Resource, ResourceKind, Unit, Value, Work,
};

/// Loads per invocation (LOADS in glsl/load.glsl).
pub(super) const LOADS: usize = 256;
/// Elements in each buffer: the largest index is 255 + 255.
const ELEMENTS: usize = 512;
/// Invocations per workgroup, where the device allows them (fewer elsewhere: see
/// [`Env::workgroup_width`]).
pub(super) const GROUP: u32 = 256;
/// The case every load and sample ratio is relative to (1.0x), as in the original.
pub(super) const BASELINE: &str = "Buffer<RGBA8>.Load random";

const GLSL: Glsl = Glsl { file: "load.glsl", source: include_str!("../../glsl/load.glsl") };

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

/// The invocation whose sum invocation `gid` writes (glsl/load.glsl: `stash[tid ^ 1]`), in
/// workgroups of `invocations`.
pub(super) fn partner(gid: u32, invocations: u32) -> usize {
    (gid % invocations) as usize ^ 1
}

/// Loads and bytes per invocation; the bytes pass through the L1 (or texture cache), so its
/// bandwidth bounds them.
pub(super) fn work(bytes_per_load: u32) -> [Work; 2] {
    let bytes = Work::new(f64::from(LOADS as u32 * bytes_per_load), Unit::Byte);
    [Work::new(LOADS as f64, Unit::Load), bytes.bounded_by(Ceiling::L1Bytes)]
}

// ---- Typed buffers: Buffer<FORMAT>.Load, a uniform texel buffer read with texelFetch ----

/// How a buffer is bound: as the original's read-only view (SRV), or as a read-write one (UAV:
/// a storage texel buffer, or a storage buffer declared without `readonly`), named `RW...`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum View {
    Srv,
    Uav,
}

impl View {
    /// The name's prefix (`RW` for a UAV) and the group's (`load` or `uav`).
    fn names(self) -> (&'static str, &'static str) {
        match self {
            View::Srv => ("", "load"),
            View::Uav => ("RW", "uav"),
        }
    }
}

/// `Buffer<label>.Load pattern` in workgroups of `invocations` (and so for each builder below).
pub(super) fn typed(f: &'static FormatInfo, pattern: Pattern, view: View, invocations: u32) -> CaseSpec {
    let (label, format, bytes) = (f.buffer_label, f.format, f.texel_bytes());
    let (prefix, group) = view.names();
    let size = u64::from(ELEMENTS as u32 * bytes);
    let fill = move |b: &mut [u8]| fill_typed(f, b);
    // A storage texel buffer is read with imageLoad, declared with the view's format.
    let (kind, resource, requires) = match view {
        View::Srv => ("1", Resource::texel_buffer(format, size, fill), Requirements::new()),
        View::Uav => (
            "5",
            Resource::new(ResourceKind::StorageTexelBuffer { format, bytes: size }, fill),
            f.storage_needs(),
        ),
    };
    CaseSpec::new(format!("{prefix}Buffer<{label}>.Load {}", pattern.name()), GLSL, [invocations, 1, 1])
        .narrowed_from(GROUP.into())
        .group(format!("{group} typed {label}"))
        .label("type", "typed")
        .label("format", label)
        .label("pattern", pattern.name())
        .defines([("KIND", kind), ("WIDTH", "4"), ("PATTERN", pattern.define())])
        // Only a storage view declares its format: read-only cases share one shader across formats.
        .defines((view == View::Uav).then_some(("FORMAT", f.qualifier)))
        .resource(resource)
        .requires(requires)
        .work(work(bytes))
        .baseline(BASELINE)
        .reference(move |gid| {
            let sum = sum_loads(start(pattern, partner(gid, invocations)), |e| typed_texel(f, e));
            // UNORM to float conversion may round differently on the GPU; the float formats are exact.
            if f.channel_bytes == 1 {
                Value::F32Near(sum)
            } else {
                Value::F32(sum)
            }
        })
}

// ---- Raw, structured and constant buffers ----

/// Words in the raw buffer: 512 four-word elements plus the unaligned offset.
const RAW_WORDS: usize = ELEMENTS * 4 + 1;

fn fill_raw(bytes: &mut [u8]) {
    for (k, chunk) in bytes.chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&raw_word(k).to_ne_bytes());
    }
}

/// The sum of `width`-word raw loads from `first`, each `offset` words further on.
fn raw_sum(first: usize, width: usize, offset: usize) -> u32 {
    let mut sum = [0u32; 4];
    for i in 0..LOADS {
        for (c, s) in sum.iter_mut().enumerate().take(width) {
            *s = s.wrapping_add(raw_word((first + i) * width + offset + c));
        }
    }
    sum.iter().fold(0, |a, &b| a.wrapping_add(b))
}

/// `ByteAddressBuffer.LoadN [unaligned]`: `width` consecutive words, from word `offset` on.
pub(super) fn raw(
    base: &str,
    width: usize,
    offset: usize,
    pattern: Pattern,
    view: View,
    invocations: u32,
) -> CaseSpec {
    let (w, o) = (width.to_string(), offset.to_string());
    let (prefix, group) = view.names();
    let case = CaseSpec::new(format!("{prefix}{base} {}", pattern.name()), GLSL, [invocations, 1, 1])
        .narrowed_from(GROUP.into())
        .group(format!("{group} raw"))
        .label("type", "raw")
        .label("pattern", pattern.name())
        .defines([
            ("KIND", "2"),
            ("WIDTH", w.as_str()),
            ("PATTERN", pattern.define()),
            ("OFFSET", o.as_str()),
            ("WRITABLE", if view == View::Uav { "1" } else { "0" }),
        ])
        .resource(Resource::storage_buffer(RAW_WORDS as u64 * 4, fill_raw))
        .work(work(4 * width as u32))
        .baseline(BASELINE)
        .reference(move |gid| Value::U32(raw_sum(start(pattern, partner(gid, invocations)), width, offset)));
    readonly_twin(case, view, format!("{base} {}", pattern.name()))
}

/// A UAV raw or structured case's twin: the same load from the `readonly` buffer.
fn readonly_twin(case: CaseSpec, view: View, readonly: String) -> CaseSpec {
    match view {
        View::Uav => case.twin(readonly),
        View::Srv => case,
    }
}

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

fn float_reference(
    width: usize,
    pattern: Pattern,
    invocations: u32,
) -> impl Fn(u32) -> Value + Send + Sync + 'static {
    move |gid| Value::F32(sum_loads(start(pattern, partner(gid, invocations)), |e| float_element(width, e)))
}

/// `StructuredBuffer<floatN>.Load`: a storage buffer of float, vec2 or vec4.
pub(super) fn structured(
    base: &str,
    width: usize,
    pattern: Pattern,
    view: View,
    invocations: u32,
) -> CaseSpec {
    let w = width.to_string();
    let (prefix, group) = view.names();
    let writable = if view == View::Uav { "1" } else { "0" };
    let case = CaseSpec::new(format!("{prefix}{base} {}", pattern.name()), GLSL, [invocations, 1, 1])
        .narrowed_from(GROUP.into())
        .group(format!("{group} structured"))
        .label("type", "structured")
        .label("pattern", pattern.name())
        .defines([
            ("KIND", "3"),
            ("WIDTH", w.as_str()),
            ("PATTERN", pattern.define()),
            ("OFFSET", "0"),
            ("WRITABLE", writable),
        ])
        .resource(Resource::storage_buffer((ELEMENTS * 16) as u64, fill_floats))
        .work(work(4 * width as u32))
        .baseline(BASELINE)
        .reference(float_reference(width, pattern, invocations));
    readonly_twin(case, view, format!("{base} {}", pattern.name()))
}

/// `BufferAddress<floatN>.Load`: the structured loads through a `buffer_reference` pointer in
/// push constants instead of a descriptor.
pub(super) fn address(width: usize, pattern: Pattern, invocations: u32) -> CaseSpec {
    let w = width.to_string();
    let label = match width {
        1 => "float",
        2 => "float2",
        _ => "float4",
    };
    let bytes = (ELEMENTS * 16) as u64;
    CaseSpec::new(format!("BufferAddress<{label}>.Load {}", pattern.name()), GLSL, [invocations, 1, 1])
        .narrowed_from(GROUP.into())
        .group("address")
        .label("pattern", pattern.name())
        .defines([("KIND", "6"), ("WIDTH", w.as_str()), ("PATTERN", pattern.define()), ("OFFSET", "0")])
        .resource(Resource::new(ResourceKind::BufferAddress { bytes, push_offset: 0 }, fill_floats))
        .push(Push::words(&[0, 0]))
        .work(work(4 * width as u32))
        .baseline(BASELINE)
        .reference(float_reference(width, pattern, invocations))
}

/// `cbuffer{float4} load`: 1024 vec4, the 16384-byte range every device guarantees for uniform buffers.
fn constant(pattern: Pattern, invocations: u32) -> CaseSpec {
    CaseSpec::new(format!("cbuffer{{float4}} load {}", pattern.name()), GLSL, [invocations, 1, 1])
        .narrowed_from(GROUP.into())
        .group("load constant")
        .label("type", "constant")
        .label("pattern", pattern.name())
        .defines([("KIND", "4"), ("WIDTH", "4"), ("PATTERN", pattern.define()), ("OFFSET", "0")])
        .resource(Resource::uniform_buffer(16384, fill_floats))
        // Constant-buffer reads may be served by a constant cache that feeds the ALUs directly,
        // so the L1's bandwidth is not a sourced bound for them.
        .work([Work::new(LOADS as f64, Unit::Load), Work::new(LOADS as f64 * 16.0, Unit::Byte)])
        .baseline(BASELINE)
        .reference(float_reference(4, pattern, invocations))
}

pub(super) const RAW: [(&str, usize, usize); 6] = [
    ("ByteAddressBuffer.Load", 1, 0),
    ("ByteAddressBuffer.Load2", 2, 0),
    ("ByteAddressBuffer.Load3", 3, 0),
    ("ByteAddressBuffer.Load4", 4, 0),
    ("ByteAddressBuffer.Load2 unaligned", 2, 1),
    ("ByteAddressBuffer.Load4 unaligned", 4, 1),
];

pub(super) const STRUCTURED: [(&str, usize); 3] = [
    ("StructuredBuffer<float>.Load", 1),
    ("StructuredBuffer<float2>.Load", 2),
    ("StructuredBuffer<float4>.Load", 4),
];

fn expand(env: &Env) -> Vec<CaseSpec> {
    let n = env.workgroup_width(GROUP);
    let mut cases = Vec::new();
    for f in originals() {
        cases.extend(Pattern::ALL.map(|p| typed(f, p, View::Srv, n)));
    }
    for (base, width, offset) in RAW {
        cases.extend(Pattern::ALL.map(|p| raw(base, width, offset, p, View::Srv, n)));
    }
    for (base, width) in STRUCTURED {
        cases.extend(Pattern::ALL.map(|p| structured(base, width, p, View::Srv, n)));
    }
    cases.extend(Pattern::ALL.map(|p| constant(p, n)));
    cases
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "buffer loads as sebbbi/perftest: typed (uniform texel) buffers in nine formats, raw words \
                       (ByteAddressBuffer), structured float/vec2/vec4, and a constant buffer; L1-resident \
                       (at most 8 KB), uniform, linear and random addresses",
            invocation: "256 loads from a start chosen by the pattern (uniform: 0; linear: its index; random: a \
                         hash in 0..15), summed, through groupshared memory to the result write",
            rate: "loads per second, and bytes per second (the load's width)",
        },
        name: "load",
        order: 100,
        axes: &[],
        ratio_note: Some("\"Buffer<RGBA8>.Load random\""),
        levels: false,
        device_cases: false,
        quick: &[
            "Buffer<RGBA8>.Load random",
            "Buffer<R32f>.Load linear",
            "Buffer<RGBA32f>.Load linear",
            "ByteAddressBuffer.Load linear",
            "ByteAddressBuffer.Load4 uniform",
            "ByteAddressBuffer.Load4 linear",
            "ByteAddressBuffer.Load4 random",
            "StructuredBuffer<float>.Load linear",
            "StructuredBuffer<float4>.Load linear",
            "StructuredBuffer<float4>.Load random",
        ],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_stay_inside_the_buffers() {
        for pattern in Pattern::ALL {
            let last = (0..256).map(|tid| start(pattern, tid)).max().unwrap() + LOADS - 1;
            assert!(last < ELEMENTS, "{pattern:?} reads element {last}");
        }
        let random: std::collections::HashSet<usize> =
            (0..256).map(|tid| start(Pattern::Random, tid)).collect();
        assert_eq!(random.len(), 16, "random starts cover 0..15");
    }

    #[test]
    fn raw_sums_never_hit_the_sentinel() {
        // Timing runs write a result only if it equals the sentinel (u32::MAX): raw sums must not.
        for (_, width, offset) in RAW {
            for pattern in Pattern::ALL {
                for gid in 0..256 {
                    assert_ne!(raw_sum(start(pattern, partner(gid, GROUP)), width, offset), u32::MAX);
                }
            }
        }
    }

    #[test]
    fn raw_loads_stay_inside_the_buffer() {
        for (base, width, offset) in RAW {
            assert!((ELEMENTS - 1) * width + offset + width <= RAW_WORDS, "{base}");
        }
    }
}
