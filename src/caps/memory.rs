//! Memory kinds a case can place a buffer in beyond the allocator's defaults, by memory-type flags.
//!
//! A [`MemoryKind`] is a set of required and forbidden `VkMemoryPropertyFlags`; the first memory
//! type that matches, whose heap holds the buffer, is the one used (and the requirement a case
//! states, so a device without one skips the case with the reason).

use ash::vk;

use crate::registry::format_bytes;

/// Where a buffer's memory lives, named by what the shader's loads cross.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemoryKind {
    /// Device-local memory the CPU can map (resizable BAR on a discrete GPU).
    HostVisibleDeviceLocal,
    /// System memory, cached on the CPU side: the GPU reads it across the bus.
    HostCached,
    /// System memory, uncached (write-combined) on the CPU side.
    HostUncached,
}

/// One memory type of a device: its flags and the size of its heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryType {
    /// `propertyFlags`.
    pub flags: vk::MemoryPropertyFlags,
    /// Its heap's index.
    pub heap: u32,
    /// The size of its heap, bytes.
    pub heap_bytes: u64,
}

impl MemoryType {
    /// How a case line names it: `type 2 (heap 1, 94.4 GiB: HOST_VISIBLE | HOST_COHERENT | HOST_CACHED)`.
    pub fn describe(&self, index: u32) -> String {
        let gib = self.heap_bytes as f64 / f64::from(1u32 << 30);
        let heap = if gib >= 1.0 { format!("{gib:.1} GiB") } else { format_bytes(self.heap_bytes) };
        format!("type {index} (heap {}, {heap}: {:?})", self.heap, self.flags)
    }
}

impl MemoryKind {
    /// Every kind, in report order.
    pub const ALL: [MemoryKind; 3] =
        [MemoryKind::HostVisibleDeviceLocal, MemoryKind::HostCached, MemoryKind::HostUncached];

    /// Its name in case names (`Host-visible device-local`).
    pub fn label(self) -> &'static str {
        match self {
            MemoryKind::HostVisibleDeviceLocal => "Host-visible device-local",
            MemoryKind::HostCached => "Host-cached",
            MemoryKind::HostUncached => "Host-uncached",
        }
    }

    /// The flags a memory type must have (all mapped memory here is host-coherent).
    pub fn required(self) -> vk::MemoryPropertyFlags {
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        match self {
            MemoryKind::HostVisibleDeviceLocal => host | vk::MemoryPropertyFlags::DEVICE_LOCAL,
            MemoryKind::HostCached => host | vk::MemoryPropertyFlags::HOST_CACHED,
            MemoryKind::HostUncached => host,
        }
    }

    /// The flags a memory type must not have.
    pub fn forbidden(self) -> vk::MemoryPropertyFlags {
        match self {
            MemoryKind::HostVisibleDeviceLocal => vk::MemoryPropertyFlags::empty(),
            MemoryKind::HostCached => vk::MemoryPropertyFlags::DEVICE_LOCAL,
            MemoryKind::HostUncached => {
                vk::MemoryPropertyFlags::DEVICE_LOCAL | vk::MemoryPropertyFlags::HOST_CACHED
            }
        }
    }

    /// Whether a type with `flags` is of this kind.
    pub fn matches(self, flags: vk::MemoryPropertyFlags) -> bool {
        flags.contains(self.required()) && !flags.intersects(self.forbidden())
    }

    /// The index of the first type of this kind among `types` (only those `allowed`, a bit mask
    /// as in `VkMemoryRequirements`) whose heap holds `bytes`.
    pub fn pick(self, types: &[MemoryType], allowed: u32, bytes: u64) -> Option<u32> {
        types
            .iter()
            .enumerate()
            .find(|(i, t)| allowed & (1 << i) != 0 && self.matches(t.flags) && t.heap_bytes >= bytes)
            .map(|(i, _)| i as u32)
    }

    /// Why `types` cannot hold `bytes` of this kind, if they cannot.
    pub fn unmet(self, types: &[MemoryType], bytes: u64) -> Option<String> {
        let largest = types.iter().filter(|t| self.matches(t.flags)).map(|t| t.heap_bytes).max();
        let name = self.label().to_lowercase();
        match largest {
            None => Some(format!("the device has no {name} memory type")),
            Some(heap) if heap < bytes => Some(format!(
                "the device's largest {name} heap holds {}, the case needs {}",
                format_bytes(heap),
                format_bytes(bytes)
            )),
            Some(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vk::MemoryPropertyFlags as F;

    /// The memory types an NVIDIA discrete GPU typically offers, with a 256 MiB BAR heap.
    fn nvidia() -> Vec<MemoryType> {
        let t = |flags, heap_bytes| MemoryType { flags, heap: 0, heap_bytes };
        vec![
            t(F::DEVICE_LOCAL, 80 << 30),
            t(F::HOST_VISIBLE | F::HOST_COHERENT, 1 << 40),
            t(F::HOST_VISIBLE | F::HOST_COHERENT | F::HOST_CACHED, 1 << 40),
            t(F::DEVICE_LOCAL | F::HOST_VISIBLE | F::HOST_COHERENT, 256 << 20),
        ]
    }

    #[test]
    fn each_kind_picks_its_type_and_heap() {
        let types = nvidia();
        assert_eq!(MemoryKind::HostVisibleDeviceLocal.pick(&types, !0, 64 << 20), Some(3));
        assert_eq!(MemoryKind::HostCached.pick(&types, !0, 1 << 30), Some(2));
        assert_eq!(MemoryKind::HostUncached.pick(&types, !0, 1 << 30), Some(1));
        assert_eq!(MemoryKind::HostCached.pick(&types, 0b0011, 1 << 30), None, "type 2 not allowed");
    }

    #[test]
    fn a_missing_type_or_a_small_heap_is_a_reason() {
        let types = nvidia();
        let small = MemoryKind::HostVisibleDeviceLocal.unmet(&types, 1 << 30).unwrap();
        assert_eq!(
            small,
            "the device's largest host-visible device-local heap holds 256 MiB, the case needs 1 GiB"
        );
        assert_eq!(MemoryKind::HostCached.unmet(&types, 1 << 30), None);
        // lavapipe: one type with every flag, device-local.
        let lavapipe = [MemoryType {
            flags: F::DEVICE_LOCAL | F::HOST_VISIBLE | F::HOST_COHERENT | F::HOST_CACHED,
            heap: 0,
            heap_bytes: 8 << 30,
        }];
        assert_eq!(
            lavapipe[0].describe(0),
            "type 0 (heap 0, 8.0 GiB: DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT | HOST_CACHED)"
        );
        assert_eq!(
            MemoryKind::HostCached.unmet(&lavapipe, 1).unwrap(),
            "the device has no host-cached memory type"
        );
        assert_eq!(MemoryKind::HostVisibleDeviceLocal.unmet(&lavapipe, 1 << 20), None);
    }
}
