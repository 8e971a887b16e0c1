//! A case as owned plain data: what to compile, what to bind, what to push, what it does, what it needs.
//!
//! Families build [`CaseSpec`]s at run time (see [`super::Family::expand`]); the runner turns one
//! into Vulkan objects. A case never sees Vulkan: resources are descriptions with a fill function,
//! the push block is bytes, and the CPU reference is a function of the invocation index.

use std::sync::Arc;

use ash::vk;

use crate::caps::Requirements;

/// One GLSL file from `glsl/`, embedded in the binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

impl Work {
    /// `per_invocation` of `unit`.
    pub const fn new(per_invocation: f64, unit: Unit) -> Self {
        Self { per_invocation, unit }
    }
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

/// Writes a resource's initial contents (the CPU reference reads the same data).
pub type Fill = Arc<dyn Fn(&mut [u8]) + Send + Sync>;

/// What invocation `index` of a verify run writes, as the CPU computes it.
pub type Reference = Arc<dyn Fn(u32) -> Value + Send + Sync>;

/// What kind of resource, and its size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ResourceKind {
    /// A storage buffer (`buffer` block, std430).
    StorageBuffer {
        /// Size in bytes.
        bytes: u64,
    },
    /// A uniform buffer (at most 16384 bytes: the range every device offers).
    UniformBuffer {
        /// Size in bytes.
        bytes: u64,
    },
    /// A uniform texel buffer (`textureBuffer`) viewed as `format`.
    UniformTexelBuffer {
        /// The view's format.
        format: vk::Format,
        /// Size in bytes.
        bytes: u64,
    },
    /// A storage texel buffer (`imageBuffer`) viewed as `format`.
    StorageTexelBuffer {
        /// The view's format.
        format: vk::Format,
        /// Size in bytes.
        bytes: u64,
    },
    /// A sampled 2D image with a sampler (a combined image sampler), repeat addressing, level 0.
    SampledImage {
        /// The image's format.
        format: vk::Format,
        /// Width and height in texels.
        size: [u32; 2],
        /// The sampler's filter (loads ignore it).
        filter: vk::Filter,
    },
    /// A storage 2D image (`image2D`), in the GENERAL layout.
    StorageImage {
        /// The image's format.
        format: vk::Format,
        /// Width and height in texels.
        size: [u32; 2],
    },
    /// A storage buffer reached through its device address (`buffer_reference`), not a descriptor:
    /// the 8-byte address is written into the family's push block at `push_offset`.
    BufferAddress {
        /// Size in bytes.
        bytes: u64,
        /// Byte offset of the address within the family's push block (a multiple of 8).
        push_offset: u32,
    },
}

/// Where a resource's memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Device-local memory, uploaded through a staging buffer (the default).
    DeviceLocal,
    /// Host-visible memory the shader reads across the bus (or from BAR memory).
    HostVisible,
}

/// Whether the shader writes a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read only.
    ReadOnly,
    /// Read and written.
    ReadWrite,
}

/// How a read-write resource is put back before each measurement (outside the timestamps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reset {
    /// Every 32-bit word set to this value (`vkCmdFillBuffer`; buffers only).
    Fill(u32),
    /// The initial contents copied back from a pristine device-local copy.
    Initial,
}

/// A resource a case binds. Descriptor-bound resources take bindings 1, 2, ... in order
/// (binding 0 is the results buffer); [`ResourceKind::BufferAddress`] takes none.
#[derive(Clone)]
pub struct Resource {
    /// Kind and size.
    pub kind: ResourceKind,
    /// Device-local or host-visible.
    pub placement: Placement,
    /// Read-only or read-write.
    pub access: Access,
    /// What happens before each measurement.
    pub reset: Option<Reset>,
    /// The initial contents; `None` leaves them zero.
    pub fill: Option<Fill>,
}

impl std::fmt::Debug for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resource")
            .field("kind", &self.kind)
            .field("placement", &self.placement)
            .field("access", &self.access)
            .field("reset", &self.reset)
            .field("filled", &self.fill.is_some())
            .finish()
    }
}

impl Resource {
    /// A read-only, device-local resource of `kind` filled by `fill`.
    pub fn new(kind: ResourceKind, fill: impl Fn(&mut [u8]) + Send + Sync + 'static) -> Self {
        Self {
            kind,
            placement: Placement::DeviceLocal,
            access: Access::ReadOnly,
            reset: None,
            fill: Some(Arc::new(fill)),
        }
    }

    /// A read-only storage buffer.
    pub fn storage_buffer(bytes: u64, fill: impl Fn(&mut [u8]) + Send + Sync + 'static) -> Self {
        Self::new(ResourceKind::StorageBuffer { bytes }, fill)
    }

    /// A uniform buffer.
    pub fn uniform_buffer(bytes: u64, fill: impl Fn(&mut [u8]) + Send + Sync + 'static) -> Self {
        Self::new(ResourceKind::UniformBuffer { bytes }, fill)
    }

    /// A uniform texel buffer of `format`.
    pub fn texel_buffer(
        format: vk::Format,
        bytes: u64,
        fill: impl Fn(&mut [u8]) + Send + Sync + 'static,
    ) -> Self {
        Self::new(ResourceKind::UniformTexelBuffer { format, bytes }, fill)
    }

    /// A sampled image of `format`, texels row by row, tightly packed.
    pub fn sampled_image(
        format: vk::Format,
        size: [u32; 2],
        filter: vk::Filter,
        fill: impl Fn(&mut [u8]) + Send + Sync + 'static,
    ) -> Self {
        Self::new(ResourceKind::SampledImage { format, size, filter }, fill)
    }

    /// Places the resource in host-visible memory.
    pub fn host_visible(mut self) -> Self {
        self.placement = Placement::HostVisible;
        self
    }

    /// Makes the resource writable by the shader.
    pub fn read_write(mut self) -> Self {
        self.access = Access::ReadWrite;
        self
    }

    /// Resets the resource before each measurement (and before a verify run).
    pub fn reset(mut self, reset: Reset) -> Self {
        self.reset = Some(reset);
        self
    }

    /// Whether the resource takes a descriptor binding.
    pub fn has_binding(&self) -> bool {
        !matches!(self.kind, ResourceKind::BufferAddress { .. })
    }
}

/// Whether a dispatch is timed or verified; the shader is the same SPIR-V in both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Timing: the guarded result write never happens.
    Time,
    /// Verification: every invocation writes its result.
    Verify,
}

/// Bytes of the push-constant header every shader starts with (`Params` in glsl/common.glsl):
/// write_enable, address_mask, sentinel, reserved.
pub const HEADER_BYTES: usize = 16;
/// The largest push-constant block every Vulkan device accepts.
pub const MAX_PUSH_BYTES: usize = 128;
/// The result that triggers the guarded write in timing runs: a NaN pattern no case produces.
pub const SENTINEL: u32 = u32::MAX;

/// The family's own push constants, after the common header; one block per mode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Push {
    /// The block in timing runs.
    pub time: Vec<u8>,
    /// The block in verify runs.
    pub verify: Vec<u8>,
}

impl Push {
    /// The same 32-bit words in both modes.
    pub fn words(words: &[u32]) -> Self {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        Self { time: bytes.clone(), verify: bytes }
    }

    /// Different words per mode (they must be as long).
    pub fn per_mode(time: &[u32], verify: &[u32]) -> Self {
        Self { time: Push::words(time).time, verify: Push::words(verify).verify }
    }

    /// The whole push-constant block: the header, then the family's block for `mode`.
    pub fn bytes(&self, mode: Mode) -> Vec<u8> {
        let write_enable = u32::from(mode == Mode::Verify);
        let header = [write_enable, 0, SENTINEL, 0];
        let block = match mode {
            Mode::Time => &self.time,
            Mode::Verify => &self.verify,
        };
        header.iter().flat_map(|w| w.to_ne_bytes()).chain(block.iter().copied()).collect()
    }

    /// Size of the whole block in bytes.
    pub fn size(&self) -> usize {
        HEADER_BYTES + self.time.len().max(self.verify.len())
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

/// One case, owned: a permutation of its family's shader with its resources and reference.
#[derive(Clone)]
pub struct CaseSpec {
    /// The name printed and matched by `--filter`.
    pub name: String,
    /// The registering family's name (set by the registry after expansion).
    pub family: &'static str,
    /// The group reports and plots draw it in (a panel); the family name unless set.
    pub group: String,
    /// The name without its axis values: plots draw one line per variant across an axis.
    pub variant: String,
    /// The family's axis values that made this case (`n` = 64).
    pub axes: Vec<(&'static str, u64)>,
    /// The shader.
    pub glsl: Glsl,
    /// Preprocessor defines (`NAME`, `value`) that make this permutation.
    pub defines: Vec<(String, String)>,
    /// Workgroup size, passed to the shader as `LOCAL_SIZE_X/Y/Z`.
    pub local_size: [u32; 3],
    /// Resources, bound in order from binding 1.
    pub resources: Vec<Resource>,
    /// The family's push constants.
    pub push: Push,
    /// What one invocation does; the first entry is the headline rate.
    pub work: Vec<Work>,
    /// What the device must offer.
    pub requires: Requirements,
    /// The case whose rate is 1.0x in this case's ratio, if it reports one.
    pub baseline: Option<String>,
    /// The CPU reference of a verify run.
    pub reference: Reference,
}

impl std::fmt::Debug for CaseSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaseSpec")
            .field("name", &self.name)
            .field("family", &self.family)
            .field("defines", &self.defines)
            .field("local_size", &self.local_size)
            .field("resources", &self.resources)
            .finish_non_exhaustive()
    }
}

impl CaseSpec {
    /// A case named `name` running `glsl` in workgroups of `local_size`, with nothing else yet.
    pub fn new(name: impl Into<String>, glsl: Glsl, local_size: [u32; 3]) -> Self {
        let name = name.into();
        Self {
            variant: name.clone(),
            name,
            family: "",
            group: String::new(),
            axes: Vec::new(),
            glsl,
            defines: Vec::new(),
            local_size,
            resources: Vec::new(),
            push: Push::default(),
            work: Vec::new(),
            requires: Requirements::new(),
            baseline: None,
            reference: Arc::new(|_| Value::U32(0)),
        }
    }

    /// Adds preprocessor defines.
    pub fn defines<'a>(mut self, defines: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        self.defines.extend(defines.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())));
        self
    }

    /// Adds a resource (the next binding, unless it is a buffer address).
    pub fn resource(mut self, resource: Resource) -> Self {
        self.resources.push(resource);
        self
    }

    /// Sets the push block.
    pub fn push(mut self, push: Push) -> Self {
        self.push = push;
        self
    }

    /// Sets the work per invocation (the first unit is the headline rate).
    pub fn work(mut self, work: impl IntoIterator<Item = Work>) -> Self {
        self.work = work.into_iter().collect();
        self
    }

    /// Sets the requirements.
    pub fn requires(mut self, requires: Requirements) -> Self {
        self.requires = requires;
        self
    }

    /// Sets the baseline case's name.
    pub fn baseline(mut self, name: impl Into<String>) -> Self {
        self.baseline = Some(name.into());
        self
    }

    /// Sets the CPU reference.
    pub fn reference(mut self, reference: impl Fn(u32) -> Value + Send + Sync + 'static) -> Self {
        self.reference = Arc::new(reference);
        self
    }

    /// Sets the report group.
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.group = group.into();
        self
    }

    /// Records an axis value, and the variant name that stays the same along the axis.
    pub fn axis(mut self, axis: &'static str, value: u64, variant: impl Into<String>) -> Self {
        self.axes.push((axis, value));
        self.variant = variant.into();
        self
    }

    /// Invocations in one workgroup.
    pub fn invocations_per_group(&self) -> u64 {
        self.local_size.iter().map(|&n| u64::from(n)).product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_values_tolerate_rounding_only() {
        let expected = Value::F32Near(1000.0);
        assert!(expected.matches(1000.005f32.to_bits()));
        assert!(!expected.matches(1000.05f32.to_bits()));
        assert!(!Value::F32(1.0).matches(1.0000001f32.to_bits()));
        assert!(Value::U32(7).matches(7));
    }

    #[test]
    fn the_push_block_is_the_header_then_the_family_words() {
        let push = Push::per_mode(&[2.0f32.to_bits()], &[1.0f32.to_bits()]);
        let verify = push.bytes(Mode::Verify);
        assert_eq!(verify.len(), HEADER_BYTES + 4);
        assert_eq!(&verify[0..4], &1u32.to_ne_bytes(), "write_enable");
        assert_eq!(&verify[4..8], &0u32.to_ne_bytes(), "address_mask");
        assert_eq!(&verify[8..12], &SENTINEL.to_ne_bytes());
        assert_eq!(&verify[16..20], &1.0f32.to_ne_bytes());
        let time = push.bytes(Mode::Time);
        assert_eq!(&time[0..4], &0u32.to_ne_bytes());
        assert_eq!(&time[16..20], &2.0f32.to_ne_bytes());
        assert_eq!(push.size(), 20);
        assert_eq!(Push::default().size(), HEADER_BYTES);
    }
}
