//! `--simulate`: a device profile in the Khronos Vulkan Profiles JSON format, and clamping what a
//! device reports to it, so that a run plans as it would on that device: its limits, its features,
//! the format uses it allows and its compute queue's timestamp bits. Only the part of the format
//! perftest reads is read, and no value is raised above what the device has. The subgroup size is
//! not clamped: it is how the hardware executes, not something a driver may lower.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ash::vk;
use serde_json::Value;

use super::{DeviceCaps, Feature};

/// What a profile says about the facts perftest plans with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// The profile's name (its `profiles` key), or the file's stem.
    pub name: String,
    /// Limits by their Vulkan names (`maxComputeWorkGroupInvocations`, ...).
    pub limits: BTreeMap<String, u64>,
    /// The features it has (members set to true in any feature struct).
    pub features: BTreeSet<String>,
    /// Format properties by format (`R8G8B8A8_UNORM`): buffer and optimal-tiling features;
    /// `None` if the profile lists no formats at all (a profile of limits, such as the
    /// specification's minimums), which leaves formats as the device has them.
    pub formats: Option<BTreeMap<String, (vk::FormatFeatureFlags, vk::FormatFeatureFlags)>>,
    /// The subgroup operations it supports (`VK_SUBGROUP_FEATURE_*`), where it says.
    pub subgroup_operations: Option<vk::SubgroupFeatureFlags>,
    /// The most timestamp bits among its compute queue families, where it lists any.
    pub timestamp_valid_bits: Option<u32>,
}

/// The limits perftest reads, by their Vulkan names.
const LIMITS: [&str; 8] = [
    "maxComputeWorkGroupInvocations",
    "maxComputeSharedMemorySize",
    "maxPushConstantsSize",
    "maxStorageBufferRange",
    "maxUniformBufferRange",
    "maxTexelBufferElements",
    "maxMemoryAllocationSize",
    "maxComputeWorkGroupCount",
];

/// The format features perftest's format uses test, by their Vulkan names.
const FORMAT_FEATURES: [(&str, vk::FormatFeatureFlags); 5] = [
    ("VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT", vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER),
    ("VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT", vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER),
    ("VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT", vk::FormatFeatureFlags::SAMPLED_IMAGE),
    (
        "VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT",
        vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR,
    ),
    ("VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT", vk::FormatFeatureFlags::STORAGE_IMAGE),
];

/// The subgroup operations, by their Vulkan names.
const SUBGROUP_OPERATIONS: [(&str, vk::SubgroupFeatureFlags); 8] = [
    ("VK_SUBGROUP_FEATURE_BASIC_BIT", vk::SubgroupFeatureFlags::BASIC),
    ("VK_SUBGROUP_FEATURE_VOTE_BIT", vk::SubgroupFeatureFlags::VOTE),
    ("VK_SUBGROUP_FEATURE_ARITHMETIC_BIT", vk::SubgroupFeatureFlags::ARITHMETIC),
    ("VK_SUBGROUP_FEATURE_BALLOT_BIT", vk::SubgroupFeatureFlags::BALLOT),
    ("VK_SUBGROUP_FEATURE_SHUFFLE_BIT", vk::SubgroupFeatureFlags::SHUFFLE),
    ("VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT", vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE),
    ("VK_SUBGROUP_FEATURE_CLUSTERED_BIT", vk::SubgroupFeatureFlags::CLUSTERED),
    ("VK_SUBGROUP_FEATURE_QUAD_BIT", vk::SubgroupFeatureFlags::QUAD),
];

impl Profile {
    /// Reads a profile file; the problem as a sentence if it is not one.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("{} cannot be read ({e})", path.display()))?;
        let json: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON ({e}); pass a Vulkan Profiles JSON file", path.display()))?;
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        Self::from_json(&json, &stem).map_err(|problem| format!("{} {problem}", path.display()))
    }

    /// The profile in `json`, named by its first profile (or `fallback`): every capabilities
    /// block of the file is read, as a device profile holds one and a baseline holds what all of
    /// its alternatives require.
    pub fn from_json(json: &Value, fallback: &str) -> Result<Self, String> {
        let blocks = json.get("capabilities").and_then(Value::as_object).ok_or(
            "is not a Vulkan Profiles file (no \"capabilities\"); see github.com/KhronosGroup/Vulkan-Profiles",
        )?;
        let name = json
            .get("profiles")
            .and_then(Value::as_object)
            .and_then(|p| p.keys().next().cloned())
            .unwrap_or_else(|| fallback.to_owned());
        let mut profile = Profile { name, ..Profile::default() };
        for block in blocks.values() {
            profile.read_block(block);
        }
        Ok(profile)
    }

    fn read_block(&mut self, block: &Value) {
        for structure in
            block.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.values())
        {
            let limits = structure.get("limits").unwrap_or(structure);
            for name in LIMITS {
                let value = match limits.get(name) {
                    Some(Value::Array(counts)) => counts.first().and_then(Value::as_u64),
                    Some(value) => value.as_u64(),
                    None => None,
                };
                if let Some(value) = value {
                    let kept = self.limits.entry(name.to_owned()).or_insert(value);
                    *kept = (*kept).min(value);
                }
            }
            // The one per-dimension limit perftest reads, kept as `maxComputeWorkGroupSize[i]`.
            if let Some(Value::Array(sizes)) = limits.get("maxComputeWorkGroupSize") {
                for (i, size) in sizes.iter().enumerate().filter_map(|(i, v)| Some((i, v.as_u64()?))) {
                    let kept = self.limits.entry(format!("maxComputeWorkGroupSize[{i}]")).or_insert(size);
                    *kept = (*kept).min(size);
                }
            }
            if let Some(Value::Array(names)) = structure.get("supportedOperations") {
                let flags = flag_set(names, &SUBGROUP_OPERATIONS);
                self.subgroup_operations = Some(self.subgroup_operations.map_or(flags, |f| f & flags));
            }
        }
        for structure in block.get("features").and_then(Value::as_object).into_iter().flat_map(|f| f.values())
        {
            let members = structure.as_object().into_iter().flatten();
            self.features.extend(members.filter(|(_, v)| v.as_bool() == Some(true)).map(|(k, _)| k.clone()));
        }
        for (format, properties) in block.get("formats").and_then(Value::as_object).into_iter().flatten() {
            let props =
                properties.get("VkFormatProperties").or_else(|| properties.get("VkFormatProperties2"));
            let list = |key: &str| {
                props
                    .and_then(|p| p.get(key))
                    .and_then(Value::as_array)
                    .map_or_else(Default::default, |names| flag_set(names, &FORMAT_FEATURES))
            };
            let name = format.trim_start_matches("VK_FORMAT_").to_owned();
            let formats = self.formats.get_or_insert_with(BTreeMap::new);
            formats.insert(name, (list("bufferFeatures"), list("optimalTilingFeatures")));
        }
        for family in block.get("queueFamiliesProperties").and_then(Value::as_array).into_iter().flatten() {
            let Some(props) = family.get("VkQueueFamilyProperties") else { continue };
            let compute = props
                .get("queueFlags")
                .and_then(Value::as_array)
                .is_some_and(|flags| flags.iter().any(|f| f.as_str() == Some("VK_QUEUE_COMPUTE_BIT")));
            let bits = props.get("timestampValidBits").and_then(Value::as_u64);
            if let (true, Some(bits)) = (compute, bits) {
                let bits = bits as u32;
                self.timestamp_valid_bits = Some(self.timestamp_valid_bits.map_or(bits, |b| b.max(bits)));
            }
        }
    }

    /// Lowers `caps` to the profile: each limit it names to at most its value, each feature it
    /// lacks off, each format use its format's properties lack off (a format it does not list
    /// has none, if it lists any), the subgroup operations to those it lists. Nothing is raised.
    pub fn clamp(&self, caps: &mut DeviceCaps) {
        let limit = |name: &str| self.limits.get(name).copied();
        let lower32 = |has: &mut u32, name: &str| {
            if let Some(v) = limit(name) {
                *has = (*has).min(u32::try_from(v).unwrap_or(u32::MAX));
            }
        };
        lower32(&mut caps.limits.workgroup_invocations, "maxComputeWorkGroupInvocations");
        for (i, size) in caps.limits.workgroup_size.iter_mut().enumerate() {
            lower32(size, &format!("maxComputeWorkGroupSize[{i}]"));
        }
        lower32(&mut caps.limits.shared_memory_bytes, "maxComputeSharedMemorySize");
        lower32(&mut caps.limits.push_constant_bytes, "maxPushConstantsSize");
        let lower64 = |has: &mut u64, name: &str| {
            if let Some(v) = limit(name) {
                *has = (*has).min(v);
            }
        };
        lower64(&mut caps.limits.storage_buffer_range, "maxStorageBufferRange");
        lower64(&mut caps.limits.uniform_buffer_range, "maxUniformBufferRange");
        lower64(&mut caps.limits.texel_buffer_elements, "maxTexelBufferElements");
        lower64(&mut caps.limits.allocation_bytes, "maxMemoryAllocationSize");
        for &feature in Feature::ALL {
            if !self.features.contains(feature.vk_name()) {
                caps.features.set(feature, false);
            }
        }
        if let Some(formats) = &self.formats {
            for (format, props) in &mut caps.formats {
                let (buffer, optimal) = formats.get(&format!("{format:?}")).copied().unwrap_or_default();
                props.buffer_features &= buffer;
                props.optimal_tiling_features &= optimal;
                props.linear_tiling_features = vk::FormatFeatureFlags::empty();
            }
        }
        if let Some(operations) = self.subgroup_operations {
            caps.subgroup_operations &= operations;
        }
    }

    /// The device's `maxComputeWorkGroupCount`, at most the profile's (its x; y and z alike).
    pub fn clamp_group_count(&self, count: [u32; 3]) -> [u32; 3] {
        let most = self
            .limits
            .get("maxComputeWorkGroupCount")
            .map_or(u32::MAX, |&v| u32::try_from(v).unwrap_or(u32::MAX));
        count.map(|c| c.min(most))
    }

    /// The device's timestamp bits, at most the profile's (0: the profile's queue has none).
    pub fn clamp_timestamp_bits(&self, bits: u32) -> u32 {
        self.timestamp_valid_bits.map_or(bits, |most| bits.min(most))
    }
}

/// The flags of `names` among `known` (names perftest does not test are left out).
fn flag_set<F: Copy + std::ops::BitOr<Output = F> + Default>(names: &[Value], known: &[(&str, F)]) -> F {
    names.iter().filter_map(Value::as_str).fold(F::default(), |all, name| {
        known.iter().find(|(n, _)| *n == name).map_or(all, |(_, flag)| all | *flag)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Profile {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/profiles").join(format!("{name}.json"));
        Profile::load(&path).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_profile_gives_its_limits_features_formats_and_timestamp_bits() {
        let mali = fixture("mali-g78");
        assert_eq!(mali.limits["maxComputeWorkGroupInvocations"], 512);
        assert_eq!(mali.limits["maxComputeSharedMemorySize"], 32768);
        assert!(!mali.features.contains("shaderFloat64") && !mali.features.contains("shaderInt64"));
        let powervr = fixture("powervr-ge8300");
        assert_eq!(powervr.timestamp_valid_bits, Some(0), "a compute queue without timestamps");
        assert_eq!(powervr.clamp_timestamp_bits(64), 0);
        let minimum = fixture("vulkan-minimum");
        assert_eq!(minimum.limits["maxComputeWorkGroupInvocations"], 128);
        assert_eq!(minimum.limits["maxStorageBufferRange"], 1 << 27);
    }

    #[test]
    fn clamping_lowers_and_never_raises() {
        let mut caps = DeviceCaps::default();
        caps.limits.workgroup_invocations = 1024;
        caps.limits.storage_buffer_range = 64 << 20;
        caps.features.set(Feature::ShaderFloat64, true);
        let mali = fixture("mali-g78");
        mali.clamp(&mut caps);
        assert_eq!(caps.limits.workgroup_invocations, 512, "lowered");
        assert_eq!(caps.limits.storage_buffer_range, 64 << 20, "the device's 64 MiB is kept under 256 MiB");
        assert!(!caps.features.get(Feature::ShaderFloat64));
        let bad = Profile::from_json(&serde_json::json!({"hello": 1}), "x").unwrap_err();
        assert!(bad.contains("is not a Vulkan Profiles file"), "{bad}");
    }
}
