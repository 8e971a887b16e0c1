//! A transfer case on the GPU: `vkCmdCopyBuffer` from its source into its target, timed and verified.
//!
//! A [`CaseSpec::copy`] case runs no shader: a measurement is `count` copies between two
//! timestamps, each after a transfer barrier (a copy may not overlap the one before: they may
//! write the same bytes). The buffers hold [`CaseSpec::slots`] equal parts, and copy i copies
//! part i modulo that, so the copies rotate through more bytes than a cache holds. Verify runs
//! poison the target, copy each part once, read the target back (through a poisoned host buffer
//! if it is not host-visible) and compare every word with the source's, so a copy that did not
//! happen cannot pass on leftovers.

use ash::vk;

use super::clock::ClockProbe;
use super::gpu_time::gpu_ms_of;
use super::last_use::LastUse;
use super::measure::Timer;
use super::resources::buffer_desc;
use super::verify;
use crate::caps::memory::largest_heap_with;
use crate::caps::MemoryType;
use crate::error::{Error, Result};
use crate::registry::{CaseSpec, Placement, Resource, ResourceKind, Work};
use crate::vk::buffer::BufferDesc;
use crate::vk::commands::{submit, submit_on, Stamp};
use crate::vk::{Buffer, Context, TimestampPool};

/// The most copies one measurement records: a few thousand commands.
const MAX_COPIES: u64 = 4096;
/// What the target and the readback hold before a verify run's copy.
const POISON: u32 = 0xDEAD_BEEF;

/// What makes a transfer buffer fit another case: its kind (with its size), its placement, and for
/// a source, the name of its contents. A target's contents never matter: a timed copy overwrites
/// them and a verify run poisons them first. Whether the queue families share it does not: a copy
/// on the run's queue takes a buffer the run's family owns, one on a side queue a buffer every
/// family shares, and a held buffer made the other way gets a new buffer object on the same memory
/// ([`Buffer::reshare`]).
#[derive(Clone, Debug, PartialEq)]
struct End {
    kind: ResourceKind,
    placement: Placement,
    /// The source's contents (a source without a name is never shared); `None` for a target.
    contents: Option<String>,
    source: bool,
}

impl End {
    fn of(resource: &Resource, source: bool) -> Self {
        let contents = resource.contents.clone().filter(|_| source);
        End { kind: resource.kind, placement: resource.placement, contents, source }
    }

    /// A copy's source and target ends.
    fn pair(from: &Resource, to: &Resource) -> [Self; 2] {
        [End::of(from, true), End::of(to, false)]
    }

    /// Whether a buffer made for this end may serve another case's.
    fn shareable(&self) -> bool {
        !self.source || self.contents.is_some()
    }
}

/// The queue family `case`'s copies run on: the run's own, or its side queue's.
fn family_of(ctx: &Context, case: &CaseSpec) -> Result<u32> {
    match case.queue {
        None => Ok(ctx.info.row.family),
        Some(kind) => ctx
            .queue_family(kind)
            .ok_or_else(|| spec_error(case, &format!("the device has no {} queue family", kind.label()))),
    }
}

/// The source's and the target's ends of transfer case `case`, where it is one the run copies
/// with (not one on a side queue of the run's own family, which the run skips).
fn ends_of(ctx: &Context, case: &CaseSpec) -> Option<[End; 2]> {
    let [from, to] = case.resources.as_slice() else { return None };
    let copies = family_of(ctx, case)
        .is_ok_and(|family| case.transfer && (case.queue.is_none() || on_side_queue(ctx, family)));
    copies.then(|| End::pair(from, to))
}

/// The buffers of the transfer cases run so far that a later case copies between: the copy
/// family's sizes up to 256 MiB all rotate through 256 MiB buffers, and a device-to-device copy
/// reads the source the copy to the host read and writes the target the copy from the host wrote,
/// so the run allocates (host memory pinned) and fills two sources and two targets of a size, not a
/// pair per direction, queue and size: the copies' setup in a full H200 run fell from 5.1 to 2.6 s
/// (results/half-the-time-8/); the side queues' copies take the run's queue's buffers as shared
/// ones (results/half-the-time-12/).
/// A buffer is let go after the last case in the run's order that copies between its end
/// ([`Shelf::after`]), where holding it would pass a quarter of the largest heap of its placement
/// (pinned host memory is the host's, not the device's), and when a case with a shader runs or a
/// copy finds no room ([`Shelf::clear`]).
pub struct Shelf<'ctx> {
    held: std::cell::RefCell<Vec<(End, Buffer<'ctx>)>>,
    /// Where in the run's order each end is copied between last; `None`: every end is held until
    /// [`Shelf::clear`].
    last: Option<LastUse<End>>,
    /// The device's memory types, whose heaps bound what is held; `None`: no bound.
    types: Option<Vec<MemoryType>>,
}

impl Default for Shelf<'_> {
    /// A shelf that holds whatever is shelved, until [`Shelf::clear`].
    fn default() -> Self {
        Shelf { held: Default::default(), last: None, types: None }
    }
}

impl<'ctx> Shelf<'ctx> {
    /// An empty shelf for a run of `cases` at the positions `order` gives.
    pub fn new(ctx: &Context, cases: &[CaseSpec], order: &[usize]) -> Self {
        let last = LastUse::new(order, |index| {
            cases.get(index).and_then(|case| ends_of(ctx, case)).into_iter().flatten()
        });
        Shelf { held: Default::default(), last: Some(last), types: Some(ctx.caps.memory_types.clone()) }
    }

    /// The most bytes of `placement` held at once: a quarter of the largest heap with memory of it.
    fn budget(&self, placement: Placement) -> u64 {
        let Some(types) = &self.types else { return u64::MAX };
        let heap = match placement {
            Placement::DeviceLocal => largest_heap_with(types, vk::MemoryPropertyFlags::DEVICE_LOCAL),
            Placement::HostVisible => largest_heap_with(types, vk::MemoryPropertyFlags::HOST_VISIBLE),
            Placement::Memory(kind) => kind.largest_heap(types),
        };
        heap.unwrap_or(0) / 4
    }

    /// The buffer held for `end` (only shareable ends are held), shared by every queue family of
    /// the context where `concurrent` and owned by the run's otherwise, renamed `name` for the
    /// case that takes it, so that a validation message names that case.
    fn take(&self, ctx: &Context, end: &End, name: &str, concurrent: bool) -> Result<Option<Buffer<'ctx>>> {
        let mut held = self.held.borrow_mut();
        let Some(at) = held.iter().position(|(e, _)| e == end) else { return Ok(None) };
        let buffer = held.swap_remove(at).1.reshare(name, concurrent)?;
        ctx.set_name(buffer.raw, name);
        Ok(Some(buffer))
    }

    /// Holds `buffer` for a later case copying between `end`, where its placement's budget has room.
    fn hold(&self, end: End, buffer: Buffer<'ctx>) {
        let mut held = self.held.borrow_mut();
        let placed = held.iter().filter(|(e, _)| e.placement == end.placement);
        let bytes: u64 = placed.map(|(_, b)| b.size).sum();
        if end.shareable() && bytes.saturating_add(buffer.size) <= self.budget(end.placement) {
            held.push((end, buffer));
        }
    }

    /// How many buffers it holds.
    pub fn held(&self) -> usize {
        self.held.borrow().len()
    }

    /// Lets go of the buffers no case after `position` (in the run's order) copies between.
    pub fn after(&self, position: usize) {
        let Some(last) = &self.last else { return };
        self.held.borrow_mut().retain(|(end, _)| last.later(end, position));
    }

    /// Lets go of every buffer held; whether any was.
    pub fn clear(&self) -> bool {
        let mut held = self.held.borrow_mut();
        let any = !held.is_empty();
        held.clear();
        any
    }
}

/// A transfer case ready to run. Fields drop in order: the timestamps, then the buffers.
pub struct CopyBench<'ctx, 'p> {
    ctx: &'ctx Context,
    case: &'p CaseSpec,
    timestamps: TimestampPool<'ctx>,
    source: Buffer<'ctx>,
    target: Buffer<'ctx>,
    /// What the source and target are, for the next case ([`CopyBench::shelve`]).
    ends: [End; 2],
    probe: Option<&'p ClockProbe<'ctx>>,
    /// Bytes per copy: one part of the buffers.
    part: u64,
    /// The part the next measurement's first copy copies.
    next: u64,
    /// The queue family the copies run on (the run's own, or a side queue's).
    family: u32,
}

fn spec_error(case: &CaseSpec, problem: &str) -> Error {
    Error::CaseSpec { case: case.name.clone(), problem: problem.into() }
}

/// Whether copies on queue family `family` run on a side queue, not the run's own: their buffers
/// are shared by every family, as a side queue copies buffers the run's queue filled.
fn on_side_queue(ctx: &Context, family: u32) -> bool {
    family != ctx.info.row.family
}

/// `desc`, shared by the run's queue family and `family` where the copies run on another.
fn shared_with_run(ctx: &Context, family: u32, desc: BufferDesc) -> BufferDesc {
    match on_side_queue(ctx, family) {
        true => desc.concurrent(),
        false => desc,
    }
}

impl<'ctx, 'p> CopyBench<'ctx, 'p> {
    /// Creates the source (filled) and the target of `case` (a [`CaseSpec::copy`]), or takes
    /// them from `shelf` where the case before copied between the same ends.
    pub fn new(
        ctx: &'ctx Context,
        case: &'p CaseSpec,
        probe: Option<&'p ClockProbe<'ctx>>,
        shelf: &Shelf<'ctx>,
    ) -> Result<Self> {
        case.validate().map_err(|problem| spec_error(case, &problem))?;
        let [from, to] = case.resources.as_slice() else {
            return Err(spec_error(case, "a transfer case has exactly a source and a target"));
        };
        let bytes = from.kind.bytes();
        // validate() holds that the buffers split into `slots` equal parts.
        let part = bytes / case.slots;
        let usage = vk::BufferUsageFlags::empty();
        let name = &case.name;
        // Requirements hold that the device has a family of the kind, with timestamps.
        let family = family_of(ctx, case)?;
        let shared = |desc| shared_with_run(ctx, family, desc);
        let ends = End::pair(from, to);
        // What a case before left that fits.
        let names = [format!("{name}: source"), format!("{name}: target")];
        let concurrent = on_side_queue(ctx, family);
        let source = shelf.take(ctx, &ends[0], &names[0], concurrent)?;
        let target = shelf.take(ctx, &ends[1], &names[1], concurrent)?;
        let source = match source {
            Some(kept) => kept,
            None => {
                let fill = from.fill.as_deref().map(|f| f as &dyn Fn(&mut [u8]));
                let desc = shared(buffer_desc(from.placement, bytes, usage));
                crate::vk::transfer::with_data(ctx, &names[0], desc, fill)?
            }
        };
        let target = match target {
            Some(kept) => kept,
            None => crate::vk::transfer::with_data(
                ctx,
                &names[1],
                shared(buffer_desc(to.placement, bytes, usage)),
                None,
            )?,
        };
        let timestamps = TimestampPool::new(ctx, &format!("{name}: timestamps"))?;
        Ok(Self { ctx, case, timestamps, source, target, ends, probe, part, next: 0, family })
    }

    /// Puts its buffers on `shelf` for the next case; its timestamps go first.
    pub fn shelve(self, shelf: &Shelf<'ctx>) {
        let Self { timestamps, source, target, ends: [from, to], .. } = self;
        drop(timestamps);
        shelf.hold(from, source);
        shelf.hold(to, target);
    }

    /// Which memory types the source and target got, where they were placed by kind.
    pub fn memory_notes(&self) -> Vec<String> {
        super::resources::memory_notes(
            self.ctx,
            [("the source", &self.source), ("the target", &self.target)].into_iter(),
        )
    }

    /// Bytes copied by one measurement of `count` copies.
    pub fn work(&self, count: u64) -> Vec<(f64, Work)> {
        self.case.work.iter().map(|w| (count as f64 * w.per_invocation, *w)).collect()
    }

    /// Copies once, reads the target back, and compares every word with the case's reference.
    pub fn verify(&mut self) -> Result<usize> {
        let reference = self.case.reference.clone().ok_or_else(|| {
            spec_error(self.case, "it has no reference for the words it copies, so it cannot be verified")
        })?;
        // Where the target is read, if it is not host-visible: made here, as timed runs need none
        // (a 1 GiB one cost 0.16 s of setup on the H200).
        let mut readback = match self.target.mapped() {
            true => None,
            false => {
                let desc = BufferDesc::gpu_to_cpu(self.target.size, vk::BufferUsageFlags::empty());
                let desc = shared_with_run(self.ctx, self.family, desc);
                Some(Buffer::new(self.ctx, &format!("{}: readback", self.case.name), desc)?)
            }
        };
        if let Some(readback) = &mut readback {
            use rayon::prelude::*;
            readback
                .bytes_mut()?
                .par_chunks_exact_mut(4)
                .for_each(|w| w.copy_from_slice(&POISON.to_ne_bytes()));
        }
        submit_on(self.ctx, self.family, |rec| {
            rec.fill_buffer(&self.target, POISON);
            rec.transfer_barrier();
            for slot in 0..self.case.slots {
                rec.copy_range(&self.source, &self.target, slot * self.part, self.part);
            }
            if let Some(readback) = &readback {
                rec.transfer_barrier();
                rec.copy_buffer(&self.target, readback);
            }
            rec.transfer_to_host();
        })?;
        let bytes = readback.as_ref().unwrap_or(&self.target).bytes()?;
        verify::compare(&self.case.name, &verify::words(bytes), "word", reference.as_ref())
    }
}

impl Timer for CopyBench<'_, '_> {
    fn time_ms(&mut self, count: u64) -> Result<f64> {
        let copies = count.clamp(1, MAX_COPIES);
        let side = on_side_queue(self.ctx, self.family);
        if side {
            // A transfer-only queue may not reset queries: the run's queue does, before.
            submit(self.ctx, |rec| rec.reset_timestamps(&self.timestamps))?;
        }
        let wall = submit_on(self.ctx, self.family, |rec| {
            if !side {
                rec.reset_timestamps(&self.timestamps);
            }
            // Orders these copies after the previous submission's.
            rec.transfer_barrier();
            rec.timestamp(&self.timestamps, Stamp::Start);
            for i in 0..copies {
                if i > 0 {
                    rec.transfer_barrier();
                }
                let at = (self.next + i) % self.case.slots * self.part;
                rec.copy_range(&self.source, &self.target, at, self.part);
            }
            rec.timestamp(&self.timestamps, Stamp::End);
        })?;
        // The next measurement starts at the part after this one's last.
        self.next = (self.next + copies) % self.case.slots;
        let bits =
            self.ctx.caps.queue_families.get(self.family as usize).map_or(0, |f| f.timestamp_valid_bits);
        gpu_ms_of(self.ctx, &self.timestamps, wall, &self.case.name, bits)
    }

    fn actual_groups(&self, count: u64) -> u64 {
        count.clamp(1, MAX_COPIES)
    }

    fn clock_mhz(&mut self) -> Result<Option<f64>> {
        self.probe.map_or(Ok(None), ClockProbe::mhz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caps::{MemoryKind, QueueKind};

    fn memory(flags: vk::MemoryPropertyFlags, heap: u32, gib: u64) -> MemoryType {
        MemoryType { flags, heap, heap_bytes: gib << 30 }
    }

    #[test]
    fn held_buffers_are_bounded_by_their_own_heap() {
        use vk::MemoryPropertyFlags as F;
        // An H200's types: device memory (140 GiB) and the host's (94 GiB, cached and not).
        let types = vec![
            memory(F::DEVICE_LOCAL, 0, 140),
            memory(F::HOST_VISIBLE | F::HOST_COHERENT, 1, 94),
            memory(F::HOST_VISIBLE | F::HOST_COHERENT | F::HOST_CACHED, 1, 94),
        ];
        let shelf = Shelf { held: Default::default(), last: None, types: Some(types) };
        assert_eq!(shelf.budget(Placement::DeviceLocal), 35 << 30);
        assert_eq!(shelf.budget(Placement::Memory(MemoryKind::HostCached)), (94 << 30) / 4);
        // A device without a memory of the kind holds none of it.
        let device_only = Shelf { types: Some(vec![memory(F::DEVICE_LOCAL, 0, 8)]), ..Shelf::default() };
        assert_eq!(device_only.budget(Placement::Memory(MemoryKind::HostCached)), 0);
        assert_eq!(Shelf::default().budget(Placement::DeviceLocal), u64::MAX, "a test's shelf has no bound");
    }

    #[test]
    fn a_copy_on_a_side_queue_takes_the_buffers_of_the_same_copy_on_the_runs_queue() {
        let source = |name: &str| Resource::transfer_buffer(1 << 20, |_| {}).contents(name);
        let target = Resource::transfer_buffer(1 << 20, |_| {});
        let run = CaseSpec::copy("on the run's queue", source("words"), target.clone());
        let side = CaseSpec::copy("on a copy engine", source("words"), target.clone())
            .on_queue(QueueKind::TransferOnly);
        let ends = |case: &CaseSpec| End::pair(&case.resources[0], &case.resources[1]);
        assert_eq!(ends(&run), ends(&side), "the queue is not part of what a buffer fits");
        // Other contents make another source; a target's contents never matter.
        let other = CaseSpec::copy("other words", source("other"), target);
        assert_ne!(ends(&run)[0], ends(&other)[0]);
        assert_eq!(ends(&run)[1], ends(&other)[1]);
        assert!(ends(&run).iter().all(End::shareable));
    }
}
