//! The optional device features perftest can use: one table row per feature, one aggregate of feature structs.
//!
//! [`FeatureStructs`] holds every `VkPhysicalDevice*Features` struct a feature can live in; the
//! same aggregate answers "what does the device have" (filled by `vkGetPhysicalDeviceFeatures2`)
//! and "enable these" (chained into `VkDeviceCreateInfo`), both through [`FeatureStructs::chain`].
//! Adding a feature is one row in the `features!` table below, plus its use in a case; a feature
//! in a new struct also adds the struct to the aggregate, `chain` and `unchained`.

use std::ffi::CStr;

use ash::vk;

use super::newer;

/// Every feature struct perftest reads or enables, unchained (`p_next` is null outside a call).
#[derive(Clone, Copy, Debug, Default)]
pub struct FeatureStructs {
    /// Vulkan 1.0 core features.
    pub core: vk::PhysicalDeviceFeatures,
    /// Vulkan 1.1 features.
    pub v11: vk::PhysicalDeviceVulkan11Features<'static>,
    /// Vulkan 1.2 features.
    pub v12: vk::PhysicalDeviceVulkan12Features<'static>,
    /// VK_KHR_pipeline_executable_properties.
    pub executable: vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR<'static>,
    /// VK_KHR_shader_clock.
    pub clock: vk::PhysicalDeviceShaderClockFeaturesKHR<'static>,
    /// VK_EXT_shader_atomic_float.
    pub atomic_float: vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT<'static>,
    /// VK_KHR_cooperative_matrix.
    pub cooperative_matrix: vk::PhysicalDeviceCooperativeMatrixFeaturesKHR<'static>,
    /// VK_KHR_shader_integer_dot_product.
    pub integer_dot: vk::PhysicalDeviceShaderIntegerDotProductFeatures<'static>,
    /// VK_EXT_subgroup_size_control.
    pub subgroup_size_control: vk::PhysicalDeviceSubgroupSizeControlFeatures<'static>,
    /// VK_KHR_shader_bfloat16.
    pub bfloat16: newer::Bfloat16Features,
    /// VK_NV_cooperative_matrix2.
    pub cooperative_matrix2: newer::CooperativeMatrix2Features,
}

macro_rules! features {
    ($( $(#[$doc:meta])* $variant:ident => $group:ident . $field:ident, $vk_name:literal, $extension:expr; )*) => {
        /// An optional device feature a case can require.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Feature {
            $( $(#[$doc])* $variant, )*
        }

        impl Feature {
            /// Every feature, in table order.
            pub const ALL: &'static [Feature] = &[$(Feature::$variant),*];

            /// The feature's name in the Vulkan specification (`shaderFloat16`).
            pub fn vk_name(self) -> &'static str {
                match self { $(Feature::$variant => $vk_name),* }
            }

            /// The device extension that offers the feature, if it is not core Vulkan 1.2.
            pub fn extension(self) -> Option<&'static CStr> {
                match self { $(Feature::$variant => $extension),* }
            }
        }

        impl FeatureStructs {
            /// Whether `feature` is set.
            pub fn get(&self, feature: Feature) -> bool {
                match feature { $(Feature::$variant => self.$group.$field == vk::TRUE),* }
            }

            /// Sets or clears `feature`.
            pub fn set(&mut self, feature: Feature, on: bool) {
                match feature { $(Feature::$variant => self.$group.$field = vk::Bool32::from(on)),* }
            }
        }
    };
}

features! {
    /// 16-bit float arithmetic in shaders.
    ShaderFloat16 => v12.shader_float16, "shaderFloat16", None;
    /// 64-bit float arithmetic in shaders.
    ShaderFloat64 => core.shader_float64, "shaderFloat64", None;
    /// 64-bit integers in shaders (buffer device addresses as integers).
    ShaderInt64 => core.shader_int64, "shaderInt64", None;
    /// 16-bit integers in shaders.
    ShaderInt16 => core.shader_int16, "shaderInt16", None;
    /// 16-bit values (`float16_t`) in storage buffers, converted to and from 32 bits.
    StorageBuffer16BitAccess => v11.storage_buffer16_bit_access, "storageBuffer16BitAccess", None;
    /// Buffer device addresses (`buffer_reference` pointers).
    BufferDeviceAddress => v12.buffer_device_address, "bufferDeviceAddress", None;
    /// Storage images and texel buffers declared with the "extended" formats (r8, rg8, r16f,
    /// rg16f, rg32f, ...).
    StorageImageExtendedFormats => core.shader_storage_image_extended_formats,
        "shaderStorageImageExtendedFormats", None;
    /// `imageLoad` from storage images declared without a format.
    StorageImageReadWithoutFormat => core.shader_storage_image_read_without_format,
        "shaderStorageImageReadWithoutFormat", None;
    /// The driver's statistics of compiled pipelines (`--shader-stats`).
    PipelineExecutableInfo => executable.pipeline_executable_info, "pipelineExecutableInfo",
        Some(ash::khr::pipeline_executable_properties::NAME);
    /// `clockARB`-style subgroup clock reads in shaders.
    ShaderSubgroupClock => clock.shader_subgroup_clock, "shaderSubgroupClock",
        Some(ash::khr::shader_clock::NAME);
    /// 64-bit integer atomics on storage buffers.
    ShaderBufferInt64Atomics => v12.shader_buffer_int64_atomics, "shaderBufferInt64Atomics", None;
    /// 32-bit float `atomicAdd` on storage buffers.
    ShaderBufferFloat32AtomicAdd => atomic_float.shader_buffer_float32_atomic_add,
        "shaderBufferFloat32AtomicAdd", Some(ash::ext::shader_atomic_float::NAME);
    /// 8-bit integers in shaders.
    ShaderInt8 => v12.shader_int8, "shaderInt8", None;
    /// 8-bit values in storage buffers.
    StorageBuffer8BitAccess => v12.storage_buffer8_bit_access, "storageBuffer8BitAccess", None;
    /// The Vulkan memory model (glslang declares it in cooperative-matrix shaders).
    VulkanMemoryModel => v12.vulkan_memory_model, "vulkanMemoryModel", None;
    /// Device scope under the Vulkan memory model (atomics and barriers of other shaders use it).
    VulkanMemoryModelDeviceScope => v12.vulkan_memory_model_device_scope, "vulkanMemoryModelDeviceScope", None;
    /// Packed 8-bit integer dot products in shaders.
    ShaderIntegerDotProduct => integer_dot.shader_integer_dot_product, "shaderIntegerDotProduct",
        Some(ash::khr::shader_integer_dot_product::NAME);
    /// Cooperative matrices (tensor cores) in shaders.
    CooperativeMatrix => cooperative_matrix.cooperative_matrix, "cooperativeMatrix",
        Some(ash::khr::cooperative_matrix::NAME);
    /// Compute pipelines that require full subgroups (`REQUIRE_FULL_SUBGROUPS`).
    ComputeFullSubgroups => subgroup_size_control.compute_full_subgroups, "computeFullSubgroups",
        Some(ash::ext::subgroup_size_control::NAME);
    /// bfloat16 (`bfloat16_t`) values in shaders.
    ShaderBfloat16Type => bfloat16.shader_bfloat16_type, "shaderBFloat16Type", Some(newer::SHADER_BFLOAT16);
    /// Dot products of bfloat16 vectors.
    ShaderBfloat16DotProduct => bfloat16.shader_bfloat16_dot_product, "shaderBFloat16DotProduct",
        Some(newer::SHADER_BFLOAT16);
    /// Cooperative matrices of bfloat16.
    ShaderBfloat16CooperativeMatrix => bfloat16.shader_bfloat16_cooperative_matrix,
        "shaderBFloat16CooperativeMatrix", Some(newer::SHADER_BFLOAT16);
    /// Workgroup-scope cooperative matrices.
    CooperativeMatrixWorkgroupScope => cooperative_matrix2.workgroup_scope, "cooperativeMatrixWorkgroupScope",
        Some(newer::COOPERATIVE_MATRIX2);
    /// Cooperative-matrix sizes of any multiple of the advertised granularity.
    CooperativeMatrixFlexibleDimensions => cooperative_matrix2.flexible_dimensions,
        "cooperativeMatrixFlexibleDimensions", Some(newer::COOPERATIVE_MATRIX2);
}

impl FeatureStructs {
    /// The same values with every `p_next` null: safe to copy and keep after a query.
    pub fn unchained(mut self) -> Self {
        self.v11.p_next = std::ptr::null_mut();
        self.v12.p_next = std::ptr::null_mut();
        self.executable.p_next = std::ptr::null_mut();
        self.clock.p_next = std::ptr::null_mut();
        self.atomic_float.p_next = std::ptr::null_mut();
        self.cooperative_matrix.p_next = std::ptr::null_mut();
        self.integer_dot.p_next = std::ptr::null_mut();
        self.subgroup_size_control.p_next = std::ptr::null_mut();
        self.bfloat16.p_next = std::ptr::null_mut();
        self.cooperative_matrix2.p_next = std::ptr::null_mut();
        self
    }

    /// `features2` with the Vulkan 1.1 and 1.2 structs chained, and each extension's struct
    /// whose extension `chain` accepts (offered, for a query; enabled, for device creation).
    pub fn chain<'a>(
        &'a mut self,
        features2: vk::PhysicalDeviceFeatures2<'a>,
        chain: impl Fn(&CStr) -> bool,
    ) -> vk::PhysicalDeviceFeatures2<'a> {
        let mut f = features2.push_next(&mut self.v11).push_next(&mut self.v12);
        if chain(ash::khr::pipeline_executable_properties::NAME) {
            f = f.push_next(&mut self.executable);
        }
        if chain(ash::khr::shader_clock::NAME) {
            f = f.push_next(&mut self.clock);
        }
        if chain(ash::ext::shader_atomic_float::NAME) {
            f = f.push_next(&mut self.atomic_float);
        }
        if chain(ash::khr::cooperative_matrix::NAME) {
            f = f.push_next(&mut self.cooperative_matrix);
        }
        if chain(ash::khr::shader_integer_dot_product::NAME) {
            f = f.push_next(&mut self.integer_dot);
        }
        if chain(ash::ext::subgroup_size_control::NAME) {
            f = f.push_next(&mut self.subgroup_size_control);
        }
        if chain(newer::SHADER_BFLOAT16) {
            f = f.push_next(&mut self.bfloat16);
        }
        if chain(newer::COOPERATIVE_MATRIX2) {
            f = f.push_next(&mut self.cooperative_matrix2);
        }
        f
    }

    /// The features of `wanted` that are set here.
    pub fn enabled_of(&self, wanted: impl IntoIterator<Item = Feature>) -> FeatureStructs {
        let mut out = FeatureStructs::default();
        for feature in wanted {
            out.set(feature, self.get(feature));
        }
        out
    }

    /// The set features, in table order.
    pub fn list(&self) -> Vec<Feature> {
        Feature::ALL.iter().copied().filter(|&f| self.get(f)).collect()
    }

    /// The extensions the set features need, and the extensions those depend on, without repeats.
    pub fn extensions(&self) -> Vec<&'static CStr> {
        let mut out: Vec<&'static CStr> = self.list().into_iter().filter_map(Feature::extension).collect();
        // VK_NV_cooperative_matrix2 extends VK_KHR_cooperative_matrix.
        if out.contains(&newer::COOPERATIVE_MATRIX2) {
            out.push(ash::khr::cooperative_matrix::NAME);
        }
        out.sort();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_sets_and_clears_its_own_field_only() {
        for &feature in Feature::ALL {
            let mut structs = FeatureStructs::default();
            structs.set(feature, true);
            assert_eq!(structs.list(), [feature], "{feature:?}");
            structs.set(feature, false);
            assert!(structs.list().is_empty(), "{feature:?}");
        }
    }

    #[test]
    fn extensions_follow_the_enabled_features() {
        let mut structs = FeatureStructs::default();
        structs.set(Feature::ShaderFloat16, true);
        assert!(structs.extensions().is_empty());
        structs.set(Feature::PipelineExecutableInfo, true);
        assert_eq!(structs.extensions(), [ash::khr::pipeline_executable_properties::NAME]);
    }

    #[test]
    fn cooperative_matrix2_brings_the_extension_it_extends() {
        let mut structs = FeatureStructs::default();
        structs.set(Feature::CooperativeMatrixWorkgroupScope, true);
        assert_eq!(structs.extensions(), [ash::khr::cooperative_matrix::NAME, newer::COOPERATIVE_MATRIX2]);
    }

    #[test]
    fn enabled_of_keeps_only_what_the_device_has() {
        let mut device = FeatureStructs::default();
        device.set(Feature::ShaderFloat64, true);
        let enabled = device.enabled_of([Feature::ShaderFloat64, Feature::ShaderFloat16]);
        assert_eq!(enabled.list(), [Feature::ShaderFloat64]);
    }
}
