//! The logical device: one compute queue, the optional features the cases can use, and its facts.

use std::ffi::CStr;

use ash::vk;

use super::features::FeatureStructs;
use super::instance::Instance;
use crate::caps::{kind_name, link, ComputeUnits, DeviceInfo, HostLink, Identity, Row};
use crate::caps::{
    CoopMatShape, DeviceCaps, Feature, FeatureSet, FloatControl, Heap, Limits, MemoryType, QueueFamily,
};
use crate::error::{vk_err, Result};

/// The compute units `physical` reports through a vendor extension it offers
/// (VK_NV_shader_sm_builtins, VK_AMD_shader_core_properties(2) or VK_ARM_shader_core_builtins).
fn compute_units(
    instance: &Instance,
    physical: vk::PhysicalDevice,
    offered: &[vk::ExtensionProperties],
) -> Option<ComputeUnits> {
    let mut nv = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
    let mut amd = vk::PhysicalDeviceShaderCorePropertiesAMD::default();
    let mut amd2 = vk::PhysicalDeviceShaderCoreProperties2AMD::default();
    let mut arm = vk::PhysicalDeviceShaderCoreBuiltinsPropertiesARM::default();
    let (has_nv, has_amd, has_amd2, has_arm) = (
        offers(offered, ash::nv::shader_sm_builtins::NAME),
        offers(offered, ash::amd::shader_core_properties::NAME),
        offers(offered, ash::amd::shader_core_properties2::NAME),
        offers(offered, ash::arm::shader_core_builtins::NAME),
    );
    let mut props = vk::PhysicalDeviceProperties2::default();
    if has_nv {
        props = props.push_next(&mut nv);
    }
    if has_amd {
        props = props.push_next(&mut amd);
    }
    if has_amd2 {
        props = props.push_next(&mut amd2);
    }
    if has_arm {
        props = props.push_next(&mut arm);
    }
    // SAFETY: physical belongs to instance (Vulkan 1.2); only structs of offered extensions are
    // chained, and each lives across the call.
    unsafe { instance.raw.get_physical_device_properties2(physical, &mut props) };
    // The active count where the driver gives it (a cut-down chip has fewer CUs than its layout).
    let amd_layout = amd
        .shader_engine_count
        .checked_mul(amd.shader_arrays_per_engine_count)
        .and_then(|n| n.checked_mul(amd.compute_units_per_shader_array))
        .unwrap_or(0);
    let (amd_count, amd_source) = if has_amd2 && amd2.active_compute_unit_count > 0 {
        (amd2.active_compute_unit_count, "VK_AMD_shader_core_properties2")
    } else {
        (amd_layout, "VK_AMD_shader_core_properties")
    };
    let found = [
        (has_nv, nv.shader_sm_count, "SM", "VK_NV_shader_sm_builtins"),
        (has_amd || has_amd2, amd_count, "CU", amd_source),
        (has_arm, arm.shader_core_count, "core", "VK_ARM_shader_core_builtins"),
    ];
    found
        .into_iter()
        .find(|(offered, count, _, _)| *offered && *count > 0)
        .map(|(_, count, name, source)| ComputeUnits { count, name, source })
}

fn c_text(bytes: &[std::ffi::c_char]) -> String {
    // SAFETY: Vulkan string arrays are NUL-terminated within their fixed size.
    unsafe { CStr::from_ptr(bytes.as_ptr()) }.to_string_lossy().into_owned()
}

/// The device extensions `physical` offers.
fn extensions(instance: &Instance, physical: vk::PhysicalDevice) -> Vec<vk::ExtensionProperties> {
    // SAFETY: physical belongs to instance.
    unsafe { instance.raw.enumerate_device_extension_properties(physical) }.unwrap_or_default()
}

fn offers(list: &[vk::ExtensionProperties], name: &CStr) -> bool {
    list.iter().any(|e| e.extension_name_as_c_str() == Ok(name))
}

/// The PCIe link of `physical` (a discrete or virtual GPU), read from sysfs at the address
/// VK_EXT_pci_bus_info gives; why not otherwise.
fn host_link(pci: Option<&str>, kind: vk::PhysicalDeviceType) -> std::result::Result<HostLink, String> {
    if matches!(kind, vk::PhysicalDeviceType::CPU | vk::PhysicalDeviceType::INTEGRATED_GPU) {
        return Err("none: the device works in the host's memory".into());
    }
    let Some(address) = pci else {
        return Err(
            "unknown: the driver does not offer VK_EXT_pci_bus_info, which gives the PCI address".into()
        );
    };
    link::read(std::path::Path::new(link::SYSFS), address).map_err(|why| format!("unknown: {why}"))
}

/// The PCI address of `physical` (`0000:1b:00.0`), where it offers VK_EXT_pci_bus_info.
/// Whether `device` lists `VK_KHR_portability_subset`.
pub fn offers_portability_subset(instance: &Instance, device: vk::PhysicalDevice) -> bool {
    // SAFETY: device comes from this instance.
    let offered = unsafe { instance.raw.enumerate_device_extension_properties(device) }.unwrap_or_default();
    offered.iter().any(|e| e.extension_name_as_c_str() == Ok(ash::khr::portability_subset::NAME))
}

/// A physical device's `deviceUUID` and PCI address (where it offers VK_EXT_pci_bus_info): what
/// tells two GPUs of one model apart before any is opened.
pub fn identify(instance: &Instance, physical: vk::PhysicalDevice) -> ([u8; 16], Option<String>) {
    let mut id = vk::PhysicalDeviceIDProperties::default();
    let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
    // SAFETY: physical belongs to instance (Vulkan 1.2, where the ID properties are core); the
    // chained struct lives across the call.
    unsafe { instance.raw.get_physical_device_properties2(physical, &mut props) };
    let uuid = id.device_uuid;
    (uuid, pci_address(instance, physical, &extensions(instance, physical)))
}

fn pci_address(
    instance: &Instance,
    physical: vk::PhysicalDevice,
    offered: &[vk::ExtensionProperties],
) -> Option<String> {
    if !offers(offered, ash::ext::pci_bus_info::NAME) {
        return None;
    }
    let mut bus = vk::PhysicalDevicePCIBusInfoPropertiesEXT::default();
    let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut bus);
    // SAFETY: physical belongs to instance (Vulkan 1.2); the chained struct is the offered
    // extension's and lives across the call.
    unsafe { instance.raw.get_physical_device_properties2(physical, &mut props) };
    Some(link::address(bus.pci_domain, bus.pci_bus, bus.pci_device, bus.pci_function))
}

/// Whether `physical` accelerates packed 4x8-bit dot products (signed, unsigned); `None` where
/// it does not offer VK_KHR_shader_integer_dot_product.
fn integer_dot_accelerated(
    instance: &Instance,
    physical: vk::PhysicalDevice,
    offered: &[vk::ExtensionProperties],
) -> Option<(bool, bool)> {
    if !offers(offered, ash::khr::shader_integer_dot_product::NAME) {
        return None;
    }
    let mut dot = vk::PhysicalDeviceShaderIntegerDotProductProperties::default();
    let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut dot);
    // SAFETY: physical belongs to instance and offers the extension whose struct is chained.
    unsafe { instance.raw.get_physical_device_properties2(physical, &mut props) };
    Some((
        dot.integer_dot_product4x8_bit_packed_signed_accelerated == vk::TRUE,
        dot.integer_dot_product4x8_bit_packed_unsigned_accelerated == vk::TRUE,
    ))
}

/// The cooperative-matrix shapes `physical` advertises; none without VK_KHR_cooperative_matrix.
fn cooperative_matrix_shapes(
    instance: &Instance,
    physical: vk::PhysicalDevice,
    offered: &[vk::ExtensionProperties],
) -> Vec<CoopMatShape> {
    if !offers(offered, ash::khr::cooperative_matrix::NAME) {
        return Vec::new();
    }
    let loader = ash::khr::cooperative_matrix::Instance::new(&instance.entry, &instance.raw);
    // SAFETY: physical belongs to instance and offers the extension.
    let list = unsafe { loader.get_physical_device_cooperative_matrix_properties(physical) };
    list.unwrap_or_default()
        .iter()
        .map(|p| CoopMatShape {
            m: p.m_size,
            n: p.n_size,
            k: p.k_size,
            a: p.a_type,
            b: p.b_type,
            c: p.c_type,
            result: p.result_type,
            saturating: p.saturating_accumulation == vk::TRUE,
            scope: p.scope,
        })
        .collect()
}

/// The optional features `physical` supports (those of absent extensions read as unsupported).
fn supported_features(
    instance: &Instance,
    physical: vk::PhysicalDevice,
    offered: &[vk::ExtensionProperties],
) -> FeatureSet {
    let mut s = FeatureStructs::default();
    let mut features2 = s.chain(vk::PhysicalDeviceFeatures2::default(), |name| offers(offered, name));
    // SAFETY: physical belongs to instance, which supports Vulkan 1.2; every chained struct lives
    // across the call.
    unsafe { instance.raw.get_physical_device_features2(physical, &mut features2) };
    let core = features2.features;
    s.core = core;
    s.set_of()
}

/// Reads the header facts of `physical` for `row`, and its capabilities, with the properties of
/// `formats` (the formats the selected cases use) and, with `coopmat2_limits`, the limits of
/// VK_NV_cooperative_matrix2 (read only for runs with workgroup-scope cases: validation layers
/// older than the extension report its properties struct as unknown).
pub fn describe(
    instance: &Instance,
    physical: vk::PhysicalDevice,
    row: &Row,
    formats: &[vk::Format],
    coopmat2_limits: bool,
) -> (DeviceInfo, DeviceCaps) {
    // The device extensions, enumerated once for every query below that depends on them.
    let offered = extensions(instance, physical);
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut v11 = vk::PhysicalDeviceVulkan11Properties::default();
    let mut float_controls = vk::PhysicalDeviceFloatControlsProperties::default();
    let mut props = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut driver)
        .push_next(&mut subgroup)
        .push_next(&mut v11)
        .push_next(&mut float_controls);
    // SAFETY: physical belongs to instance, which supports Vulkan 1.2.
    unsafe { instance.raw.get_physical_device_properties2(physical, &mut props) };
    let p = props.properties;
    // What each heap has free now (VK_EXT_memory_budget: its budget less what this process uses),
    // where the device tells it.
    let budget = offers(&offered, ash::ext::memory_budget::NAME).then(|| {
        let mut budget = vk::PhysicalDeviceMemoryBudgetPropertiesEXT::default();
        let mut memory = vk::PhysicalDeviceMemoryProperties2::default().push_next(&mut budget);
        // SAFETY: physical belongs to instance and offers the extension whose struct is chained.
        unsafe { instance.raw.get_physical_device_memory_properties2(physical, &mut memory) };
        let count = memory.memory_properties.memory_heap_count as usize;
        (0..count).map(|i| budget.heap_budget[i].saturating_sub(budget.heap_usage[i])).collect::<Vec<u64>>()
    });
    // SAFETY: as above.
    let memory = unsafe { instance.raw.get_physical_device_memory_properties(physical) };
    let heaps = memory.memory_heaps_as_slice().iter().enumerate().map(|(i, h)| Heap {
        bytes: h.size,
        device_local: h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL),
        free: budget.as_ref().and_then(|b| b.get(i).copied()),
    });
    let formats = formats.iter().map(|&format| {
        // SAFETY: physical belongs to instance.
        (format, unsafe { instance.raw.get_physical_device_format_properties(physical, format) })
    });
    let limits = &p.limits;
    let has_coopmat2 = offers(&offered, crate::caps::COOPERATIVE_MATRIX2);
    let coopmat2 = (has_coopmat2 && coopmat2_limits).then(|| super::coopmat2::limits(instance, physical));
    // SAFETY: physical belongs to instance.
    let families = unsafe { instance.raw.get_physical_device_queue_family_properties(physical) };
    let caps = DeviceCaps {
        features: supported_features(instance, physical, &offered),
        limits: Limits {
            workgroup_invocations: limits.max_compute_work_group_invocations,
            workgroup_size: limits.max_compute_work_group_size,
            shared_memory_bytes: limits.max_compute_shared_memory_size,
            push_constant_bytes: limits.max_push_constants_size,
            storage_buffer_range: u64::from(limits.max_storage_buffer_range),
            uniform_buffer_range: u64::from(limits.max_uniform_buffer_range),
            texel_buffer_elements: u64::from(limits.max_texel_buffer_elements),
            allocation_bytes: v11.max_memory_allocation_size,
            cooperative_matrix_dimension: coopmat2.map_or(0, |l| l.max_dimension),
            cooperative_matrix_workgroup: coopmat2.map_or(0, |l| l.workgroup_invocations),
        },
        formats: formats.collect(),
        subgroup_size: subgroup.subgroup_size,
        subgroup_operations: if subgroup.supported_stages.contains(vk::ShaderStageFlags::COMPUTE) {
            subgroup.supported_operations
        } else {
            vk::SubgroupFeatureFlags::empty()
        },
        heaps: heaps.collect(),
        memory_types: memory
            .memory_types_as_slice()
            .iter()
            .map(|t| MemoryType {
                flags: t.property_flags,
                heap: t.heap_index,
                heap_bytes: memory.memory_heaps[t.heap_index as usize].size,
            })
            .collect(),
        cooperative_matrix: cooperative_matrix_shapes(instance, physical, &offered),
        cooperative_matrix_flexible: if has_coopmat2 {
            super::coopmat2::flexible_shapes(instance, physical)
        } else {
            Vec::new()
        },
        float16_controls: [
            (FloatControl::DenormFlushToZero16, float_controls.shader_denorm_flush_to_zero_float16),
            (FloatControl::RoundingModeRte16, float_controls.shader_rounding_mode_rte_float16),
            (
                FloatControl::SignedZeroInfNanPreserve16,
                float_controls.shader_signed_zero_inf_nan_preserve_float16,
            ),
        ]
        .into_iter()
        .filter(|(_, on)| *on == vk::TRUE)
        .map(|(control, _)| control)
        .collect(),
        vulkan_1_3: p.api_version.min(instance.api_version) >= vk::API_VERSION_1_3,
        queue_families: families
            .iter()
            .map(|f| QueueFamily { flags: f.queue_flags, timestamp_valid_bits: f.timestamp_valid_bits })
            .collect(),
        compute_units: compute_units(instance, physical, &offered).map(|u| u.count),
    };
    let v = p.api_version;
    let pci = pci_address(instance, physical, &offered);
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
        simulating: None,
        compute_units: compute_units(instance, physical, &offered),
        cooperative_matrix: caps.cooperative_matrix.clone(),
        cooperative_matrix_flexible: caps.cooperative_matrix_flexible.clone(),
        cooperative_matrix2_limits: coopmat2
            .map(|l| (l.workgroup_invocations, l.max_dimension, l.reserved_shared_memory)),
        bfloat16: offers(&offered, crate::caps::SHADER_BFLOAT16).then(|| {
            let f = &caps.features;
            [
                Feature::ShaderBfloat16Type,
                Feature::ShaderBfloat16DotProduct,
                Feature::ShaderBfloat16CooperativeMatrix,
            ]
            .into_iter()
            .filter(|&feature| f.get(feature))
            .collect()
        }),
        integer_dot_accelerated: integer_dot_accelerated(instance, physical, &offered),
        host_link: host_link(pci.as_deref(), p.device_type),
        identity: Identity {
            device_uuid: v11.device_uuid,
            driver_uuid: v11.driver_uuid,
            pci,
            driver_version: p.driver_version,
        },
    };
    (info, caps)
}

/// Lowers what the device reports (`info`, `caps`) to `profile` (`--simulate`): its limits,
/// features, format uses, and the queue's timestamp bits (0: timed by CPU fences).
pub fn simulate(profile: &crate::caps::profile::Profile, info: &mut DeviceInfo, caps: &mut DeviceCaps) {
    profile.clamp(caps);
    info.timestamp_valid_bits = profile.clamp_timestamp_bits(info.timestamp_valid_bits);
    info.max_group_count = profile.clamp_group_count(info.max_group_count);
    info.simulating = Some(profile.name.clone());
}

/// Creates the device with one queue of `family` and one of each of `side` (other families, for
/// transfers), the features in `enabled` and the extensions they need. Returns the device, the
/// queue of `family` and those of `side`, in order.
pub fn create(
    instance: &Instance,
    physical: vk::PhysicalDevice,
    family: u32,
    side: &[u32],
    enabled: &FeatureSet,
) -> Result<(ash::Device, vk::Queue, Vec<vk::Queue>)> {
    let priorities = [1.0];
    let queues: Vec<vk::DeviceQueueCreateInfo> = std::iter::once(family)
        .chain(side.iter().copied())
        .map(|f| vk::DeviceQueueCreateInfo::default().queue_family_index(f).queue_priorities(&priorities))
        .collect();
    let wanted = enabled.extensions();
    let mut extensions: Vec<*const std::ffi::c_char> = wanted.iter().map(|e| e.as_ptr()).collect();
    // A portability implementation (MoltenVK) must be created with the extension that says so.
    if offers_portability_subset(instance, physical) {
        extensions.push(ash::khr::portability_subset::NAME.as_ptr());
    }
    let mut s = FeatureStructs::of(*enabled);
    let mut features2 =
        s.chain(vk::PhysicalDeviceFeatures2::default().features(s.core), |name| wanted.contains(&name));
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&extensions)
        .push_next(&mut features2);
    // SAFETY: only supported features are enabled, with their extensions; every pointer lives
    // across the call.
    let device =
        unsafe { instance.raw.create_device(physical, &info, None) }.map_err(vk_err("vkCreateDevice"))?;
    // SAFETY: the queue (family, 0) was requested above.
    let queue = unsafe { device.get_device_queue(family, 0) };
    // SAFETY: as above, for each side family.
    let side = side.iter().map(|&f| unsafe { device.get_device_queue(f, 0) }).collect();
    Ok((device, queue, side))
}
