//! Read-only contents kept on the device from case to case: a resource that names its contents
//! ([`Resource::contents`]) is uploaded by the first case that reads it and kept while a later
//! case in the run's order reads the same, so a family's cases share one upload (every conv
//! case of a size read the same 256 MiB signal, filled and uploaded 21 times).

use std::cell::RefCell;
use std::rc::Rc;

use super::last_use::LastUse;
use crate::caps::memory::device_local_share;
use crate::error::Result;
use crate::registry::{CaseSpec, Placement, Resource, ResourceKind};
use crate::vk::image::Image;
use crate::vk::{Buffer, Context};

/// What makes two resources hold the same bytes: their kind (with its size and format), their
/// placement and the name of their contents.
#[derive(Clone, Debug, PartialEq)]
struct Key {
    kind: ResourceKind,
    placement: Placement,
    name: String,
}

impl Key {
    fn of(resource: &Resource) -> Option<Self> {
        let name = resource.contents.clone()?;
        Some(Key { kind: resource.kind, placement: resource.placement, name })
    }
}

/// A kept buffer or image, shared by the shelf and the cases that bind it.
#[derive(Clone)]
pub(super) enum Object<'ctx> {
    Buffer(Rc<Buffer<'ctx>>),
    Image(Rc<Image<'ctx>>),
}

/// The contents kept now, and the last place in the run's order each is read.
pub struct Kept<'ctx> {
    shelf: RefCell<Vec<(Key, Object<'ctx>, u64)>>,
    last: LastUse<Key>,
    /// The most bytes kept at once: a quarter of the largest device-local heap, so that kept
    /// contents seldom take the room a later case needs (and [`Kept::clear`] gives it back when
    /// they do).
    budget: u64,
}

impl<'ctx> Kept<'ctx> {
    /// Nothing kept yet, for a run of `cases` at the positions `order` gives.
    pub fn new(ctx: &Context, cases: &[CaseSpec], order: &[usize]) -> Self {
        let last = LastUse::new(order, |index| cases[index].resources.iter().filter_map(Key::of));
        let budget = device_local_share(&ctx.caps.memory_types, 4);
        Kept { shelf: RefCell::new(Vec::new()), last, budget }
    }

    /// A shelf that keeps nothing: each case makes its own.
    pub fn nothing() -> Self {
        Kept { shelf: RefCell::new(Vec::new()), last: LastUse::none(), budget: 0 }
    }

    /// The bytes kept now.
    pub fn held_bytes(&self) -> u64 {
        self.shelf.borrow().iter().map(|(_, _, bytes)| bytes).sum()
    }

    /// The kept object of `resource`, which names its contents; made by `make` (with its size in
    /// bytes) and kept now where it is not kept yet and the budget has room.
    pub(super) fn take_or(
        &self,
        resource: &Resource,
        make: impl FnOnce() -> Result<(Object<'ctx>, u64)>,
    ) -> Result<Object<'ctx>> {
        let key = Key::of(resource);
        let shelf = self.shelf.borrow();
        if let Some((_, object, _)) = shelf.iter().find(|(k, _, _)| Some(k) == key.as_ref()) {
            return Ok(object.clone());
        }
        drop(shelf);
        let held = self.held_bytes();
        let (object, bytes) = make()?;
        if let Some(key) = key.filter(|_| held + bytes <= self.budget) {
            self.shelf.borrow_mut().push((key, object.clone(), bytes));
        }
        Ok(object)
    }

    /// Lets go of the contents no case after `position` (in the run's order) reads.
    pub fn after(&self, position: usize) {
        self.shelf.borrow_mut().retain(|(key, _, _)| self.last.later(key, position));
    }

    /// Lets go of everything kept (for a case whose memory did not fit beside it); whether
    /// anything was.
    pub fn clear(&self) -> bool {
        let mut shelf = self.shelf.borrow_mut();
        let held = !shelf.is_empty();
        shelf.clear();
        held
    }
}
