//! Feature structs of extensions newer than ash 0.38's headers (1.3.281), laid out as the Vulkan
//! headers define them: VK_KHR_shader_bfloat16 and VK_NV_cooperative_matrix2.

use std::ffi::c_void;

use ash::vk;

/// `VkPhysicalDeviceShaderBfloat16FeaturesKHR`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Bfloat16Features {
    /// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR`.
    pub s_type: vk::StructureType,
    /// The next struct in a chain; null outside a call.
    pub p_next: *mut c_void,
    /// The `BFloat16TypeKHR` capability.
    pub shader_bfloat16_type: vk::Bool32,
    /// The `BFloat16DotProductKHR` capability.
    pub shader_bfloat16_dot_product: vk::Bool32,
    /// The `BFloat16CooperativeMatrixKHR` capability.
    pub shader_bfloat16_cooperative_matrix: vk::Bool32,
}

impl Default for Bfloat16Features {
    fn default() -> Self {
        Self {
            s_type: vk::StructureType::from_raw(1_000_141_000),
            p_next: std::ptr::null_mut(),
            shader_bfloat16_type: vk::FALSE,
            shader_bfloat16_dot_product: vk::FALSE,
            shader_bfloat16_cooperative_matrix: vk::FALSE,
        }
    }
}

/// `VkPhysicalDeviceCooperativeMatrix2FeaturesNV`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CooperativeMatrix2Features {
    /// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV`.
    pub s_type: vk::StructureType,
    /// The next struct in a chain; null outside a call.
    pub p_next: *mut c_void,
    /// Workgroup-scope matrices.
    pub workgroup_scope: vk::Bool32,
    /// The dimensions of `vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV`.
    pub flexible_dimensions: vk::Bool32,
    /// Row and column reductions.
    pub reductions: vk::Bool32,
    /// Conversions between uses and types.
    pub conversions: vk::Bool32,
    /// Per-element operations.
    pub per_element_operations: vk::Bool32,
    /// Tensor addressing.
    pub tensor_addressing: vk::Bool32,
    /// Block loads.
    pub block_loads: vk::Bool32,
}

impl Default for CooperativeMatrix2Features {
    fn default() -> Self {
        Self {
            s_type: vk::StructureType::from_raw(1_000_593_000),
            p_next: std::ptr::null_mut(),
            workgroup_scope: vk::FALSE,
            flexible_dimensions: vk::FALSE,
            reductions: vk::FALSE,
            conversions: vk::FALSE,
            per_element_operations: vk::FALSE,
            tensor_addressing: vk::FALSE,
            block_loads: vk::FALSE,
        }
    }
}

// SAFETY: both are feature structs that start with sType and pNext, as the specification lets
// VkPhysicalDeviceFeatures2 and VkDeviceCreateInfo chain them.
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for Bfloat16Features {}
// SAFETY: as above.
unsafe impl vk::ExtendsDeviceCreateInfo for Bfloat16Features {}
// SAFETY: as above.
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for CooperativeMatrix2Features {}
// SAFETY: as above.
unsafe impl vk::ExtendsDeviceCreateInfo for CooperativeMatrix2Features {}
// SAFETY: p_next is null outside the Vulkan call that chains the struct (as for ash's own
// structs, which are Send and Sync): nothing is shared through it.
unsafe impl Send for Bfloat16Features {}
// SAFETY: as above.
unsafe impl Sync for Bfloat16Features {}
// SAFETY: as above.
unsafe impl Send for CooperativeMatrix2Features {}
// SAFETY: as above.
unsafe impl Sync for CooperativeMatrix2Features {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_headers() {
        // sType (4) + padding (4) + pNext (8) + one 4-byte Bool32 per feature, padded to 8.
        assert_eq!(std::mem::size_of::<Bfloat16Features>(), 32);
        assert_eq!(std::mem::offset_of!(Bfloat16Features, shader_bfloat16_cooperative_matrix), 24);
        assert_eq!(std::mem::size_of::<CooperativeMatrix2Features>(), 48);
        assert_eq!(std::mem::offset_of!(CooperativeMatrix2Features, block_loads), 40);
    }
}
