//! VK_NV_cooperative_matrix2's workgroup-scope shapes, read through a loaded function pointer
//! (`vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV`), and its limits: ash
//! 0.38 predates the extension.

use std::ffi::c_void;

use ash::vk;

use super::instance::Instance;
use crate::caps::{CoopMatFlexible, CoopMatShape};

/// `VkCooperativeMatrixFlexibleDimensionsPropertiesNV`.
#[repr(C)]
#[derive(Clone, Copy)]
struct FlexibleDimensions {
    s_type: vk::StructureType,
    p_next: *mut c_void,
    m_granularity: u32,
    n_granularity: u32,
    k_granularity: u32,
    a_type: vk::ComponentTypeKHR,
    b_type: vk::ComponentTypeKHR,
    c_type: vk::ComponentTypeKHR,
    result_type: vk::ComponentTypeKHR,
    saturating_accumulation: vk::Bool32,
    scope: vk::ScopeKHR,
    workgroup_invocations: u32,
}

impl Default for FlexibleDimensions {
    fn default() -> Self {
        Self {
            // VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV
            s_type: vk::StructureType::from_raw(1_000_593_001),
            p_next: std::ptr::null_mut(),
            m_granularity: 0,
            n_granularity: 0,
            k_granularity: 0,
            a_type: vk::ComponentTypeKHR::default(),
            b_type: vk::ComponentTypeKHR::default(),
            c_type: vk::ComponentTypeKHR::default(),
            result_type: vk::ComponentTypeKHR::default(),
            saturating_accumulation: vk::FALSE,
            scope: vk::ScopeKHR::default(),
            workgroup_invocations: 0,
        }
    }
}

/// `VkPhysicalDeviceCooperativeMatrix2PropertiesNV`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    s_type: vk::StructureType,
    p_next: *mut c_void,
    /// `cooperativeMatrixWorkgroupScopeMaxWorkgroupSize`.
    pub workgroup_invocations: u32,
    /// `cooperativeMatrixFlexibleDimensionsMaxDimension`.
    pub max_dimension: u32,
    /// `cooperativeMatrixWorkgroupScopeReservedSharedMemory`, bytes.
    pub reserved_shared_memory: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV
            s_type: vk::StructureType::from_raw(1_000_593_002),
            p_next: std::ptr::null_mut(),
            workgroup_invocations: 0,
            max_dimension: 0,
            reserved_shared_memory: 0,
        }
    }
}

// SAFETY: a properties struct that starts with sType and pNext, as the specification lets
// VkPhysicalDeviceProperties2 chain it.
unsafe impl vk::ExtendsPhysicalDeviceProperties2 for Limits {}

/// The limits of `physical`, which offers the extension (the caller checks).
pub fn limits(instance: &Instance, physical: vk::PhysicalDevice) -> Limits {
    let mut limits = Limits::default();
    let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut limits);
    // SAFETY: physical belongs to instance and offers the extension whose struct is chained.
    unsafe { instance.raw.get_physical_device_properties2(physical, &mut props) };
    limits.p_next = std::ptr::null_mut();
    limits
}

type GetFlexibleDimensions =
    unsafe extern "system" fn(vk::PhysicalDevice, *mut u32, *mut FlexibleDimensions) -> vk::Result;

/// The flexible-dimension shapes `physical` advertises; none where the extension is not offered
/// (the caller checks) or the entry point is missing.
pub fn flexible_shapes(instance: &Instance, physical: vk::PhysicalDevice) -> Vec<CoopMatFlexible> {
    let name = c"vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV";
    // SAFETY: instance is a live instance of this entry; the name is NUL-terminated.
    let Some(pointer) =
        (unsafe { instance.entry.get_instance_proc_addr(instance.raw.handle(), name.as_ptr()) })
    else {
        return Vec::new();
    };
    // SAFETY: the loader returned this command's entry point, whose C signature GetFlexibleDimensions
    // spells (VkPhysicalDevice, uint32_t*, VkCooperativeMatrixFlexibleDimensionsPropertiesNV*).
    let get: GetFlexibleDimensions = unsafe { std::mem::transmute(pointer) };
    let mut count = 0u32;
    // SAFETY: physical belongs to instance and offers the extension; a null array asks for the count.
    if unsafe { get(physical, &mut count, std::ptr::null_mut()) } != vk::Result::SUCCESS {
        return Vec::new();
    }
    let mut list = vec![FlexibleDimensions::default(); count as usize];
    // SAFETY: list holds count structs with their sType set and pNext null.
    let result = unsafe { get(physical, &mut count, list.as_mut_ptr()) };
    if result != vk::Result::SUCCESS && result != vk::Result::INCOMPLETE {
        return Vec::new();
    }
    list.truncate(count as usize);
    list.iter()
        .map(|p| CoopMatFlexible {
            granularity: CoopMatShape {
                m: p.m_granularity,
                n: p.n_granularity,
                k: p.k_granularity,
                a: p.a_type,
                b: p.b_type,
                c: p.c_type,
                result: p.result_type,
                saturating: p.saturating_accumulation == vk::TRUE,
                scope: p.scope,
            },
            invocations: p.workgroup_invocations,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layouts_match_the_header() {
        // sType, padding, pNext, then ten 4-byte members.
        assert_eq!(std::mem::size_of::<FlexibleDimensions>(), 56);
        assert_eq!(std::mem::offset_of!(FlexibleDimensions, workgroup_invocations), 52);
        // sType, padding, pNext, three 4-byte members, padding.
        assert_eq!(std::mem::size_of::<Limits>(), 32);
        assert_eq!(std::mem::offset_of!(Limits, reserved_shared_memory), 24);
    }
}
