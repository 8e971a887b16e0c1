//! Spare memory: what a freed resource gave back, kept for the next resource of its size. The
//! driver's allocation and free of device memory cost about 25 ms a GiB each on an H200, and the
//! cases of a run make and let go of buffers of the same few sizes again and again; a spare
//! allocation is taken again without calling the driver. What a spare held last is left in it
//! (resources' contents are undefined until written, as Vulkan's fresh memory is).

use std::collections::VecDeque;

use gpu_allocator::vulkan::Allocation;
use gpu_allocator::MemoryLocation;

/// What an allocation was made for: another request is met by it only where all of this agrees
/// (the same location and memory-type bits lead the allocator to the same memory type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    pub(crate) location: MemoryLocation,
    pub(crate) memory_type_bits: u32,
    /// A buffer's (or linear image's) rather than an optimally tiled image's.
    pub(crate) linear: bool,
}

/// The smallest allocation kept: smaller ones come from the allocator's blocks without a call to
/// the driver.
pub(crate) const SMALLEST: u64 = 1 << 20;

/// What a spare is to the keeper: its size, and its offset in the driver's memory object.
pub(crate) trait Span {
    fn size(&self) -> u64;
    fn offset(&self) -> u64;
}

impl Span for Allocation {
    fn size(&self) -> u64 {
        Allocation::size(self)
    }
    fn offset(&self) -> u64 {
        Allocation::offset(self)
    }
}

/// Spare allocations, oldest first, at most `budget` bytes in all.
pub(crate) struct Spares<A: Span = Allocation> {
    kept: VecDeque<(Key, A)>,
    budget: u64,
}

impl<A: Span> Spares<A> {
    /// None kept yet; at most `budget` bytes will be.
    pub(crate) fn new(budget: u64) -> Self {
        Self { kept: VecDeque::new(), budget }
    }

    /// Bytes kept now.
    pub(crate) fn bytes(&self) -> u64 {
        self.kept.iter().map(|(_, a)| a.size()).sum()
    }

    /// The kept allocation that best meets a request of `size` bytes aligned to `alignment`: the
    /// smallest of `key`'s that holds it and is no more than an eighth larger (a large one is not
    /// spent on a small request), at an offset the request's alignment allows.
    pub(crate) fn take(&mut self, key: Key, size: u64, alignment: u64) -> Option<A> {
        let fits = |(k, a): &(Key, A)| {
            *k == key && a.size() >= size && a.size() - size <= size / 8 && a.offset() % alignment.max(1) == 0
        };
        let (at, _) = self
            .kept
            .iter()
            .enumerate()
            .filter(|(_, spare)| fits(spare))
            .min_by_key(|(_, (_, a))| a.size())?;
        self.kept.remove(at).map(|(_, allocation)| allocation)
    }

    /// Keeps `allocation` (made for `key`) where it is large enough to be worth keeping and the
    /// budget has room once the oldest are given up; returns what is not kept, to be freed.
    pub(crate) fn offer(&mut self, key: Key, allocation: A) -> Vec<A> {
        if allocation.size() < SMALLEST || allocation.size() > self.budget {
            return vec![allocation];
        }
        let mut given_up = Vec::new();
        while self.bytes() + allocation.size() > self.budget {
            match self.kept.pop_front() {
                Some((_, oldest)) => given_up.push(oldest),
                None => break,
            }
        }
        self.kept.push_back((key, allocation));
        given_up
    }

    /// Gives up every kept allocation (for a resource that needs the room, or the allocator's end).
    pub(crate) fn drain(&mut self) -> Vec<A> {
        self.kept.drain(..).map(|(_, allocation)| allocation).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Fake(u64, u64);

    impl Span for Fake {
        fn size(&self) -> u64 {
            self.0
        }
        fn offset(&self) -> u64 {
            self.1
        }
    }

    const MIB: u64 = 1 << 20;
    const BUFFER: Key = Key { location: MemoryLocation::GpuOnly, memory_type_bits: 0b11, linear: true };

    #[test]
    fn a_spare_meets_a_request_of_its_key_and_nearly_its_size() {
        let mut spares = Spares::new(1024 * MIB);
        assert!(spares.offer(BUFFER, Fake(256 * MIB, 0)).is_empty());
        assert!(spares.offer(BUFFER, Fake(64 * MIB, 0)).is_empty());
        let image = Key { linear: false, ..BUFFER };
        let host = Key { location: MemoryLocation::CpuToGpu, ..BUFFER };
        let other_types = Key { memory_type_bits: 0b10, ..BUFFER };
        for key in [image, host, other_types] {
            assert_eq!(spares.take(key, 64 * MIB, 256), None, "{key:?}");
        }
        assert_eq!(spares.take(BUFFER, 16 * MIB, 256), None, "a 64 MiB spare is not spent on 16 MiB");
        assert_eq!(spares.take(BUFFER, 300 * MIB, 256), None, "none holds 300 MiB");
        assert_eq!(spares.take(BUFFER, 250 * MIB, 256), Some(Fake(256 * MIB, 0)));
        assert_eq!(spares.take(BUFFER, 250 * MIB, 256), None, "taken once");
        assert_eq!(spares.bytes(), 64 * MIB);
    }

    #[test]
    fn the_smallest_that_fits_is_taken_at_an_offset_the_request_allows() {
        let mut spares = Spares::new(1024 * MIB);
        for spare in [Fake(70 * MIB, 0), Fake(64 * MIB, 4096), Fake(66 * MIB, 0)] {
            assert!(spares.offer(BUFFER, spare).is_empty());
        }
        assert_eq!(spares.take(BUFFER, 64 * MIB, 65536), Some(Fake(66 * MIB, 0)));
        assert_eq!(spares.take(BUFFER, 64 * MIB, 256), Some(Fake(64 * MIB, 4096)));
        assert_eq!(spares.take(BUFFER, 64 * MIB, 256), Some(Fake(70 * MIB, 0)));
    }

    #[test]
    fn the_budget_gives_up_the_oldest_and_small_or_huge_ones_are_not_kept() {
        let mut spares = Spares::new(512 * MIB);
        assert_eq!(spares.offer(BUFFER, Fake(MIB / 2, 0)), vec![Fake(MIB / 2, 0)]);
        assert_eq!(spares.offer(BUFFER, Fake(1024 * MIB, 0)), vec![Fake(1024 * MIB, 0)]);
        assert!(spares.offer(BUFFER, Fake(256 * MIB, 0)).is_empty());
        assert!(spares.offer(BUFFER, Fake(200 * MIB, 0)).is_empty());
        assert_eq!(spares.offer(BUFFER, Fake(128 * MIB, 0)), vec![Fake(256 * MIB, 0)]);
        assert_eq!(spares.bytes(), 328 * MIB);
        assert_eq!(spares.drain(), vec![Fake(200 * MIB, 0), Fake(128 * MIB, 0)]);
        assert_eq!(spares.bytes(), 0);
    }
}
