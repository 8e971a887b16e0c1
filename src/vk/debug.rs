//! The debug-utils messenger: collects validation messages so that any of them fails the run.

use std::ffi::{c_void, CStr};
use std::sync::{Arc, Mutex};

use ash::vk;

use crate::error::{vk_err, Result};

/// Where the messenger puts messages; shared so they can be read after the instance is gone.
pub type Sink = Arc<Mutex<Vec<String>>>;

/// Takes everything collected so far out of `sink`.
pub fn drain(sink: &Sink) -> Vec<String> {
    sink.lock().map(|mut m| std::mem::take(&mut *m)).unwrap_or_default()
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user_data: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the loader passes a valid callback-data pointer for the duration of the call.
    let text = unsafe { data.as_ref() }
        .and_then(|d| (!d.p_message.is_null()).then_some(d.p_message))
        // SAFETY: p_message is a NUL-terminated string owned by the caller.
        .map(|p| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
        .unwrap_or_else(|| "(no message text)".into());
    // SAFETY: user_data is the Mutex inside a Sink that the Instance keeps alive until after
    // vkDestroyInstance (see instance::Instance).
    let sink = unsafe { &*(user_data as *const Mutex<Vec<String>>) };
    if let Ok(mut messages) = sink.lock() {
        messages.push(format!("[{severity:?} {kind:?}] {text}"));
    }
    vk::FALSE
}

/// The create-info for a messenger that reports warnings and errors into `sink`.
///
/// The pointer to `sink` is stored in it: the caller must keep `sink` alive as long as
/// the messenger (and, when chained into `VkInstanceCreateInfo`, the instance).
pub fn messenger_info(sink: &Sink) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(on_message))
        .user_data(Arc::as_ptr(sink) as *mut c_void)
}

/// A live messenger and the loader functions to destroy it.
pub struct Messenger {
    loader: ash::ext::debug_utils::Instance,
    raw: vk::DebugUtilsMessengerEXT,
}

impl Messenger {
    /// Creates a messenger on `instance` that collects into `sink`.
    pub fn new(entry: &ash::Entry, instance: &ash::Instance, sink: &Sink) -> Result<Self> {
        let loader = ash::ext::debug_utils::Instance::new(entry, instance);
        let info = messenger_info(sink);
        // SAFETY: valid instance with VK_EXT_debug_utils enabled; sink outlives the messenger.
        let raw = unsafe { loader.create_debug_utils_messenger(&info, None) }
            .map_err(vk_err("vkCreateDebugUtilsMessengerEXT"))?;
        Ok(Self { loader, raw })
    }

    /// Destroys the messenger; call before destroying the instance.
    pub fn destroy(&mut self) {
        // SAFETY: raw was created by this loader and is destroyed once.
        unsafe { self.loader.destroy_debug_utils_messenger(self.raw, None) };
        self.raw = vk::DebugUtilsMessengerEXT::null();
    }
}
