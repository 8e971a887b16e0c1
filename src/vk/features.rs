//! The Vulkan feature structs perftest's features live in: one aggregate that answers "what does
//! the device have" (filled by `vkGetPhysicalDeviceFeatures2`) and "enable these" (chained into
//! `VkDeviceCreateInfo`), both through [`FeatureStructs::chain`]; and its conversion to and from
//! the plain [`FeatureSet`] of `caps`.

use std::ffi::CStr;

use ash::vk;

use super::newer;
use crate::caps::{Feature, FeatureSet};

/// Every feature struct perftest reads or enables (`p_next` is null outside a call).
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
    /// VK_NV_shader_sm_builtins.
    pub sm_builtins: vk::PhysicalDeviceShaderSMBuiltinsFeaturesNV<'static>,
}

macro_rules! feature_fields {
    ($( $(#[$doc:meta])* $variant:ident => $group:ident . $field:ident, $vk_name:literal, $extension:expr; )*) => {
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

crate::feature_table!(feature_fields);

impl FeatureStructs {
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
        if chain(crate::caps::SHADER_BFLOAT16) {
            f = f.push_next(&mut self.bfloat16);
        }
        if chain(crate::caps::COOPERATIVE_MATRIX2) {
            f = f.push_next(&mut self.cooperative_matrix2);
        }
        if chain(ash::nv::shader_sm_builtins::NAME) {
            f = f.push_next(&mut self.sm_builtins);
        }
        f
    }

    /// The features that are set.
    pub fn set_of(&self) -> FeatureSet {
        Feature::ALL.iter().copied().filter(|&f| self.get(f)).collect()
    }

    /// The structs with `features` set, and nothing else.
    pub fn of(features: FeatureSet) -> Self {
        let mut structs = FeatureStructs::default();
        for feature in features.list() {
            structs.set(feature, true);
        }
        structs
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
            assert_eq!(structs.set_of().list(), [feature], "{feature:?}");
            structs.set(feature, false);
            assert!(structs.set_of().list().is_empty(), "{feature:?}");
        }
    }

    #[test]
    fn a_set_goes_through_the_structs_unchanged() {
        let set = FeatureSet::from_iter([Feature::ShaderFloat64, Feature::CooperativeMatrixWorkgroupScope]);
        assert_eq!(FeatureStructs::of(set).set_of(), set);
    }
}
