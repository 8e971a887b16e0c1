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
    /// The file it was read from (an input no output of the run may replace).
    pub source: std::path::PathBuf,
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

/// The limits perftest reads, by their Vulkan names, with the least value the Vulkan
/// specification allows (its table of required limits) and the most their type holds.
const LIMITS: [(&str, u64, u64); 8] = [
    ("maxComputeWorkGroupInvocations", 128, U32),
    ("maxComputeSharedMemorySize", 16384, U32),
    ("maxPushConstantsSize", 128, U32),
    ("maxStorageBufferRange", 1 << 27, U32),
    ("maxUniformBufferRange", 16384, U32),
    ("maxTexelBufferElements", 65536, U32),
    ("maxMemoryAllocationSize", 1 << 30, u64::MAX),
    ("maxComputeWorkGroupCount", 65535, U32),
];

const U32: u64 = u32::MAX as u64;

/// The least `maxComputeWorkGroupSize` the specification allows, per dimension.
const LEAST_WORKGROUP_SIZE: [u64; 3] = [128, 128, 64];

/// The largest profile file perftest reads (Khronos' and gpuinfo.org's are below 1 MiB).
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// The longest profile name kept (a header line names it).
const MAX_NAME_CHARS: usize = 256;

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
        let named = |problem: String| format!("{} {problem}", path.display());
        let text =
            crate::bounded::read_json(path, MAX_FILE_BYTES, "a Vulkan Profiles JSON file").map_err(named)?;
        let json: Value = serde_json::from_str(&text)
            .map_err(|e| named(format!("is not JSON ({e}); pass a Vulkan Profiles JSON file")))?;
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let profile = Self::from_json(&json, &stem).map_err(named)?;
        Ok(Profile { source: path.to_path_buf(), ..profile })
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
        if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
            return Err(format!(
                "has a profile name of more than {MAX_NAME_CHARS} characters, or with control characters; \
                 rename it"
            ));
        }
        let mut profile = Profile { name, ..Profile::default() };
        for block in blocks.values() {
            profile.read_block(block)?;
        }
        Ok(profile)
    }

    fn read_block(&mut self, block: &Value) -> Result<(), String> {
        for structure in
            block.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.values())
        {
            let limits = structure.get("limits").unwrap_or(structure);
            for (name, least, most) in LIMITS {
                let value = match limits.get(name) {
                    Some(Value::Array(counts)) => counts.first(),
                    other => other,
                };
                if let Some(value) = value {
                    let value = in_range(name, value, least, most)?;
                    let kept = self.limits.entry(name.to_owned()).or_insert(value);
                    *kept = (*kept).min(value);
                }
            }
            // The one per-dimension limit perftest reads, kept as `maxComputeWorkGroupSize[i]`.
            if let Some(sizes) = limits.get("maxComputeWorkGroupSize") {
                let sizes = sizes.as_array().filter(|s| s.len() == 3).ok_or_else(|| {
                    format!("has maxComputeWorkGroupSize = {}, not an array of three numbers", shown(sizes))
                })?;
                for (i, size) in sizes.iter().enumerate() {
                    let size = in_range(
                        &format!("maxComputeWorkGroupSize[{i}]"),
                        size,
                        LEAST_WORKGROUP_SIZE[i],
                        U32,
                    )?;
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
            for (name, value) in structure.as_object().into_iter().flatten() {
                match value {
                    Value::Bool(true) => {
                        self.features.insert(name.clone());
                    }
                    Value::Bool(false) => {}
                    other => {
                        return Err(format!("has the feature {name} = {}, not true or false", shown(other)))
                    }
                }
            }
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
            let bits = props
                .get("timestampValidBits")
                .map(|v| in_range("timestampValidBits", v, 0, 64))
                .transpose()?;
            // The specification allows 0 (no timestamps) or 36 to 64: a counter of fewer bits
            // wraps within a case's submission, and every timed case would wait for the watchdog.
            if let Some(bits @ 1..=35) = bits {
                return Err(format!(
                    "has timestampValidBits = {bits}, outside what the Vulkan specification allows (0, or 36 to 64); \
                     fix the profile"
                ));
            }
            if let (true, Some(bits)) = (compute, bits) {
                let bits = bits as u32;
                self.timestamp_valid_bits = Some(self.timestamp_valid_bits.map_or(bits, |b| b.max(bits)));
            }
        }
        Ok(())
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

/// `value` as a whole number from `least` to `most`, or a sentence naming the key `name`.
fn in_range(name: &str, value: &Value, least: u64, most: u64) -> Result<u64, String> {
    match value.as_u64() {
        Some(v) if (least..=most).contains(&v) => Ok(v),
        Some(_) | None if value.is_number() => Err(format!(
            "has {name} = {}, outside what the Vulkan specification allows ({least} to {most}); fix the profile",
            shown(value)
        )),
        _ => Err(format!("has {name} = {}, not a whole number; fix the profile", shown(value))),
    }
}

/// A JSON value as a sentence shows it: at most 40 characters, control characters escaped.
fn shown(value: &Value) -> String {
    let text: String = value.to_string().chars().take(40).collect();
    text.chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
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
