//! The case descriptors that families register with `inventory`, and how a run picks and orders them.
//!
//! A family is one GLSL snippet plus a list of cases; each case is a permutation of
//! that snippet (a list of defines), the work one invocation does (so times become
//! rates), the device features it needs, and a CPU reference for `--verify`.
//! Everything here is `const`-constructible, as `inventory::submit!` requires.

use ash::vk;

use crate::error::{Error, Result};

/// One GLSL file from `glsl/`, embedded in the binary.
#[derive(Clone, Copy, Debug)]
pub struct Glsl {
    /// The file name under `glsl/`, used in compiler messages.
    pub file: &'static str,
    /// The file's text (`include_str!`).
    pub source: &'static str,
}

/// A quantity of work, so a time becomes a rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    /// How much one shader invocation does.
    pub per_invocation: f64,
    /// What is counted.
    pub unit: Unit,
}

/// What a [`Work`] counts; each unit has the name its rate is printed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Floating-point operations (an FMA is two).
    Flop,
    /// Integer operations (a multiply-add is two).
    IntOp,
    /// Shader loads (one texelFetch, one buffer read of 1-4 words, one sample).
    Load,
    /// Bytes loaded.
    Byte,
    /// Shader invocations (threads) run to completion.
    Invocation,
}

impl Unit {
    /// The rate's unit, printed after an SI prefix (`65.2 TFLOPS`).
    pub fn rate_name(self) -> &'static str {
        match self {
            Unit::Flop => "FLOPS",
            Unit::IntOp => "IOPS",
            Unit::Load => "loads/s",
            Unit::Byte => "B/s",
            Unit::Invocation => "invocations/s",
        }
    }

    /// The amount's unit, for reports (`1.2 GFLOP`).
    pub fn amount_name(self) -> &'static str {
        match self {
            Unit::Flop => "FLOP",
            Unit::IntOp => "IOP",
            Unit::Load => "loads",
            Unit::Byte => "B",
            Unit::Invocation => "invocations",
        }
    }
}

/// A device capability a case needs; an unmet one makes the case `skipped (reason)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// `shaderFloat16` (Vulkan 1.2 / VK_KHR_shader_float16_int8).
    ShaderFloat16,
    /// `shaderFloat64` (Vulkan 1.0 core feature).
    ShaderFloat64,
    /// The format can back a uniform texel buffer (`UNIFORM_TEXEL_BUFFER` buffer feature).
    UniformTexelBuffer(vk::Format),
    /// The format can be a sampled image with optimal tiling (`SAMPLED_IMAGE`).
    SampledImage(vk::Format),
    /// The format can be linearly filtered (`SAMPLED_IMAGE_FILTER_LINEAR`).
    LinearFilter(vk::Format),
    /// Workgroups of this many invocations (`maxComputeWorkGroupInvocations`).
    WorkgroupInvocations(u32),
}

/// What the device offers, as far as [`Requirement`]s are concerned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// `shaderFloat16` is supported.
    pub shader_float16: bool,
    /// `shaderFloat64` is supported.
    pub shader_float64: bool,
    /// VK_KHR_pipeline_executable_properties is enabled: the driver reports shader statistics.
    pub pipeline_statistics: bool,
    /// The formats (of those the registered cases use) that can back uniform texel buffers.
    pub uniform_texel_buffer_formats: Vec<vk::Format>,
    /// The formats (of those the registered cases use) that can be sampled images.
    pub sampled_image_formats: Vec<vk::Format>,
    /// The formats (of those the registered cases use) that can be linearly filtered.
    pub linear_filter_formats: Vec<vk::Format>,
    /// `maxComputeWorkGroupInvocations`.
    pub max_workgroup_invocations: u32,
}

impl Requirement {
    /// Why `caps` cannot run a case with this requirement, or `None` if it can.
    pub fn unmet(self, caps: &Capabilities) -> Option<String> {
        match self {
            Requirement::ShaderFloat16 if !caps.shader_float16 => {
                Some("the device lacks shaderFloat16".into())
            }
            Requirement::ShaderFloat64 if !caps.shader_float64 => {
                Some("the device lacks shaderFloat64".into())
            }
            Requirement::UniformTexelBuffer(format)
                if !caps.uniform_texel_buffer_formats.contains(&format) =>
            {
                Some(format!("the device cannot use {format:?} in a uniform texel buffer"))
            }
            Requirement::SampledImage(format) if !caps.sampled_image_formats.contains(&format) => {
                Some(format!("the device cannot sample {format:?} images"))
            }
            Requirement::LinearFilter(format) if !caps.linear_filter_formats.contains(&format) => {
                Some(format!("the device cannot filter {format:?} images linearly"))
            }
            Requirement::WorkgroupInvocations(n) if caps.max_workgroup_invocations < n => Some(format!(
                "the device allows {} invocations per workgroup, the case needs {n}",
                caps.max_workgroup_invocations
            )),
            _ => None,
        }
    }
}

/// A buffer a family binds besides the results buffer (binding 0), at bindings 1, 2, ...
#[derive(Clone, Copy, Debug)]
pub enum Resource {
    /// A read-only storage buffer of `bytes` bytes, filled once by `fill`.
    StorageBuffer {
        /// Size in bytes.
        bytes: u64,
        /// Writes the deterministic contents; the CPU reference reads the same data.
        fill: fn(&mut [u8]),
    },
    /// A uniform buffer of `bytes` bytes (at most 16384, the limit every device offers).
    UniformBuffer {
        /// Size in bytes.
        bytes: u64,
        /// Writes the contents.
        fill: fn(&mut [u8]),
    },
    /// A sampled 2D image with a sampler (a combined image sampler), uploaded once.
    Image2D {
        /// The image's format.
        format: vk::Format,
        /// Width and height in texels.
        size: [u32; 2],
        /// Bytes per texel (for the tightly packed upload).
        texel_bytes: u64,
        /// The sampler's filter (loads ignore it).
        filter: vk::Filter,
        /// Writes the texels, row by row.
        fill: fn(&mut [u8]),
    },
    /// A uniform texel buffer of `bytes` bytes viewed as `format`.
    TexelBuffer {
        /// The view's format.
        format: vk::Format,
        /// Size in bytes.
        bytes: u64,
        /// Writes the contents.
        fill: fn(&mut [u8]),
    },
}

/// Whether a dispatch is timed or verified; the shader is the same SPIR-V in both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Timing: the guarded result write never happens.
    Time,
    /// Verification: every invocation writes its result.
    Verify,
}

/// The push constants every shader sees (`Params` in glsl/common.glsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Params {
    /// 1 in verify runs: every invocation writes its result.
    pub write_enable: u32,
    /// Always 0: ANDed into addresses so the compiler cannot merge loads.
    pub address_mask: u32,
    /// A result bit pattern that, if produced, also triggers the write; chosen never to occur
    /// in timing runs. It makes the results depend on the work, so the work cannot be sunk
    /// into the never-taken write branch.
    pub sentinel: u32,
    /// A family-specific integer.
    pub u0: u32,
    /// Family-specific floats.
    pub f: [f32; 4],
}

impl Params {
    /// The bytes pushed with `vkCmdPushConstants`.
    pub fn as_bytes(&self) -> [u8; 32] {
        let words = [
            self.write_enable,
            self.address_mask,
            self.sentinel,
            self.u0,
            self.f[0].to_bits(),
            self.f[1].to_bits(),
            self.f[2].to_bits(),
            self.f[3].to_bits(),
        ];
        let mut bytes = [0u8; 32];
        for (chunk, word) in bytes.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&word.to_ne_bytes());
        }
        bytes
    }
}

/// One invocation's result as the CPU reference computes it; the GPU's word is read as the same type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A float, compared bit for bit (the reference is built to be exact).
    F32(f32),
    /// A float that may differ in the last bits: the GPU's format conversions (UNORM to float)
    /// may round differently; within [`NEAR`] of the magnitude it matches.
    F32Near(f32),
    /// An unsigned integer.
    U32(u32),
}

/// The relative tolerance of [`Value::F32Near`].
pub const NEAR: f32 = 1e-5;

impl Value {
    /// Whether the GPU's word `bits` is this value.
    pub fn matches(self, bits: u32) -> bool {
        match self {
            Value::F32(v) => v.to_bits() == bits,
            Value::F32Near(v) => {
                let got = f32::from_bits(bits);
                (got - v).abs() <= NEAR * v.abs().max(1.0)
            }
            Value::U32(v) => v == bits,
        }
    }

    /// A GPU word read as the same type as `self`, for messages.
    pub fn same_type(self, bits: u32) -> Value {
        match self {
            Value::F32(_) | Value::F32Near(_) => Value::F32(f32::from_bits(bits)),
            Value::U32(_) => Value::U32(bits),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::F32(v) => write!(f, "{v:?}"),
            Value::F32Near(v) => write!(f, "{v:?} (within {NEAR:e})"),
            Value::U32(v) => write!(f, "{v}"),
        }
    }
}

/// One registered case: a permutation of its family's shader.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// The name printed and matched by `--filter`.
    pub name: &'static str,
    /// Preprocessor defines (`NAME`, `value`) that make this permutation.
    pub defines: &'static [(&'static str, &'static str)],
    /// What one invocation does; the first entry is the headline rate.
    pub work: &'static [Work],
    /// Device capabilities the case needs.
    pub requires: &'static [Requirement],
    /// A family-private variant number for `params` and `reference`.
    pub variant: u32,
}

/// A self-registering family of cases (submit one with `inventory::submit!`).
pub struct Family {
    /// Short family name (`alu`).
    pub name: &'static str,
    /// Families run in ascending `order`; cases within a family in declared order.
    pub order: u32,
    /// The family's GLSL snippet; it includes `common.glsl`.
    pub glsl: Glsl,
    /// Workgroup size, passed to the shader as `LOCAL_SIZE_X/Y/Z`.
    pub local_size: [u32; 3],
    /// Buffers bound at bindings 1, 2, ... (binding 0 is always the results buffer).
    pub resources: &'static [Resource],
    /// The cases, in run order.
    pub cases: &'static [Case],
    /// Push constants for a case in a mode.
    pub params: fn(&Case, Mode) -> Params,
    /// The CPU reference: what invocation `index` of a verify run writes.
    pub reference: fn(&Case, u32) -> Value,
    /// The case whose rate is 1.0x in this family's ratios, if the family reports ratios.
    /// In a swept family, a template name: the baseline of `NX case` is `NX baseline`.
    pub baseline: Option<&'static str>,
    /// Whether the cases are templates swept over a run-time value N (see [`Sweep`]).
    pub sweep: bool,
}

/// The values N of a swept family's cases: FROM to TO inclusive, every STEP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sweep {
    /// First value.
    pub from: u32,
    /// Last value (included when FROM + k * STEP reaches it).
    pub to: u32,
    /// Increment, at least 1.
    pub step: u32,
}

/// Bits of `Case::variant` below this hold the template's variant; N sits above.
pub const SWEEP_SHIFT: u32 = 16;

impl Sweep {
    /// 0 to 256 in steps of 8.
    pub const DEFAULT: Sweep = Sweep { from: 0, to: 256, step: 8 };

    /// The values, in order.
    pub fn values(self) -> impl Iterator<Item = u32> {
        (self.from..=self.to).step_by(self.step as usize)
    }

    /// Parses `FROM:TO:STEP` (N at most 65535, STEP at least 1).
    pub fn parse(text: &str) -> Result<Sweep, String> {
        let numbers: Vec<Result<u32, _>> = text.split(':').map(str::parse::<u32>).collect();
        match numbers.as_slice() {
            [Ok(from), Ok(to), Ok(step)] if from <= to && *step >= 1 && *to < (1 << (32 - SWEEP_SHIFT)) => {
                Ok(Sweep { from: *from, to: *to, step: *step })
            }
            _ => {
                Err("expected FROM:TO:STEP with FROM <= TO <= 65535 and STEP >= 1, for example 0:256:8"
                    .into())
            }
        }
    }
}

/// The swept value N of an expanded case.
pub fn swept(case: &Case) -> u32 {
    case.variant >> SWEEP_SHIFT
}

impl Family {
    /// Invocations in one workgroup.
    pub fn invocations_per_group(&self) -> u64 {
        self.local_size.iter().map(|&n| u64::from(n)).product()
    }
}

inventory::collect!(Family);

/// A case together with its family.
#[derive(Clone, Copy)]
pub struct Selected {
    /// The family the case belongs to.
    pub family: &'static Family,
    /// The case.
    pub case: &'static Case,
    /// The case whose rate is 1.0x for this one, if its family reports ratios.
    pub baseline: Option<&'static str>,
}

/// The registered cases as declared (swept families unexpanded), in run order.
pub fn templates() -> Vec<Selected> {
    let mut families: Vec<&'static Family> = inventory::iter::<Family>.into_iter().collect();
    families.sort_by_key(|f| (f.order, f.name));
    families
        .into_iter()
        .flat_map(|family| {
            family.cases.iter().map(move |case| Selected { family, case, baseline: family.baseline })
        })
        .collect()
}

/// Every case in run order, with swept families expanded over [`Sweep::DEFAULT`].
pub fn all() -> Vec<Selected> {
    all_with(Sweep::DEFAULT)
}

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// Every case in run order. The templates of all swept families are expanded together where the
/// first one stands: for each N, each template, named `NX template` (the original's order).
/// Expanded cases live for the rest of the process (they are few and made once per run).
pub fn all_with(sweep: Sweep) -> Vec<Selected> {
    let templates = templates();
    let swept: Vec<Selected> = templates.iter().copied().filter(|s| s.family.sweep).collect();
    let mut out = Vec::with_capacity(templates.len());
    let mut expanded = false;
    for s in templates {
        if !s.family.sweep {
            out.push(s);
        } else if !expanded {
            expanded = true;
            for n in sweep.values() {
                for t in &swept {
                    let name = leak(format!("{n}X {}", t.case.name));
                    let variant = t.case.variant | (n << SWEEP_SHIFT);
                    let case: &'static Case = Box::leak(Box::new(Case { name, variant, ..*t.case }));
                    let baseline = t.family.baseline.map(|b| leak(format!("{n}X {b}")));
                    out.push(Selected { family: t.family, case, baseline });
                }
            }
        }
    }
    out
}

fn contains_ignore_case(name: &str, text: &str) -> bool {
    name.to_lowercase().contains(&text.to_lowercase())
}

/// Keeps the cases whose names contain `filter` and none of `skip` (case-insensitive).
pub fn filter(cases: Vec<Selected>, filter: Option<&str>, skip: &[String]) -> Result<Vec<Selected>> {
    let kept: Vec<Selected> = cases
        .into_iter()
        .filter(|s| filter.is_none_or(|f| contains_ignore_case(s.case.name, f)))
        .filter(|s| !skip.iter().any(|x| contains_ignore_case(s.case.name, x)))
        .collect();
    if kept.is_empty() {
        let mut what = Vec::new();
        if let Some(f) = filter {
            what.push(format!("--filter \"{f}\""));
        }
        what.extend(skip.iter().map(|s| format!("--skip \"{s}\"")));
        return Err(Error::NothingMatched { what: what.join(" with ") });
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(cases: &[Selected]) -> Vec<&'static str> {
        cases.iter().map(|s| s.case.name).collect()
    }

    #[test]
    fn the_registered_cases_are_exactly_these_in_this_order() {
        // Catches a family module that the linker dropped (inventory issue 9) or a reordering.
        // The load and texture cases have the names and order of sebbbi/perftest's result tables
        // (whose RTX 3090 block mislabels RGBA32F nearest-uniform as bilinear).
        let expected = [
            "Buffer<R8>.Load uniform",
            "Buffer<R8>.Load linear",
            "Buffer<R8>.Load random",
            "Buffer<RG8>.Load uniform",
            "Buffer<RG8>.Load linear",
            "Buffer<RG8>.Load random",
            "Buffer<RGBA8>.Load uniform",
            "Buffer<RGBA8>.Load linear",
            "Buffer<RGBA8>.Load random",
            "Buffer<R16f>.Load uniform",
            "Buffer<R16f>.Load linear",
            "Buffer<R16f>.Load random",
            "Buffer<RG16f>.Load uniform",
            "Buffer<RG16f>.Load linear",
            "Buffer<RG16f>.Load random",
            "Buffer<RGBA16f>.Load uniform",
            "Buffer<RGBA16f>.Load linear",
            "Buffer<RGBA16f>.Load random",
            "Buffer<R32f>.Load uniform",
            "Buffer<R32f>.Load linear",
            "Buffer<R32f>.Load random",
            "Buffer<RG32f>.Load uniform",
            "Buffer<RG32f>.Load linear",
            "Buffer<RG32f>.Load random",
            "Buffer<RGBA32f>.Load uniform",
            "Buffer<RGBA32f>.Load linear",
            "Buffer<RGBA32f>.Load random",
            "ByteAddressBuffer.Load uniform",
            "ByteAddressBuffer.Load linear",
            "ByteAddressBuffer.Load random",
            "ByteAddressBuffer.Load2 uniform",
            "ByteAddressBuffer.Load2 linear",
            "ByteAddressBuffer.Load2 random",
            "ByteAddressBuffer.Load3 uniform",
            "ByteAddressBuffer.Load3 linear",
            "ByteAddressBuffer.Load3 random",
            "ByteAddressBuffer.Load4 uniform",
            "ByteAddressBuffer.Load4 linear",
            "ByteAddressBuffer.Load4 random",
            "ByteAddressBuffer.Load2 unaligned uniform",
            "ByteAddressBuffer.Load2 unaligned linear",
            "ByteAddressBuffer.Load2 unaligned random",
            "ByteAddressBuffer.Load4 unaligned uniform",
            "ByteAddressBuffer.Load4 unaligned linear",
            "ByteAddressBuffer.Load4 unaligned random",
            "StructuredBuffer<float>.Load uniform",
            "StructuredBuffer<float>.Load linear",
            "StructuredBuffer<float>.Load random",
            "StructuredBuffer<float2>.Load uniform",
            "StructuredBuffer<float2>.Load linear",
            "StructuredBuffer<float2>.Load random",
            "StructuredBuffer<float4>.Load uniform",
            "StructuredBuffer<float4>.Load linear",
            "StructuredBuffer<float4>.Load random",
            "cbuffer{float4} load uniform",
            "cbuffer{float4} load linear",
            "cbuffer{float4} load random",
            "Texture2D<R8>.Load uniform",
            "Texture2D<R8>.Load linear",
            "Texture2D<R8>.Load random",
            "Texture2D<RG8>.Load uniform",
            "Texture2D<RG8>.Load linear",
            "Texture2D<RG8>.Load random",
            "Texture2D<RGBA8>.Load uniform",
            "Texture2D<RGBA8>.Load linear",
            "Texture2D<RGBA8>.Load random",
            "Texture2D<R16F>.Load uniform",
            "Texture2D<R16F>.Load linear",
            "Texture2D<R16F>.Load random",
            "Texture2D<RG16F>.Load uniform",
            "Texture2D<RG16F>.Load linear",
            "Texture2D<RG16F>.Load random",
            "Texture2D<RGBA16F>.Load uniform",
            "Texture2D<RGBA16F>.Load linear",
            "Texture2D<RGBA16F>.Load random",
            "Texture2D<R32F>.Load uniform",
            "Texture2D<R32F>.Load linear",
            "Texture2D<R32F>.Load random",
            "Texture2D<RG32F>.Load uniform",
            "Texture2D<RG32F>.Load linear",
            "Texture2D<RG32F>.Load random",
            "Texture2D<RGBA32F>.Load uniform",
            "Texture2D<RGBA32F>.Load linear",
            "Texture2D<RGBA32F>.Load random",
            "Texture2D<R8>.Sample(nearest) uniform",
            "Texture2D<R8>.Sample(nearest) linear",
            "Texture2D<R8>.Sample(nearest) random",
            "Texture2D<RG8>.Sample(nearest) uniform",
            "Texture2D<RG8>.Sample(nearest) linear",
            "Texture2D<RG8>.Sample(nearest) random",
            "Texture2D<RGBA8>.Sample(nearest) uniform",
            "Texture2D<RGBA8>.Sample(nearest) linear",
            "Texture2D<RGBA8>.Sample(nearest) random",
            "Texture2D<R16F>.Sample(nearest) uniform",
            "Texture2D<R16F>.Sample(nearest) linear",
            "Texture2D<R16F>.Sample(nearest) random",
            "Texture2D<RG16F>.Sample(nearest) uniform",
            "Texture2D<RG16F>.Sample(nearest) linear",
            "Texture2D<RG16F>.Sample(nearest) random",
            "Texture2D<RGBA16F>.Sample(nearest) uniform",
            "Texture2D<RGBA16F>.Sample(nearest) linear",
            "Texture2D<RGBA16F>.Sample(nearest) random",
            "Texture2D<R32F>.Sample(nearest) uniform",
            "Texture2D<R32F>.Sample(nearest) linear",
            "Texture2D<R32F>.Sample(nearest) random",
            "Texture2D<RG32F>.Sample(nearest) uniform",
            "Texture2D<RG32F>.Sample(nearest) linear",
            "Texture2D<RG32F>.Sample(nearest) random",
            "Texture2D<RGBA32F>.Sample(nearest) uniform",
            "Texture2D<RGBA32F>.Sample(nearest) linear",
            "Texture2D<RGBA32F>.Sample(nearest) random",
            "Texture2D<R8>.Sample(bilinear) uniform",
            "Texture2D<R8>.Sample(bilinear) linear",
            "Texture2D<R8>.Sample(bilinear) random",
            "Texture2D<RG8>.Sample(bilinear) uniform",
            "Texture2D<RG8>.Sample(bilinear) linear",
            "Texture2D<RG8>.Sample(bilinear) random",
            "Texture2D<RGBA8>.Sample(bilinear) uniform",
            "Texture2D<RGBA8>.Sample(bilinear) linear",
            "Texture2D<RGBA8>.Sample(bilinear) random",
            "Texture2D<R16F>.Sample(bilinear) uniform",
            "Texture2D<R16F>.Sample(bilinear) linear",
            "Texture2D<R16F>.Sample(bilinear) random",
            "Texture2D<RG16F>.Sample(bilinear) uniform",
            "Texture2D<RG16F>.Sample(bilinear) linear",
            "Texture2D<RG16F>.Sample(bilinear) random",
            "Texture2D<RGBA16F>.Sample(bilinear) uniform",
            "Texture2D<RGBA16F>.Sample(bilinear) linear",
            "Texture2D<RGBA16F>.Sample(bilinear) random",
            "Texture2D<R32F>.Sample(bilinear) uniform",
            "Texture2D<R32F>.Sample(bilinear) linear",
            "Texture2D<R32F>.Sample(bilinear) random",
            "Texture2D<RG32F>.Sample(bilinear) uniform",
            "Texture2D<RG32F>.Sample(bilinear) linear",
            "Texture2D<RG32F>.Sample(bilinear) random",
            "Texture2D<RGBA32F>.Sample(bilinear) uniform",
            "Texture2D<RGBA32F>.Sample(bilinear) linear",
            "Texture2D<RGBA32F>.Sample(bilinear) random",
            "Coherent branch baseline",
            "Coherent branch long",
            "Coherent branch short",
            "Divergent branch baseline",
            "Divergent branch long",
            "Divergent branch short",
            "All-taken branch baseline",
            "All-taken branch long",
            "All-taken branch short",
            "None-taken branch baseline",
            "None-taken branch long",
            "None-taken branch short",
            "ALU fp32 FMA",
            "ALU fp16 FMA (f16vec2)",
            "ALU fp64 FMA",
            "ALU int32 multiply-add",
        ];
        assert_eq!(names(&templates()), expected);
    }

    #[test]
    fn names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for name in names(&all()) {
            assert!(seen.insert(name), "duplicate case name {name}");
        }
    }

    #[test]
    fn filter_is_case_insensitive_and_skip_wins() {
        let fp = filter(all(), Some("ALU FP"), &[]).unwrap();
        assert_eq!(names(&fp), ["ALU fp32 FMA", "ALU fp16 FMA (f16vec2)", "ALU fp64 FMA"]);
        let no64 = filter(all(), Some("alu fp"), &["fp64".into(), "FP16".into()]).unwrap();
        assert_eq!(names(&no64), ["ALU fp32 FMA"]);
    }

    #[test]
    fn a_filter_that_matches_nothing_is_an_error_naming_it() {
        let error = filter(all(), Some("fp128"), &[]).err().unwrap();
        assert_eq!(error.exit_code(), crate::ExitCode::NothingMatched);
        assert!(error.to_string().contains("--filter \"fp128\""), "{error}");
        // Every case name contains an "a" (Load, Sample, branch, ALU).
        let skip = ["a".into(), "zzz".into()];
        let error = filter(all(), None, &skip).err().unwrap();
        let expected = "--skip \"a\" with --skip \"zzz\"";
        assert!(error.to_string().contains(expected), "{error}");
    }

    #[test]
    fn requirements_name_the_missing_feature() {
        let none = Capabilities::default();
        assert_eq!(Requirement::ShaderFloat16.unmet(&none).unwrap(), "the device lacks shaderFloat16");
        assert_eq!(Requirement::ShaderFloat64.unmet(&none).unwrap(), "the device lacks shaderFloat64");
        let r8 = Requirement::UniformTexelBuffer(vk::Format::R8_UNORM);
        assert_eq!(r8.unmet(&none).unwrap(), "the device cannot use R8_UNORM in a uniform texel buffer");
        let all = Capabilities {
            shader_float16: true,
            shader_float64: true,
            pipeline_statistics: false,
            uniform_texel_buffer_formats: vec![vk::Format::R8_UNORM],
            ..Capabilities::default()
        };
        assert_eq!(Requirement::ShaderFloat16.unmet(&all), None);
        assert_eq!(Requirement::ShaderFloat64.unmet(&all), None);
        assert_eq!(r8.unmet(&all), None);
        let rgba32 = vk::Format::R32G32B32A32_SFLOAT;
        let expected = "the device cannot filter R32G32B32A32_SFLOAT images linearly";
        assert_eq!(Requirement::LinearFilter(rgba32).unmet(&all).unwrap(), expected);
        let expected = "the device cannot sample R32G32B32A32_SFLOAT images";
        assert_eq!(Requirement::SampledImage(rgba32).unmet(&all).unwrap(), expected);
        let expected = "the device allows 0 invocations per workgroup, the case needs 1024";
        assert_eq!(Requirement::WorkgroupInvocations(1024).unmet(&all).unwrap(), expected);
    }

    #[test]
    fn near_values_tolerate_rounding_only() {
        let expected = Value::F32Near(1000.0);
        assert!(expected.matches(1000.005f32.to_bits()));
        assert!(!expected.matches(1000.05f32.to_bits()));
        assert!(!Value::F32(1.0).matches(1.0000001f32.to_bits()));
        assert!(Value::U32(7).matches(7));
    }

    #[test]
    fn params_are_laid_out_as_eight_words() {
        let params = Params { write_enable: 1, sentinel: 7, f: [2.0, 0.0, 0.0, 0.0], ..Default::default() };
        let bytes = params.as_bytes();
        assert_eq!(&bytes[0..4], &1u32.to_ne_bytes());
        assert_eq!(&bytes[8..12], &7u32.to_ne_bytes());
        assert_eq!(&bytes[16..20], &2.0f32.to_ne_bytes());
    }
}
