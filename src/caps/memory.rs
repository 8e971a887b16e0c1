//! Memory kinds a case can place a buffer in beyond the allocator's defaults, by memory-type flags.
//!
//! A [`MemoryKind`] is a set of required and forbidden `VkMemoryPropertyFlags`; the first memory
//! type that matches, whose heap holds the buffer, is the one used (and the requirement a case
//! states, so a device without one skips the case with the reason).

use ash::vk;

use crate::format::format_bytes;

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
    /// Whether the GPU reaches memory of this kind across the host link (system memory).
    pub fn across_link(self) -> bool {
        matches!(self, MemoryKind::HostCached | MemoryKind::HostUncached)
    }

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

    /// The size of the largest heap with a memory type of this kind among `types`.
    pub fn largest_heap(self, types: &[MemoryType]) -> Option<u64> {
        types.iter().filter(|t| self.matches(t.flags)).map(|t| t.heap_bytes).max()
    }

    /// Why `types` cannot hold `bytes` of this kind, if they cannot.
    pub fn unmet(self, types: &[MemoryType], bytes: u64) -> Option<String> {
        let largest = self.largest_heap(types);
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

/// What a case holds in device-local memory at its peak: its resources, and the largest staging
/// copy that fills one of them (each is freed once its copy is done).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Bytes of device-local resources.
    pub device_local: u64,
    /// Bytes of the largest host-visible staging copy.
    pub staging: u64,
}

impl Footprint {
    /// Both footprints' resources, and the larger staging copy.
    pub fn add(&mut self, other: Footprint) {
        self.device_local += other.device_local;
        self.staging = self.staging.max(other.staging);
    }

    /// Why `types` cannot hold this footprint, if no arrangement of its memory fits: the
    /// resources in the largest device-local heap (any heap where none is device-local), the
    /// staging copy in the largest host-visible one, and both in one heap where every
    /// host-visible type shares the device-local heap (lavapipe, SwiftShader, phones). Memory
    /// other processes use is not known: an allocation can still fail, and skips the case then.
    pub fn unmet(self, types: &[MemoryType]) -> Option<String> {
        if self.device_local == 0 || types.is_empty() {
            return None;
        }
        let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let largest = |flags| types.iter().filter(|t| t.flags.contains(flags)).max_by_key(|t| t.heap_bytes);
        let device = largest(local).or_else(|| largest(vk::MemoryPropertyFlags::empty()))?;
        let staging = largest(host);
        let shared = types.iter().filter(|t| t.flags.contains(host)).all(|t| t.heap == device.heap);
        let needs = if shared { self.device_local + self.staging } else { self.device_local };
        let what = if shared && self.staging > 0 {
            format!(
                "{} of resources and a {} staging copy",
                format_bytes(self.device_local),
                format_bytes(self.staging)
            )
        } else {
            format!("{} of resources", format_bytes(self.device_local))
        };
        // Some drivers allocate past their heap's size (lavapipe's 2 GiB heap held a 1 GiB copy
        // and its 1 GiB staging copy): only a footprint larger than the heap is refused here.
        if needs > device.heap_bytes {
            return Some(format!(
                "the case needs {what} in device-local heap {}, which holds {} in all",
                device.heap,
                format_bytes(device.heap_bytes)
            ));
        }
        match staging {
            Some(t) if !shared && self.staging > t.heap_bytes => Some(format!(
                "the case needs a {} staging copy in host-visible heap {}, which holds {} in all",
                format_bytes(self.staging),
                t.heap,
                format_bytes(t.heap_bytes)
            )),
            _ => None,
        }
    }
}

/// The size of the largest heap among `types` with a memory type that has all of `flags`
/// (`DEVICE_LOCAL`: where gpu-allocator places device memory).
pub fn largest_heap_with(types: &[MemoryType], flags: vk::MemoryPropertyFlags) -> Option<u64> {
    types.iter().filter(|t| t.flags.contains(flags)).map(|t| t.heap_bytes).max()
}

/// A `1/divisor` share of the largest device-local heap (0 without one): the most a run holds for
/// later cases in each of its keeps, so that together they leave a case most of the device (kept
/// contents 1/4, the staging buffer 1/16; the copy shelf 1/4 of each placement's heap), and each
/// is let go where a case needs the room.
pub fn device_local_share(types: &[MemoryType], divisor: u64) -> u64 {
    largest_heap_with(types, vk::MemoryPropertyFlags::DEVICE_LOCAL).unwrap_or(0) / divisor
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
    fn a_share_of_the_device_is_of_its_largest_device_local_heap() {
        // The 80 GiB heap, not the host's 1 TiB nor the 256 MiB BAR.
        assert_eq!(device_local_share(&nvidia(), 8), 10 << 30);
        let host_only = [MemoryType { flags: F::HOST_VISIBLE, heap: 0, heap_bytes: 1 << 40 }];
        assert_eq!(device_local_share(&host_only, 8), 0, "nothing held where no heap is the device's");
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

    #[test]
    fn a_footprint_counts_its_staging_copy_where_one_heap_holds_both() {
        // SwiftShader and lavapipe: one 2 GiB heap, device-local and host-visible.
        let one = [MemoryType {
            flags: F::DEVICE_LOCAL | F::HOST_VISIBLE | F::HOST_COHERENT,
            heap: 0,
            heap_bytes: 2 << 30,
        }];
        let two = Footprint { device_local: 2 << 30, staging: 2 << 30 };
        assert_eq!(
            two.unmet(&one).unwrap(),
            "the case needs 2 GiB of resources and a 2 GiB staging copy in device-local heap 0, which \
             holds 2 GiB in all"
        );
        let gib = Footprint { device_local: 1 << 30, staging: 1 << 30 };
        assert_eq!(gib.unmet(&one), None, "the whole heap: tried (an allocation may still fail)");
        let half = Footprint { device_local: 512 << 20, staging: 512 << 20 };
        // A discrete GPU: the staging copy goes to system memory, not the 80 GiB of VRAM.
        let types = nvidia_heaps();
        assert_eq!(Footprint { device_local: 60 << 30, staging: 60 << 30 }.unmet(&types), None);
        assert!(Footprint { device_local: 81 << 30, staging: 0 }.unmet(&types).is_some());
        let mut sum = Footprint::default();
        sum.add(gib);
        sum.add(half);
        assert_eq!(sum, Footprint { device_local: (1 << 30) + (512 << 20), staging: 1 << 30 });
    }

    /// [`nvidia`] with its heaps numbered: VRAM 0, system memory 1, the BAR 2.
    fn nvidia_heaps() -> Vec<MemoryType> {
        let mut types = nvidia();
        for (t, heap) in types.iter_mut().zip([0, 1, 1, 2]) {
            t.heap = heap;
        }
        types
    }
}
