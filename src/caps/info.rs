//! What a run reports about its device: the row picked (a device and one compute queue family)
//! and the facts the header shows. Plain data: `vk` fills it in, reports render it.

use std::fmt;

use ash::vk;

use super::{CoopMatFlexible, CoopMatShape, Feature};

/// One selectable row: a physical device and one of its compute-capable queue families.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Index into `vkEnumeratePhysicalDevices`.
    pub device: usize,
    /// The device name.
    pub name: String,
    /// The queue family index.
    pub family: u32,
    /// Discrete, integrated, virtual, CPU or other.
    pub kind: vk::PhysicalDeviceType,
    /// Whether the queue family has timestamps (`timestampValidBits > 0`); without them every
    /// time is the CPU's, around each submission and its fence.
    pub timestamps: bool,
    /// Whether the device is a portability implementation (it lists `VK_KHR_portability_subset`,
    /// as MoltenVK does): the loader shows it only to perftest's portability-enumerating instance,
    /// and the device is created with the extension enabled, as the specification requires.
    pub portability: bool,
    /// The device's `deviceUUID`.
    pub uuid: [u8; 16],
    /// The device's PCI address, where the driver offers VK_EXT_pci_bus_info.
    pub pci: Option<String>,
}

impl Row {
    /// Whether `word` names this row's device: its name contains it (any case), or it is the
    /// device's PCI address (with or without the domain) or the start of its UUID.
    pub fn named(&self, word: &str) -> bool {
        let word = word.to_lowercase();
        let uuid = super::Identity::uuid_text(&self.uuid);
        let pci = self.pci.as_deref().unwrap_or_default();
        self.name.to_lowercase().contains(&word)
            || (!pci.is_empty() && (pci == word || pci.strip_prefix("0000:") == Some(word.as_str())))
            || (word.len() >= 4 && (uuid.starts_with(&word) || uuid.replace('-', "").starts_with(&word)))
    }
}

/// A short name for a device type, as rows print it.
pub fn kind_name(kind: vk::PhysicalDeviceType) -> &'static str {
    match kind {
        vk::PhysicalDeviceType::DISCRETE_GPU => "DiscreteGpu",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "IntegratedGpu",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "VirtualGpu",
        vk::PhysicalDeviceType::CPU => "Cpu",
        _ => "Other",
    }
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let subset = if self.portability { ", portability subset" } else { "" };
        let fences = if self.timestamps { "" } else { ", no timestamps: timed by CPU fences" };
        write!(
            f,
            "{} (compute queue: {}, type: {}{subset}{fences})",
            self.name,
            self.family,
            kind_name(self.kind)
        )
    }
}

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
    /// The device profile `--simulate` clamps this device to, by name.
    pub simulating: Option<String>,
    /// The number of compute units, where the driver tells it.
    pub compute_units: Option<ComputeUnits>,
    /// The cooperative-matrix shapes it advertises (the `coopmat` family runs the ones GLSL can name).
    pub cooperative_matrix: Vec<CoopMatShape>,
    /// The flexible-dimension shape families of VK_NV_cooperative_matrix2 (empty without it).
    pub cooperative_matrix_flexible: Vec<CoopMatFlexible>,
    /// VK_NV_cooperative_matrix2's limits: the largest workgroup-scope workgroup, the largest
    /// flexible dimension, and the shared memory reserved for workgroup scope (bytes).
    pub cooperative_matrix2_limits: Option<(u32, u32, u32)>,
    /// The bfloat16 features it supports; `None` without VK_KHR_shader_bfloat16.
    pub bfloat16: Option<Vec<Feature>>,
    /// Whether packed 4x8-bit dot products are accelerated, signed and unsigned
    /// (VkPhysicalDeviceShaderIntegerDotProductProperties); `None` without the extension.
    pub integer_dot_accelerated: Option<(bool, bool)>,
    /// The PCIe link host transfers cross, or why it is unknown or there is none.
    pub host_link: Result<super::HostLink, String>,
    /// What tells this device and its driver from others of the same name.
    pub identity: Identity,
}

/// What tells one physical device and its driver from another of the same model: the UUIDs
/// (VkPhysicalDeviceIDProperties), the PCI address (VK_EXT_pci_bus_info) and the driver's version.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// `deviceUUID`: the same for one device across processes and APIs.
    pub device_uuid: [u8; 16],
    /// `driverUUID`: the same for one driver build.
    pub driver_uuid: [u8; 16],
    /// `domain:bus:device.function` (`0000:1b:00.0`), where the driver offers VK_EXT_pci_bus_info.
    pub pci: Option<String>,
    /// `driverVersion`, as the driver encodes it.
    pub driver_version: u32,
}

impl Identity {
    /// A UUID as text: `8-4-4-4-12` hexadecimal digits.
    pub fn uuid_text(uuid: &[u8; 16]) -> String {
        let hex: String = uuid.iter().map(|b| format!("{b:02x}")).collect();
        format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
    }
}

/// How many compute units (SMs, CUs, shader cores) a device has, and where that came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComputeUnits {
    /// How many.
    pub count: u32,
    /// What the vendor calls one: `SM`, `CU` or `core`.
    pub name: &'static str,
    /// The extension that told it.
    pub source: &'static str,
}
