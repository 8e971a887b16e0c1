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

impl Family {
    /// Invocations in one workgroup.
    pub fn invocations_per_group(&self) -> u64 {
        self.local_size.iter().map(|&n| u64::from(n)).product()
    }
}

inventory::collect!(Family);

mod sweep;
pub use sweep::{all, all_with, swept, Sweep, SWEEP_SHIFT};

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
mod tests;
