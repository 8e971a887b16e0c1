//! Tests' map from the SPIR-V capabilities a shader declares to what its case must require
//! (a feature, subgroup operations, a float-controls mode), so a shader cannot use more than its
//! case asks the device for.

use ash::vk;

use crate::caps::{Feature, FloatControl, Requirements};

/// What declaring a capability needs of the device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Need {
    /// Nothing beyond Vulkan 1.2.
    Core,
    /// A feature.
    Feature(Feature),
    /// Subgroup operations in compute shaders.
    Subgroup(vk::SubgroupFeatureFlags),
    /// A 16-bit float-controls mode.
    FloatControl(FloatControl),
}

/// What `capability` needs; `None` for a capability this table does not know (a test then fails,
/// so a new one is thought about before it is used).
pub fn need(capability: u32) -> Option<Need> {
    Some(match capability {
        // Shader, SampledBuffer, ImageBuffer.
        1 | 46 | 47 => Need::Core,
        9 => Need::Feature(Feature::ShaderFloat16),
        10 => Need::Feature(Feature::ShaderFloat64),
        11 => Need::Feature(Feature::ShaderInt64),
        12 => Need::Feature(Feature::ShaderBufferInt64Atomics),
        22 => Need::Feature(Feature::ShaderInt16),
        39 => Need::Feature(Feature::ShaderInt8),
        49 => Need::Feature(Feature::StorageImageExtendedFormats),
        61 => Need::Subgroup(vk::SubgroupFeatureFlags::BASIC),
        62 => Need::Subgroup(vk::SubgroupFeatureFlags::VOTE),
        63 => Need::Subgroup(vk::SubgroupFeatureFlags::ARITHMETIC),
        64 => Need::Subgroup(vk::SubgroupFeatureFlags::BALLOT),
        65 => Need::Subgroup(vk::SubgroupFeatureFlags::SHUFFLE),
        4433 => Need::Feature(Feature::StorageBuffer16BitAccess),
        4448 => Need::Feature(Feature::StorageBuffer8BitAccess),
        4465 => Need::FloatControl(FloatControl::DenormFlushToZero16),
        4466 => Need::FloatControl(FloatControl::SignedZeroInfNanPreserve16),
        4467 => Need::FloatControl(FloatControl::RoundingModeRte16),
        // ShaderClockKHR.
        5055 => Need::Feature(Feature::ShaderSubgroupClock),
        // ShaderSMBuiltinsNV.
        5373 => Need::Feature(Feature::ShaderSmBuiltins),
        5116 => Need::Feature(Feature::ShaderBfloat16Type),
        5117 => Need::Feature(Feature::ShaderBfloat16DotProduct),
        5118 => Need::Feature(Feature::ShaderBfloat16CooperativeMatrix),
        5345 => Need::Feature(Feature::VulkanMemoryModel),
        // CooperativeMatrixTensorAddressingNV, TensorAddressingNV.
        5433 | 5439 => Need::Feature(Feature::CooperativeMatrixTensorAddressing),
        5346 => Need::Feature(Feature::VulkanMemoryModelDeviceScope),
        5347 => Need::Feature(Feature::BufferDeviceAddress),
        // DotProductInput4x8BitPacked, DotProduct.
        6018 | 6019 => Need::Feature(Feature::ShaderIntegerDotProduct),
        6022 => Need::Feature(Feature::CooperativeMatrix),
        6033 => Need::Feature(Feature::ShaderBufferFloat32AtomicAdd),
        _ => return None,
    })
}

/// The capabilities of `spirv` that `needs` does not cover, each with why.
pub fn uncovered(spirv: &[u32], needs: &Requirements) -> Vec<String> {
    super::spirv::instructions(spirv)
        .filter(|i| i.opcode == 17)
        .filter_map(|i| i.operands.first().copied())
        .filter_map(|capability| match need(capability) {
            None => Some(format!("capability {capability} is not in src/shader/capabilities.rs")),
            Some(Need::Core) => None,
            Some(Need::Feature(f)) => (!needs.features.contains(&f))
                .then(|| format!("capability {capability} needs {}", f.vk_name())),
            Some(Need::Subgroup(ops)) => (!needs.subgroup.contains(ops))
                .then(|| format!("capability {capability} needs subgroup {ops:?}")),
            Some(Need::FloatControl(c)) => (!needs.float16_controls.contains(&c))
                .then(|| format!("capability {capability} needs the float-controls mode {c:?}")),
        })
        .collect()
}
