//! What a device offers and what a case needs, as plain data: features, limits and format uses.
//!
//! The registry states each case's [`Requirements`]; `vk/` fills a [`DeviceCaps`] from the
//! device. "Unmet" is a set difference with one reason per missing item, and the device is
//! created with the union of what the selected cases need. Neither side imports the other.

pub mod boards;
pub mod component;
mod features;
pub mod info;
pub mod link;
pub mod memory;
pub mod peaks;
pub mod profile;
pub mod queues;
pub mod steps;

use std::collections::BTreeSet;

use ash::vk;

pub use features::{Feature, FeatureSet, COOPERATIVE_MATRIX2, SHADER_BFLOAT16};
pub use info::{kind_name, ComputeUnits, DeviceInfo, Identity, Row};
pub use link::HostLink;
pub use memory::{Footprint, MemoryKind, MemoryType};
pub use peaks::{Architecture, Ceiling, NVIDIA};
pub use queues::{QueueFamily, QueueKind};
pub use steps::Steps;

/// A way a case uses a format, checked against `vkGetPhysicalDeviceFormatProperties`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FormatUse {
    /// A uniform texel buffer (`textureBuffer` + `texelFetch`).
    UniformTexelBuffer,
    /// A storage texel buffer (`imageBuffer` + `imageLoad`/`imageStore`).
    StorageTexelBuffer,
    /// A sampled image with optimal tiling.
    SampledImage,
    /// A sampled image filtered linearly.
    LinearFilter,
    /// A storage image with optimal tiling.
    StorageImage,
}

impl FormatUse {
    /// Whether `props` allow this use.
    pub fn allowed(self, props: &vk::FormatProperties) -> bool {
        let (features, flag) = match self {
            FormatUse::UniformTexelBuffer => {
                (props.buffer_features, vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER)
            }
            FormatUse::StorageTexelBuffer => {
                (props.buffer_features, vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER)
            }
            FormatUse::SampledImage => (props.optimal_tiling_features, vk::FormatFeatureFlags::SAMPLED_IMAGE),
            FormatUse::LinearFilter => {
                (props.optimal_tiling_features, vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR)
            }
            FormatUse::StorageImage => (props.optimal_tiling_features, vk::FormatFeatureFlags::STORAGE_IMAGE),
        };
        features.contains(flag)
    }

    fn reason(self, format: vk::Format) -> String {
        match self {
            FormatUse::UniformTexelBuffer => {
                format!("the device cannot use {format:?} in a uniform texel buffer")
            }
            FormatUse::StorageTexelBuffer => {
                format!("the device cannot use {format:?} in a storage texel buffer")
            }
            FormatUse::SampledImage => format!("the device cannot sample {format:?} images"),
            FormatUse::LinearFilter => format!("the device cannot filter {format:?} images linearly"),
            FormatUse::StorageImage => format!("the device cannot use {format:?} as a storage image"),
        }
    }
}

/// A device limit a case needs at least.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Limit {
    /// `maxComputeWorkGroupInvocations`.
    WorkgroupInvocations(u32),
    /// `maxComputeWorkGroupSize[0]`.
    WorkgroupWidth(u32),
    /// `maxComputeWorkGroupSize[1]`.
    WorkgroupHeight(u32),
    /// `maxComputeSharedMemorySize`, bytes.
    SharedMemoryBytes(u32),
    /// `maxPushConstantsSize`, bytes.
    PushConstantBytes(u32),
    /// `maxStorageBufferRange`, bytes.
    StorageBufferRange(u64),
    /// `maxUniformBufferRange`, bytes.
    UniformBufferRange(u64),
    /// `maxTexelBufferElements`.
    TexelBufferElements(u64),
    /// `maxMemoryAllocationSize` (Vulkan 1.1), bytes: the largest single buffer.
    AllocationBytes(u64),
    /// `cooperativeMatrixFlexibleDimensionsMaxDimension` (VK_NV_cooperative_matrix2).
    CooperativeMatrixDimension(u32),
    /// `cooperativeMatrixWorkgroupScopeMaxWorkgroupSize` (VK_NV_cooperative_matrix2).
    CooperativeMatrixWorkgroupInvocations(u32),
}

/// The device limits that [`Limit`]s are checked against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// `maxComputeWorkGroupInvocations`.
    pub workgroup_invocations: u32,
    /// `maxComputeWorkGroupSize`: the most invocations along x, y and z.
    pub workgroup_size: [u32; 3],
    /// `maxComputeSharedMemorySize`.
    pub shared_memory_bytes: u32,
    /// `maxPushConstantsSize`.
    pub push_constant_bytes: u32,
    /// `maxStorageBufferRange`.
    pub storage_buffer_range: u64,
    /// `maxUniformBufferRange`.
    pub uniform_buffer_range: u64,
    /// `maxTexelBufferElements`.
    pub texel_buffer_elements: u64,
    /// `maxMemoryAllocationSize`.
    pub allocation_bytes: u64,
    /// `cooperativeMatrixFlexibleDimensionsMaxDimension` (0 without VK_NV_cooperative_matrix2).
    pub cooperative_matrix_dimension: u32,
    /// `cooperativeMatrixWorkgroupScopeMaxWorkgroupSize` (0 without VK_NV_cooperative_matrix2).
    pub cooperative_matrix_workgroup: u32,
}

impl Limits {
    /// The invocations along x of a one-dimensional workgroup that wants `want` (a power of two):
    /// `want`, or the largest power of two the device allows where it allows fewer. A limit of 0
    /// (not known) allows anything.
    pub fn workgroup_width(&self, want: u32) -> u32 {
        fit(want, &[self.workgroup_invocations, self.workgroup_size[0]])
    }

    /// The rows of a two-dimensional workgroup `width` invocations wide that wants `want` rows (a
    /// power of two): `want`, or the largest power of two the device allows where it allows fewer.
    pub fn workgroup_rows(&self, width: u32, want: u32) -> u32 {
        fit(want, &[self.workgroup_invocations / width.max(1), self.workgroup_size[1]])
    }
}

/// `want`, or the largest power of two within every non-zero limit in `limits` (at least 1).
fn fit(want: u32, limits: &[u32]) -> u32 {
    let room = limits.iter().copied().filter(|&l| l > 0).min().unwrap_or(u32::MAX);
    if want <= room {
        want
    } else {
        1 << room.max(1).ilog2()
    }
}

impl Limit {
    fn unmet(self, limits: &Limits) -> Option<String> {
        let (name, has, needs) = match self {
            Limit::WorkgroupInvocations(n) => {
                ("invocations per workgroup", u64::from(limits.workgroup_invocations), u64::from(n))
            }
            Limit::WorkgroupWidth(n) => {
                ("invocations along a workgroup's x", u64::from(limits.workgroup_size[0]), u64::from(n))
            }
            Limit::WorkgroupHeight(n) => {
                ("invocations along a workgroup's y", u64::from(limits.workgroup_size[1]), u64::from(n))
            }
            Limit::SharedMemoryBytes(n) => {
                ("bytes of shared memory", u64::from(limits.shared_memory_bytes), u64::from(n))
            }
            Limit::PushConstantBytes(n) => {
                ("bytes of push constants", u64::from(limits.push_constant_bytes), u64::from(n))
            }
            Limit::StorageBufferRange(n) => {
                ("bytes per storage buffer binding", limits.storage_buffer_range, n)
            }
            Limit::UniformBufferRange(n) => {
                ("bytes per uniform buffer binding", limits.uniform_buffer_range, n)
            }
            Limit::TexelBufferElements(n) => ("texel buffer elements", limits.texel_buffer_elements, n),
            Limit::AllocationBytes(n) => ("bytes per allocation", limits.allocation_bytes, n),
            Limit::CooperativeMatrixDimension(n) => (
                "rows or columns per flexible cooperative matrix",
                u64::from(limits.cooperative_matrix_dimension),
                u64::from(n),
            ),
            Limit::CooperativeMatrixWorkgroupInvocations(n) => (
                "invocations per workgroup-scope cooperative-matrix workgroup",
                u64::from(limits.cooperative_matrix_workgroup),
                u64::from(n),
            ),
        };
        if has >= needs {
            return None;
        }
        // What the case needs comes first, so a line cut short still says it; bytes in binary units.
        let (needs, has, name) = match name.strip_prefix("bytes ") {
            Some(what) => (crate::format::format_bytes(needs), crate::format::format_bytes(has), what),
            None => (needs.to_string(), has.to_string(), name),
        };
        Some(format!("the case needs {needs} {name}; the device allows {has}"))
    }
}

/// A cooperative-matrix multiply-add the device advertises
/// (`vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR`): result = A (M x K) * B (K x N) + C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CoopMatShape {
    /// Rows of A and of the result.
    pub m: u32,
    /// Columns of B and of the result.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// A's component type.
    pub a: vk::ComponentTypeKHR,
    /// B's component type.
    pub b: vk::ComponentTypeKHR,
    /// C's component type.
    pub c: vk::ComponentTypeKHR,
    /// The result's component type.
    pub result: vk::ComponentTypeKHR,
    /// Whether the accumulation saturates.
    pub saturating: bool,
    /// Subgroup, workgroup, ... scope.
    pub scope: vk::ScopeKHR,
}

/// A shape family of VK_NV_cooperative_matrix2 (flexible dimensions): any M, N, K that are
/// multiples of the granularity, at its scope, in workgroups of `invocations`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CoopMatFlexible {
    /// The types and scope, with the granularity as m, n and k.
    pub granularity: CoopMatShape,
    /// The workgroup size the shape needs (workgroup scope).
    pub invocations: u32,
}

/// A SPIR-V float-controls execution mode for 16-bit floats a shader may declare, where the
/// device allows it (VkPhysicalDeviceFloatControlsProperties).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FloatControl {
    /// `DenormFlushToZero` (shaderDenormFlushToZeroFloat16).
    DenormFlushToZero16,
    /// `RoundingModeRTE` (shaderRoundingModeRTEFloat16).
    RoundingModeRte16,
    /// `SignedZeroInfNanPreserve` (shaderSignedZeroInfNanPreserveFloat16).
    SignedZeroInfNanPreserve16,
}

/// A memory heap of the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heap {
    /// Size in bytes.
    pub bytes: u64,
    /// Whether it is device-local (VRAM on a discrete GPU).
    pub device_local: bool,
    /// Bytes free in it when perftest started (VK_EXT_memory_budget: its budget less its use);
    /// `None` where the device does not say.
    pub free: Option<u64>,
}

/// Everything the registry may ask about a device: features, limits, formats, subgroups, memory.
#[derive(Clone, Debug, Default)]
pub struct DeviceCaps {
    /// The optional features the device supports.
    pub features: FeatureSet,
    /// Its limits.
    pub limits: Limits,
    /// Format properties of the formats that were asked about.
    pub formats: Vec<(vk::Format, vk::FormatProperties)>,
    /// Subgroup (warp, wave) size.
    pub subgroup_size: u32,
    /// The subgroup operations compute shaders may use (empty where the compute stage has none).
    pub subgroup_operations: vk::SubgroupFeatureFlags,
    /// Memory heaps.
    pub heaps: Vec<Heap>,
    /// Memory types, in the device's order.
    pub memory_types: Vec<MemoryType>,
    /// The cooperative-matrix shapes the device advertises (empty without the extension).
    pub cooperative_matrix: Vec<CoopMatShape>,
    /// The flexible-dimension shapes (VK_NV_cooperative_matrix2; empty without it).
    pub cooperative_matrix_flexible: Vec<CoopMatFlexible>,
    /// The 16-bit float-controls modes shaders may declare.
    pub float16_controls: Vec<FloatControl>,
    /// Whether both the instance and the device are Vulkan 1.3 or later (SPIR-V 1.6).
    pub vulkan_1_3: bool,
    /// Its queue families, by index.
    pub queue_families: Vec<QueueFamily>,
    /// How many compute units, where the driver tells it (the `units` family's grid).
    pub compute_units: Option<u32>,
}

impl DeviceCaps {
    /// The free bytes of the largest device-local heap of a device with memory of its own (a heap
    /// that is not device-local beside it), where the driver says what is free.
    pub fn own_free_memory(&self) -> Option<u64> {
        if self.heaps.iter().all(|h| h.device_local) {
            return None;
        }
        self.heaps.iter().filter(|h| h.device_local).max_by_key(|h| h.bytes).and_then(|h| h.free)
    }

    fn format_allows(&self, format: vk::Format, usage: FormatUse) -> bool {
        self.formats.iter().any(|(f, props)| *f == format && usage.allowed(props))
    }
}

/// What a case needs: features, limits, format uses, memory and subgroup operations. Unmet
/// requirements skip the case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requirements {
    /// Optional features.
    pub features: BTreeSet<Feature>,
    /// Limits, each at least the given value.
    pub limits: BTreeSet<Limit>,
    /// Format uses.
    pub formats: BTreeSet<(vk::Format, FormatUse)>,
    /// Memory of a kind, at least this many bytes in one heap.
    pub memory: BTreeSet<(MemoryKind, u64)>,
    /// Device-local memory, with the staging copy that fills it.
    pub footprint: Footprint,
    /// Subgroup operations in compute shaders (`subgroupBroadcast` is `BALLOT`, ...).
    pub subgroup: vk::SubgroupFeatureFlags,
    /// Cooperative-matrix shapes the device must advertise.
    pub cooperative_matrix: BTreeSet<CoopMatShape>,
    /// Flexible-dimension shape families the device must advertise.
    pub cooperative_matrix_flexible: BTreeSet<CoopMatFlexible>,
    /// 16-bit float-controls modes the shader declares.
    pub float16_controls: BTreeSet<FloatControl>,
    /// Vulkan 1.3: the shader is SPIR-V 1.6 (GL_NV_cooperative_matrix2 needs it).
    pub vulkan_1_3: bool,
    /// A queue family of this kind, with timestamps (a transfer timed on it).
    pub queue: Option<QueueKind>,
    /// Memory of the device's own (a device-local heap beside the host's), that says how much of
    /// it is free (VK_EXT_memory_budget): a screen of free memory.
    pub own_memory: bool,
}

impl Requirements {
    /// Nothing beyond Vulkan 1.2.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a feature.
    pub fn feature(mut self, feature: Feature) -> Self {
        self.features.insert(feature);
        self
    }

    /// Adds a limit.
    pub fn limit(mut self, limit: Limit) -> Self {
        self.limits.insert(limit);
        self
    }

    /// Adds a format use.
    pub fn format(mut self, format: vk::Format, usage: FormatUse) -> Self {
        self.formats.insert((format, usage));
        self
    }

    /// Adds `bytes` of device-local memory, filled through a staging copy of `staging` bytes.
    pub fn device_local(mut self, bytes: u64, staging: u64) -> Self {
        self.footprint.add(Footprint { device_local: bytes, staging });
        self
    }

    /// Adds memory of `kind` holding `bytes`.
    pub fn memory(mut self, kind: MemoryKind, bytes: u64) -> Self {
        self.memory.insert((kind, bytes));
        self
    }

    /// Adds subgroup operations the compute shader uses.
    pub fn subgroup(mut self, operations: vk::SubgroupFeatureFlags) -> Self {
        self.subgroup |= operations;
        self
    }

    /// Adds a 16-bit float-controls mode the shader declares.
    pub fn float16_control(mut self, control: FloatControl) -> Self {
        self.float16_controls.insert(control);
        self
    }

    /// Adds a cooperative-matrix shape the device must advertise.
    pub fn cooperative_matrix(mut self, shape: CoopMatShape) -> Self {
        self.cooperative_matrix.insert(shape);
        self
    }

    /// Adds a flexible-dimension shape family the device must advertise.
    pub fn cooperative_matrix_flexible(mut self, family: CoopMatFlexible) -> Self {
        self.cooperative_matrix_flexible.insert(family);
        self
    }

    /// Needs a queue family of `kind` with timestamps.
    pub fn queue(mut self, kind: QueueKind) -> Self {
        self.queue = Some(kind);
        self
    }

    /// Needs memory of the device's own that says what is free ([`Requirements::own_memory`]).
    pub fn own_memory(mut self) -> Self {
        self.own_memory = true;
        self
    }

    /// Needs Vulkan 1.3: the shader is compiled to SPIR-V 1.6.
    pub fn vulkan_1_3(mut self) -> Self {
        self.vulkan_1_3 = true;
        self
    }

    /// Adds everything `other` needs.
    pub fn union(&mut self, other: &Requirements) {
        self.subgroup |= other.subgroup;
        self.vulkan_1_3 |= other.vulkan_1_3;
        self.own_memory |= other.own_memory;
        self.queue = self.queue.or(other.queue);
        self.cooperative_matrix.extend(other.cooperative_matrix.iter().copied());
        self.cooperative_matrix_flexible.extend(other.cooperative_matrix_flexible.iter().copied());
        self.float16_controls.extend(other.float16_controls.iter().copied());
        self.features.extend(other.features.iter().copied());
        self.limits.extend(other.limits.iter().copied());
        self.formats.extend(other.formats.iter().copied());
        self.memory.extend(other.memory.iter().copied());
        self.footprint.add(other.footprint);
    }

    /// One reason per missing item; empty when `caps` meets every requirement.
    pub fn unmet(&self, caps: &DeviceCaps) -> Vec<String> {
        let features = self
            .features
            .iter()
            .filter(|&&f| !caps.features.get(f))
            .map(|f| format!("the device lacks {}", f.vk_name()));
        let limits = self.limits.iter().filter_map(|l| l.unmet(&caps.limits));
        let formats = self
            .formats
            .iter()
            .filter(|&&(format, usage)| !caps.format_allows(format, usage))
            .map(|&(format, usage)| usage.reason(format));
        let memory = self
            .memory
            .iter()
            .filter_map(|&(kind, bytes)| kind.unmet(&caps.memory_types, bytes))
            .chain(self.footprint.unmet(&caps.memory_types));
        let missing = self.subgroup & !caps.subgroup_operations;
        let subgroup = (!missing.is_empty())
            .then(|| format!("the device's compute shaders lack subgroup operations {missing:?}"));
        let shapes =
            self.cooperative_matrix.iter().filter(|s| !caps.cooperative_matrix.contains(s)).map(|s| {
                format!(
                    "the device does not advertise the cooperative-matrix shape {}x{}x{} {}*{}+{} {:?} \
                 (vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)",
                    s.m,
                    s.n,
                    s.k,
                    component::component_name(s.a),
                    component::component_name(s.b),
                    component::component_name(s.c),
                    s.scope
                )
            });
        let flexible = self
            .cooperative_matrix_flexible
            .iter()
            .filter(|f| !caps.cooperative_matrix_flexible.contains(f))
            .map(|f| {
                let g = &f.granularity;
                format!(
                    "the device does not advertise flexible cooperative-matrix dimensions {}*{}+{} {:?} \
                     in multiples of {}x{}x{} for {} invocations \
                     (vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV)",
                    component::component_name(g.a),
                    component::component_name(g.b),
                    component::component_name(g.c),
                    g.scope,
                    g.m,
                    g.n,
                    g.k,
                    f.invocations
                )
            });
        let controls = self
            .float16_controls
            .iter()
            .filter(|c| !caps.float16_controls.contains(c))
            .map(|c| format!("the device does not allow the 16-bit float-controls mode {c:?} (VkPhysicalDeviceFloatControlsProperties)"));
        let version = (self.vulkan_1_3 && !caps.vulkan_1_3).then(|| {
            "the case's shader is SPIR-V 1.6, which needs Vulkan 1.3 of the device and the loader".to_owned()
        });
        let queue = self.queue.and_then(|kind| kind.unmet(&caps.queue_families));
        let own = (self.own_memory && caps.own_free_memory().is_none()).then(|| {
            if caps.heaps.iter().all(|h| h.device_local) {
                "the device's memory is the host's (every heap device-local: a CPU driver or an integrated GPU): \
                 its free memory is not screened here"
                    .to_owned()
            } else {
                "the driver does not say how much of the device's memory is free (VK_EXT_memory_budget)".to_owned()
            }
        });
        features
            .chain(version)
            .chain(queue)
            .chain(limits)
            .chain(formats)
            .chain(memory)
            .chain(subgroup)
            .chain(shapes)
            .chain(flexible)
            .chain(controls)
            .chain(own)
            .collect()
    }

    /// The formats named, without repeats (the ones whose properties must be queried).
    pub fn format_list(&self) -> Vec<vk::Format> {
        let mut formats: Vec<vk::Format> = self.formats.iter().map(|(f, _)| *f).collect();
        formats.dedup();
        formats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unmet_is_a_set_difference_with_a_reason_per_item() {
        let needs = Requirements::new()
            .feature(Feature::ShaderFloat16)
            .feature(Feature::ShaderFloat64)
            .limit(Limit::WorkgroupInvocations(1024))
            .format(vk::Format::R8_UNORM, FormatUse::UniformTexelBuffer)
            .format(vk::Format::R32G32B32A32_SFLOAT, FormatUse::LinearFilter);
        let none = DeviceCaps::default();
        assert_eq!(
            needs.unmet(&none),
            [
                "the device lacks shaderFloat16",
                "the device lacks shaderFloat64",
                "the case needs 1024 invocations per workgroup; the device allows 0",
                "the device cannot use R8_UNORM in a uniform texel buffer",
                "the device cannot filter R32G32B32A32_SFLOAT images linearly",
            ]
        );
        let mut caps = DeviceCaps::default();
        caps.features.set(Feature::ShaderFloat16, true);
        caps.limits.workgroup_invocations = 1024;
        let texel = vk::FormatProperties {
            buffer_features: vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER,
            ..Default::default()
        };
        caps.formats.push((vk::Format::R8_UNORM, texel));
        assert_eq!(
            needs.unmet(&caps),
            [
                "the device lacks shaderFloat64",
                "the device cannot filter R32G32B32A32_SFLOAT images linearly"
            ]
        );
    }

    #[test]
    fn workgroup_scope_matrices_say_what_the_device_lacks() {
        let granularity = CoopMatShape {
            m: 32,
            n: 32,
            k: 16,
            a: vk::ComponentTypeKHR::FLOAT16,
            b: vk::ComponentTypeKHR::FLOAT16,
            c: vk::ComponentTypeKHR::FLOAT32,
            result: vk::ComponentTypeKHR::FLOAT32,
            saturating: false,
            scope: vk::ScopeKHR::WORKGROUP,
        };
        let family = CoopMatFlexible { granularity, invocations: 256 };
        let needs = Requirements::new()
            .vulkan_1_3()
            .cooperative_matrix_flexible(family)
            .limit(Limit::CooperativeMatrixDimension(128));
        assert_eq!(
            needs.unmet(&DeviceCaps::default()),
            [
                "the case's shader is SPIR-V 1.6, which needs Vulkan 1.3 of the device and the loader",
                "the case needs 128 rows or columns per flexible cooperative matrix; the device allows 0",
                "the device does not advertise flexible cooperative-matrix dimensions FLOAT16*FLOAT16+FLOAT32 \
                 WORKGROUP in multiples of 32x32x16 for 256 invocations \
                 (vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV)",
            ]
        );
        let mut caps =
            DeviceCaps { vulkan_1_3: true, cooperative_matrix_flexible: vec![family], ..Default::default() };
        caps.limits.cooperative_matrix_dimension = 256;
        assert!(needs.unmet(&caps).is_empty());
    }

    #[test]
    fn the_union_collects_every_item_once() {
        let mut all = Requirements::new().feature(Feature::ShaderFloat16);
        all.union(&Requirements::new().feature(Feature::ShaderFloat16).limit(Limit::SharedMemoryBytes(4)));
        all.union(&Requirements::new().format(vk::Format::R8_UNORM, FormatUse::SampledImage));
        all.union(&Requirements::new().format(vk::Format::R8_UNORM, FormatUse::LinearFilter));
        assert_eq!(all.features.len(), 1);
        assert_eq!(all.limits.len(), 1);
        assert_eq!(all.format_list(), [vk::Format::R8_UNORM]);
        assert!(Requirements::new().unmet(&DeviceCaps::default()).is_empty());
    }

    #[test]
    fn subgroup_operations_are_met_only_where_compute_shaders_have_them() {
        let mut all = Requirements::new().subgroup(vk::SubgroupFeatureFlags::BASIC);
        all.union(&Requirements::new().subgroup(vk::SubgroupFeatureFlags::BALLOT));
        let mut caps = DeviceCaps::default();
        assert_eq!(
            all.unmet(&caps),
            ["the device's compute shaders lack subgroup operations BASIC | BALLOT"]
        );
        caps.subgroup_operations = vk::SubgroupFeatureFlags::BASIC | vk::SubgroupFeatureFlags::VOTE;
        assert_eq!(all.unmet(&caps), ["the device's compute shaders lack subgroup operations BALLOT"]);
        caps.subgroup_operations |= vk::SubgroupFeatureFlags::BALLOT;
        assert!(all.unmet(&caps).is_empty());
    }
}
