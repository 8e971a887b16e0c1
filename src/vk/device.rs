//! The logical device: one compute queue, the optional features the cases can use, and its facts.

use std::ffi::CStr;

use ash::vk;

use super::instance::Instance;
use super::select::{kind_name, Row};
use crate::error::{vk_err, Result};
use crate::registry::{self, Capabilities, Requirement};

/// What the report header says about the device.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// The row that was picked, as `--devices` prints it.
    pub row: Row,
    /// The device type, as a short name.
    pub kind: &'static str,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// PCI device id.
    pub device_id: u32,
    /// `driverName` and `driverInfo` (for example "NVIDIA 580.65.06").
    pub driver: String,
    /// The device's Vulkan version, `major.minor.patch`.
    pub vulkan: String,
    /// Subgroup (warp, wave) size.
    pub subgroup_size: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    /// Valid bits of the queue family's timestamps.
    pub timestamp_valid_bits: u32,
    /// `maxComputeWorkGroupCount`.
    pub max_group_count: [u32; 3],
}

fn c_text(bytes: &[std::ffi::c_char]) -> String {
    // SAFETY: Vulkan string arrays are NUL-terminated within their fixed size.
    unsafe { CStr::from_ptr(bytes.as_ptr()) }.to_string_lossy().into_owned()
}

/// Reads the header facts and the capabilities of `physical` for `row`.
pub fn describe(instance: &Instance, physical: vk::PhysicalDevice, row: &Row) -> (DeviceInfo, Capabilities) {
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut driver).push_next(&mut subgroup);
    // SAFETY: physical belongs to instance, which supports Vulkan 1.2.
    unsafe { instance.raw.get_physical_device_properties2(physical, &mut props) };
    let p = props.properties;
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut executable = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
    let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut v12).push_next(&mut executable);
    // SAFETY: as above.
    unsafe { instance.raw.get_physical_device_features2(physical, &mut features) };
    let shader_float64 = features.features.shader_float64 == vk::TRUE;
    // SAFETY: as above.
    let extensions =
        unsafe { instance.raw.enumerate_device_extension_properties(physical) }.unwrap_or_default();
    let has_executable_properties = extensions
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(ash::khr::pipeline_executable_properties::NAME));
    let caps = Capabilities {
        shader_float16: v12.shader_float16 == vk::TRUE,
        shader_float64,
        pipeline_statistics: has_executable_properties && executable.pipeline_executable_info == vk::TRUE,
        uniform_texel_buffer_formats: supported_formats(
            instance,
            physical,
            |r| if let Requirement::UniformTexelBuffer(f) = r { Some(*f) } else { None },
            |p| p.buffer_features.contains(vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER),
        ),
        sampled_image_formats: supported_formats(
            instance,
            physical,
            |r| if let Requirement::SampledImage(f) = r { Some(*f) } else { None },
            |p| p.optimal_tiling_features.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE),
        ),
        max_workgroup_invocations: p.limits.max_compute_work_group_invocations,
        linear_filter_formats: supported_formats(
            instance,
            physical,
            |r| if let Requirement::LinearFilter(f) = r { Some(*f) } else { None },
            |p| p.optimal_tiling_features.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR),
        ),
    };
    // SAFETY: as above.
    let families = unsafe { instance.raw.get_physical_device_queue_family_properties(physical) };
    let v = p.api_version;
    let info = DeviceInfo {
        row: row.clone(),
        kind: kind_name(p.device_type),
        vendor_id: p.vendor_id,
        device_id: p.device_id,
        driver: format!("{} {}", c_text(&driver.driver_name), c_text(&driver.driver_info)).trim().to_owned(),
        vulkan: format!(
            "{}.{}.{}",
            vk::api_version_major(v),
            vk::api_version_minor(v),
            vk::api_version_patch(v)
        ),
        subgroup_size: subgroup.subgroup_size,
        timestamp_period: p.limits.timestamp_period,
        timestamp_valid_bits: families[row.family as usize].timestamp_valid_bits,
        max_group_count: p.limits.max_compute_work_group_count,
    };
    (info, caps)
}

/// Of the formats that registered cases require through `wanted`, those for which `supported`
/// holds on this device.
fn supported_formats(
    instance: &Instance,
    physical: vk::PhysicalDevice,
    wanted: impl Fn(&Requirement) -> Option<vk::Format>,
    supported: impl Fn(&vk::FormatProperties) -> bool,
) -> Vec<vk::Format> {
    let mut formats: Vec<vk::Format> =
        registry::templates().iter().flat_map(|s| s.case.requires.iter()).filter_map(&wanted).collect();
    formats.sort_by_key(|f| f.as_raw());
    formats.dedup();
    formats.retain(|&format| {
        // SAFETY: physical belongs to instance.
        let props = unsafe { instance.raw.get_physical_device_format_properties(physical, format) };
        supported(&props)
    });
    formats
}

/// Creates the device with one queue of `family` and the capabilities in `caps` enabled.
pub fn create(
    instance: &Instance,
    physical: vk::PhysicalDevice,
    family: u32,
    caps: &Capabilities,
) -> Result<(ash::Device, vk::Queue)> {
    let priorities = [1.0];
    let queues =
        [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
    let features = vk::PhysicalDeviceFeatures::default().shader_float64(caps.shader_float64);
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default().shader_float16(caps.shader_float16);
    let mut executable = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(caps.pipeline_statistics);
    let extensions: Vec<*const std::ffi::c_char> = if caps.pipeline_statistics {
        vec![ash::khr::pipeline_executable_properties::NAME.as_ptr()]
    } else {
        Vec::new()
    };
    let mut info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features)
        .enabled_extension_names(&extensions)
        .push_next(&mut v12);
    if caps.pipeline_statistics {
        info = info.push_next(&mut executable);
    }
    // SAFETY: only supported features are enabled; every pointer lives across the call.
    let device =
        unsafe { instance.raw.create_device(physical, &info, None) }.map_err(vk_err("vkCreateDevice"))?;
    // SAFETY: the queue (family, 0) was requested above.
    let queue = unsafe { device.get_device_queue(family, 0) };
    Ok((device, queue))
}
