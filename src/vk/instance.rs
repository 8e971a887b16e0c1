//! The Vulkan loader and instance: loaded at run time, with the validation layer on request.

use std::ffi::{c_char, CStr};

use ash::vk;

use super::debug::{self, Messenger, Sink};
use crate::error::{Error, Result};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Loads libvulkan at run time (or `PERFTEST_VULKAN_LOADER`), so its absence is a sentence.
pub fn load_entry() -> Result<ash::Entry> {
    let loaded = match std::env::var_os("PERFTEST_VULKAN_LOADER") {
        // SAFETY: loading a Vulkan loader library runs its initialisers; we trust the path given.
        Some(path) => unsafe { ash::Entry::load_from(&path) },
        // SAFETY: as above, for the system's libvulkan.so.1.
        None => unsafe { ash::Entry::load() },
    };
    loaded.map_err(|source| Error::NoLoader { source })
}

/// Maps a failure of the loader before any device is open to [`Error::VulkanUnusable`] (exit 3):
/// a broken driver manifest or loader, not a bug in perftest.
pub fn unusable(call: &'static str) -> impl FnOnce(vk::Result) -> Error {
    move |result| Error::VulkanUnusable { call, result }
}

fn has_extension(list: &[vk::ExtensionProperties], name: &CStr) -> bool {
    list.iter().any(|e| e.extension_name_as_c_str() == Ok(name))
}

/// The loader, the instance, and (with validation) the messenger that collects messages.
pub struct Instance {
    /// The loaded Vulkan entry points.
    pub entry: ash::Entry,
    /// The instance.
    pub raw: ash::Instance,
    /// Whether VK_EXT_debug_utils is enabled (object names, messages).
    pub debug_utils: bool,
    /// The Vulkan version the instance was created for: 1.3 where the loader offers it (SPIR-V
    /// 1.6 for the cases that need it), else 1.2.
    pub api_version: u32,
    messenger: Option<Messenger>,
    // Dropped after `raw` is destroyed: the messenger callbacks point into it.
    sink: Sink,
}

impl Instance {
    /// Loads Vulkan and creates an instance; `validation` enables the Khronos layer
    /// with synchronization validation and collects its messages.
    pub fn new(validation: bool) -> Result<Self> {
        let entry = load_entry()?;
        // SAFETY: plain query on a loaded entry.
        let version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(unusable("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if version < vk::API_VERSION_1_2 {
            return Err(Error::OldLoader {
                major: vk::api_version_major(version),
                minor: vk::api_version_minor(version),
            });
        }
        // SAFETY: plain queries on a loaded entry.
        let extensions = unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(unusable("vkEnumerateInstanceExtensionProperties"))?;
        let mut layers: Vec<*const c_char> = Vec::new();
        let mut layer_extensions = Vec::new();
        if validation {
            // SAFETY: as above.
            let available = unsafe { entry.enumerate_instance_layer_properties() }
                .map_err(unusable("vkEnumerateInstanceLayerProperties"))?;
            if !available.iter().any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER)) {
                return Err(Error::NoValidationLayer);
            }
            layers.push(VALIDATION_LAYER.as_ptr());
            // SAFETY: as above, for the layer's own extensions.
            layer_extensions =
                unsafe { entry.enumerate_instance_extension_properties(Some(VALIDATION_LAYER)) }
                    .map_err(unusable("vkEnumerateInstanceExtensionProperties"))?;
        }
        let debug_utils = has_extension(&extensions, ash::ext::debug_utils::NAME)
            || has_extension(&layer_extensions, ash::ext::debug_utils::NAME);
        if validation && !debug_utils {
            return Err(Error::NoValidationLayer);
        }
        let mut enabled: Vec<*const c_char> = Vec::new();
        if debug_utils {
            enabled.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        // Portability implementations (MoltenVK on Apple) are enumerated only when asked for.
        let portability = has_extension(&extensions, ash::khr::portability_enumeration::NAME);
        if portability {
            enabled.push(ash::khr::portability_enumeration::NAME.as_ptr());
        }
        let sync_validation =
            validation && has_extension(&layer_extensions, ash::ext::validation_features::NAME);
        if sync_validation {
            enabled.push(ash::ext::validation_features::NAME.as_ptr());
        }

        let sink: Sink = Default::default();
        // 1.3 where the loader offers it: the cases whose shaders are SPIR-V 1.6 need it.
        let api_version = version.min(vk::API_VERSION_1_3);
        let app = vk::ApplicationInfo::default()
            .application_name(c"perftest")
            .application_version(vk::make_api_version(0, 0, 1, 0))
            .api_version(api_version);
        let features = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut validation_features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&features);
        // Chained into the create-info, it also reports problems of vkCreate/DestroyInstance.
        let mut messenger_info = debug::messenger_info(&sink);
        let flags = if portability {
            vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR
        } else {
            vk::InstanceCreateFlags::empty()
        };
        let mut info = vk::InstanceCreateInfo::default()
            .flags(flags)
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&enabled);
        if validation {
            info = info.push_next(&mut messenger_info);
        }
        if sync_validation {
            info = info.push_next(&mut validation_features);
        }
        // SAFETY: every pointer in `info` refers to locals that live across the call.
        let raw = unsafe { entry.create_instance(&info, None) }.map_err(|result| match result {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => Error::NoDevice {
                detail: "the loader found no compatible driver (ERROR_INCOMPATIBLE_DRIVER)".into(),
            },
            vk::Result::ERROR_LAYER_NOT_PRESENT => Error::NoValidationLayer,
            other => unusable("vkCreateInstance")(other),
        })?;
        let mut instance = Self { entry, raw, debug_utils, api_version, messenger: None, sink };
        if validation {
            instance.messenger = Some(Messenger::new(&instance.entry, &instance.raw, &instance.sink)?);
        }
        Ok(instance)
    }

    /// The validation messages collected so far (shared: it can be read after drop).
    pub fn sink(&self) -> Sink {
        self.sink.clone()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some(messenger) = &mut self.messenger {
            messenger.destroy();
        }
        // SAFETY: every child object (device, messenger) was destroyed before this point.
        unsafe { self.raw.destroy_instance(None) };
    }
}
