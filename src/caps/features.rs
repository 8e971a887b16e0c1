//! The optional device features perftest can use, as plain data: one table row per feature, and
//! the set of them a device has or a run enables.
//!
//! The table ([`feature_table!`]) is expanded twice: here into [`Feature`] (its name in the
//! specification and its extension), and in `vk::features` into the reads and writes of the
//! Vulkan feature structs each feature lives in. Adding a feature is one row, plus its use in a
//! case; a feature in a new struct also adds the struct to `vk::features::FeatureStructs`.

use std::ffi::CStr;

/// `VK_KHR_shader_bfloat16` (newer than ash 0.38's headers).
pub const SHADER_BFLOAT16: &CStr = c"VK_KHR_shader_bfloat16";
/// `VK_NV_cooperative_matrix2` (newer than ash 0.38's headers).
pub const COOPERATIVE_MATRIX2: &CStr = c"VK_NV_cooperative_matrix2";

/// Calls `$then!` with every feature's row: `Variant => struct.field, "vkName", extension;`.
#[macro_export]
#[doc(hidden)]
macro_rules! feature_table {
    ($then:ident) => {
        $then! {
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
                /// Device-scope clock reads in shaders (`clockRealtime2x32EXT`): the clock witness's timer.
                ShaderDeviceClock => clock.shader_device_clock, "shaderDeviceClock",
                    Some(ash::khr::shader_clock::NAME);
                /// Which SM (streaming multiprocessor) runs an invocation (`gl_SMIDNV`).
                ShaderSmBuiltins => sm_builtins.shader_sm_builtins, "shaderSMBuiltins",
                    Some(ash::nv::shader_sm_builtins::NAME);
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
                ShaderBfloat16Type => bfloat16.shader_bfloat16_type, "shaderBFloat16Type", Some($crate::caps::SHADER_BFLOAT16);
                /// Dot products of bfloat16 vectors.
                ShaderBfloat16DotProduct => bfloat16.shader_bfloat16_dot_product, "shaderBFloat16DotProduct",
                    Some($crate::caps::SHADER_BFLOAT16);
                /// Cooperative matrices of bfloat16.
                ShaderBfloat16CooperativeMatrix => bfloat16.shader_bfloat16_cooperative_matrix,
                    "shaderBFloat16CooperativeMatrix", Some($crate::caps::SHADER_BFLOAT16);
                /// Workgroup-scope cooperative matrices.
                CooperativeMatrixWorkgroupScope => cooperative_matrix2.workgroup_scope, "cooperativeMatrixWorkgroupScope",
                    Some($crate::caps::COOPERATIVE_MATRIX2);
                /// Cooperative-matrix sizes of any multiple of the advertised granularity.
                CooperativeMatrixFlexibleDimensions => cooperative_matrix2.flexible_dimensions,
                    "cooperativeMatrixFlexibleDimensions", Some($crate::caps::COOPERATIVE_MATRIX2);
                /// Cooperative-matrix loads and stores through tensor layouts and views.
                CooperativeMatrixTensorAddressing => cooperative_matrix2.tensor_addressing,
                    "cooperativeMatrixTensorAddressing", Some($crate::caps::COOPERATIVE_MATRIX2);
        }
    };
}

macro_rules! define_features {
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
    };
}

feature_table!(define_features);

/// A set of features: what a device has, or what a run enables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeatureSet(u64);

impl FeatureSet {
    /// The bit of `feature`.
    fn bit(feature: Feature) -> u64 {
        1 << feature as u32
    }

    /// Whether `feature` is in the set.
    pub fn get(&self, feature: Feature) -> bool {
        self.0 & Self::bit(feature) != 0
    }

    /// Adds or removes `feature`.
    pub fn set(&mut self, feature: Feature, on: bool) {
        if on {
            self.0 |= Self::bit(feature);
        } else {
            self.0 &= !Self::bit(feature);
        }
    }

    /// The features of `wanted` that are in the set.
    pub fn enabled_of(&self, wanted: impl IntoIterator<Item = Feature>) -> FeatureSet {
        let mut out = FeatureSet::default();
        for feature in wanted {
            out.set(feature, self.get(feature));
        }
        out
    }

    /// The features in the set, in table order.
    pub fn list(&self) -> Vec<Feature> {
        Feature::ALL.iter().copied().filter(|&f| self.get(f)).collect()
    }

    /// The extensions the features need, and the extensions those depend on, without repeats.
    pub fn extensions(&self) -> Vec<&'static CStr> {
        let mut out: Vec<&'static CStr> = self.list().into_iter().filter_map(Feature::extension).collect();
        // VK_NV_cooperative_matrix2 extends VK_KHR_cooperative_matrix.
        if out.contains(&COOPERATIVE_MATRIX2) {
            out.push(ash::khr::cooperative_matrix::NAME);
        }
        out.sort();
        out.dedup();
        out
    }
}

impl FromIterator<Feature> for FeatureSet {
    fn from_iter<I: IntoIterator<Item = Feature>>(features: I) -> Self {
        let mut set = FeatureSet::default();
        for feature in features {
            set.set(feature, true);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_has_a_bit_of_its_own() {
        assert!(Feature::ALL.len() <= 64, "a FeatureSet holds 64");
        for &feature in Feature::ALL {
            let mut set = FeatureSet::default();
            set.set(feature, true);
            assert_eq!(set.list(), [feature], "{feature:?}");
            set.set(feature, false);
            assert!(set.list().is_empty(), "{feature:?}");
        }
    }

    #[test]
    fn extensions_follow_the_features() {
        let mut set = FeatureSet::from_iter([Feature::ShaderFloat16]);
        assert!(set.extensions().is_empty());
        set.set(Feature::PipelineExecutableInfo, true);
        assert_eq!(set.extensions(), [ash::khr::pipeline_executable_properties::NAME]);
    }

    #[test]
    fn cooperative_matrix2_brings_the_extension_it_extends() {
        let set = FeatureSet::from_iter([Feature::CooperativeMatrixWorkgroupScope]);
        assert_eq!(set.extensions(), [ash::khr::cooperative_matrix::NAME, COOPERATIVE_MATRIX2]);
    }

    #[test]
    fn enabled_of_keeps_only_what_the_device_has() {
        let device = FeatureSet::from_iter([Feature::ShaderFloat64]);
        let enabled = device.enabled_of([Feature::ShaderFloat64, Feature::ShaderFloat16]);
        assert_eq!(enabled.list(), [Feature::ShaderFloat64]);
    }
}
