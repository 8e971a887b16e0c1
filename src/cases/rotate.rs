//! Rotation: a case that repeats on the same bytes cycles through copies of them instead, so that
//! no cache nearer than the memory it names can serve the repeats.
//!
//! GPUs keep host memory they read in their L2 (the H100 served a 1 MiB host-memory set at
//! 3.98 TB/s, 70 times the link's rate), and a device-to-device copy of a few MiB runs from the
//! L2 alone. A case rotates through copies spanning [`SPAN`], more than the last-level cache of
//! any GPU perftest has met (H200: 60 MiB; AMD's largest Infinity Cache: 256 MiB is the edge),
//! within what one buffer and half of the memory's heap may hold. Where the span is cut short,
//! the case says so in a note.
//!
//! Why it is built so: docs/design/working-sets.md.

use ash::vk::MemoryPropertyFlags;

use crate::caps::memory::largest_heap_with;
use crate::caps::MemoryKind;
use crate::format::format_bytes;
use crate::registry::Env;

const DEVICE_LOCAL: MemoryPropertyFlags = MemoryPropertyFlags::DEVICE_LOCAL;

/// The bytes a rotating case's copies span together, at least.
pub(super) const SPAN: u64 = 256 << 20;

/// How many copies of a `bytes` set a case cycles through, in memory of `kind` (`None`:
/// device-local), in one buffer of at most `buffer_limit` bytes (`None`: the allocation limit);
/// and the note to give it when they span less than [`SPAN`].
pub(super) fn slots(
    env: &Env,
    bytes: u64,
    kind: Option<MemoryKind>,
    buffer_limit: Option<u64>,
) -> (u64, Option<String>) {
    let wanted = SPAN.div_ceil(bytes.max(1));
    let Some(device) = env.device else { return (wanted, None) };
    let types = &device.memory_types;
    let heap = match kind {
        Some(kind) => kind.largest_heap(types),
        // Device-local memory, as gpu-allocator places it.
        None => largest_heap_with(types, DEVICE_LOCAL),
    }
    .unwrap_or(0);
    let mut room = heap / 2;
    for limit in [Some(device.limits.allocation_bytes), buffer_limit].into_iter().flatten() {
        if limit > 0 {
            room = room.min(limit);
        }
    }
    let slots = wanted.min(room / bytes.max(1)).max(1);
    let note = (slots * bytes < SPAN).then(|| {
        format!(
            "its {} span {}, under the {} a GPU cache may hold: repeats may be served by a cache",
            crate::format::count(slots as usize, "copy"),
            format_bytes(slots * bytes),
            format_bytes(SPAN)
        )
    });
    (slots, note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caps::{DeviceCaps, MemoryType};
    use ash::vk::MemoryPropertyFlags as F;

    fn env_with(caps: &DeviceCaps) -> Env<'_> {
        let family = crate::registry::families().into_iter().find(|f| f.name == "copy").unwrap();
        Env { family, settings: &[], device: Some(caps) }
    }

    #[test]
    fn copies_span_the_cache_limit_or_say_why_not() {
        let mut caps = DeviceCaps::default();
        caps.limits.allocation_bytes = 1 << 32;
        let vram = MemoryType { flags: F::DEVICE_LOCAL, heap: 0, heap_bytes: 80 << 30 };
        let bar = MemoryType {
            flags: F::DEVICE_LOCAL | F::HOST_VISIBLE | F::HOST_COHERENT,
            heap: 1,
            heap_bytes: 256 << 20,
        };
        caps.memory_types = vec![vram, bar];
        let env = env_with(&caps);
        assert_eq!(slots(&env, 1 << 20, None, None), (256, None), "256 MiB of 1 MiB parts");
        assert_eq!(slots(&env, 3 << 20, None, None), (86, None), "rounded up past the span");
        assert_eq!(slots(&env, 1 << 30, None, None), (1, None), "a set larger than the span is its own");
        // Half of a 256 MiB BAR heap holds 128 copies: short of the span, and said so.
        let (n, note) = slots(&env, 1 << 20, Some(MemoryKind::HostVisibleDeviceLocal), None);
        assert_eq!(n, 128);
        assert!(note.unwrap().starts_with("its 128 copies span 128 MiB"));
        // A 128 MiB storage-buffer range (lavapipe) caps a bound buffer likewise.
        assert_eq!(slots(&env, 1 << 20, None, Some(128 << 20)).0, 128);
    }
}
