//! Buffers with gpu-allocator memory: described by a small `Copy` [`BufferDesc`], created with their
//! initial contents (staged into device-local memory), named, and destroyed before their memory is freed.

use ash::vk;
use gpu_allocator::vulkan::Allocation;
use gpu_allocator::MemoryLocation;

use super::context::{Context, Parked};
use crate::caps::MemoryKind;
use crate::error::{vk_err, Error, Result};

/// Writes a buffer's initial contents into its mapped bytes, every byte of them: the memory holds
/// whatever it held before, and is not cleared first (a full run stages about 25 GiB, and each
/// clear was a second pass over write-combined memory). `None` leaves zeros. A registry test runs
/// every case's fill over 0x00 and over 0xFF and asks for the same bytes.
pub type Contents<'a> = Option<&'a dyn Fn(&mut [u8])>;

/// Where a buffer's memory comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// gpu-allocator, by its coarse location.
    Allocator(MemoryLocation),
    /// A dedicated allocation from the first memory type of a kind (for cases that compare kinds).
    Kind(MemoryKind),
}

/// What a buffer is: size, usage and memory location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferDesc {
    /// Size in bytes.
    pub size: u64,
    /// How it is used (transfers are always allowed: uploads and resets).
    pub usage: vk::BufferUsageFlags,
    /// Where its memory lives.
    pub location: Location,
    /// Shared by every queue family of the context (`VK_SHARING_MODE_CONCURRENT`), for a buffer a
    /// side queue copies; otherwise owned by the run's family.
    pub concurrent: bool,
}

impl BufferDesc {
    /// The same buffer, shared by every queue family of the context.
    pub fn concurrent(self) -> Self {
        Self { concurrent: true, ..self }
    }

    fn new(size: u64, usage: vk::BufferUsageFlags, location: MemoryLocation) -> Self {
        let usage = usage | vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::TRANSFER_SRC;
        Self { size, usage, location: Location::Allocator(location), concurrent: false }
    }

    /// Memory of `kind`, mapped (every kind is host-visible and coherent).
    pub fn in_memory(size: u64, usage: vk::BufferUsageFlags, kind: MemoryKind) -> Self {
        Self { location: Location::Kind(kind), ..Self::new(size, usage, MemoryLocation::CpuToGpu) }
    }

    /// Device-local memory, filled through a staging buffer.
    pub fn gpu_only(size: u64, usage: vk::BufferUsageFlags) -> Self {
        Self::new(size, usage, MemoryLocation::GpuOnly)
    }

    /// Host-visible memory the GPU reads (written by the CPU once).
    pub fn cpu_to_gpu(size: u64, usage: vk::BufferUsageFlags) -> Self {
        Self::new(size, usage, MemoryLocation::CpuToGpu)
    }

    /// Host-visible memory the CPU reads back (results).
    pub fn gpu_to_cpu(size: u64, usage: vk::BufferUsageFlags) -> Self {
        Self::new(size, usage, MemoryLocation::GpuToCpu)
    }

    /// An upload's staging buffer: host-visible, a transfer's source.
    pub fn staging(size: u64) -> Self {
        Self::cpu_to_gpu(size, vk::BufferUsageFlags::TRANSFER_SRC)
    }
}

/// A buffer's memory: from the allocator, or a dedicated allocation mapped whole.
enum Memory {
    Allocated(Allocation),
    Dedicated { memory: vk::DeviceMemory, mapped: std::ptr::NonNull<u8> },
}

/// A buffer and its memory, borrowed from a [`Context`].
pub struct Buffer<'ctx> {
    ctx: &'ctx Context,
    /// The buffer handle.
    pub raw: vk::Buffer,
    /// Its size in bytes.
    pub size: u64,
    /// The memory type of a dedicated allocation ([`Location::Kind`]); `None` from the allocator.
    pub memory_type: Option<u32>,
    memory: Option<Memory>,
    /// What it was created for ([`Buffer::reshare`] makes its like).
    usage: vk::BufferUsageFlags,
    /// Whether every queue family of the context shares it (`VK_SHARING_MODE_CONCURRENT`).
    concurrent: bool,
}

impl<'ctx> Buffer<'ctx> {
    /// Creates a buffer named `name`; its contents are undefined (host-visible ones are mapped).
    pub fn new(ctx: &'ctx Context, name: &str, desc: BufferDesc) -> Result<Self> {
        let concurrent = shared_by_all(ctx, desc.concurrent);
        let raw = create(ctx, desc.size, desc.usage, concurrent)?;
        let (usage, size) = (desc.usage, desc.size);
        let mut buffer = Self { ctx, raw, size, memory_type: None, memory: None, usage, concurrent };
        // SAFETY: raw is a live buffer of this device.
        let requirements = unsafe { ctx.device.get_buffer_memory_requirements(raw) };
        let (memory, offset) = match desc.location {
            Location::Allocator(location) => {
                let allocation = ctx.allocate(name, requirements, location, true)?;
                // SAFETY: the memory stays allocated while the buffer holds the allocation.
                let at = (unsafe { allocation.memory() }, allocation.offset());
                buffer.memory = Some(Memory::Allocated(allocation));
                at
            }
            Location::Kind(kind) => {
                let (memory, index) = dedicated(ctx, name, requirements, kind, desc.usage)?;
                buffer.memory_type = Some(index);
                // SAFETY: host-visible memory of this device, not mapped yet; the whole range.
                let mapped =
                    unsafe { ctx.device.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()) };
                let mapped = mapped.ok().and_then(|p| std::ptr::NonNull::new(p.cast::<u8>()));
                let Some(mapped) = mapped else {
                    // SAFETY: the memory is not in use.
                    unsafe { ctx.device.free_memory(memory, None) };
                    return Err(crate::error::Error::CaseSpec {
                        case: name.to_owned(),
                        problem: "its host-visible memory could not be mapped".into(),
                    });
                };
                buffer.memory = Some(Memory::Dedicated { memory, mapped });
                (memory, 0)
            }
        };
        // SAFETY: the memory fits the requirements of raw and is not bound elsewhere.
        unsafe { ctx.device.bind_buffer_memory(raw, memory, offset) }
            .map_err(vk_err("vkBindBufferMemory"))?;
        ctx.set_name(raw, name);
        Ok(buffer)
    }

    /// The buffer's memory, contents and all, behind a new buffer object that every queue family
    /// of the context shares (`concurrent`) or that the run's owns: nothing is allocated, where
    /// host memory costs the driver about 0.34 s a GiB to pin on an H200. An error (the buffer
    /// dropped) where the new object would not fit the memory.
    pub fn reshare(mut self, name: &str, concurrent: bool) -> Result<Self> {
        let ctx = self.ctx;
        let concurrent = shared_by_all(ctx, concurrent);
        let Some((memory, offset)) = self.bound_to().filter(|_| concurrent != self.concurrent) else {
            return Ok(self);
        };
        let raw = create(ctx, self.size, self.usage, concurrent)?;
        // SAFETY: both are live buffers of this device.
        let [old, new] = [self.raw, raw].map(|b| unsafe { ctx.device.get_buffer_memory_requirements(b) });
        let fits = new.size <= old.size
            && new.memory_type_bits & old.memory_type_bits == old.memory_type_bits
            && offset % new.alignment.max(1) == 0;
        let bound = match fits {
            // SAFETY: the memory holds the new buffer (checked above), which nothing else binds;
            // the old one stays bound to it until the new one is: buffers are linear, so an
            // alias reads what another wrote, and the contents stay.
            true => unsafe { ctx.device.bind_buffer_memory(raw, memory, offset) }
                .map_err(vk_err("vkBindBufferMemory")),
            false => Err(Error::CaseSpec {
                case: name.to_owned(),
                problem: "its memory does not hold a buffer shared another way".into(),
            }),
        };
        if let Err(error) = bound {
            // SAFETY: not bound, never used.
            unsafe { ctx.device.destroy_buffer(raw, None) };
            return Err(error);
        }
        // SAFETY: no pending submission uses it (every submission is waited for); its memory
        // stays with `self`, bound to the new buffer.
        unsafe { ctx.device.destroy_buffer(self.raw, None) };
        (self.raw, self.concurrent) = (raw, concurrent);
        ctx.set_name(raw, name);
        Ok(self)
    }

    /// The memory the buffer is bound to, and where in it.
    fn bound_to(&self) -> Option<(vk::DeviceMemory, u64)> {
        match &self.memory {
            Some(Memory::Allocated(allocation)) => {
                // SAFETY: the memory stays allocated while the buffer holds the allocation.
                let memory = unsafe { allocation.memory() };
                Some((memory, allocation.offset()))
            }
            Some(Memory::Dedicated { memory, .. }) => Some((*memory, 0)),
            None => None,
        }
    }

    /// A host-visible transfer source of `size` bytes written by `fill` (zeros without one).
    pub fn staging(ctx: &'ctx Context, name: &str, size: u64, fill: Contents<'_>) -> Result<Self> {
        let mut staging = Self::new(ctx, name, BufferDesc::staging(size))?;
        write(staging.bytes_mut()?, fill);
        Ok(staging)
    }

    /// The buffer's device address (it must have SHADER_DEVICE_ADDRESS usage).
    pub fn device_address(&self) -> u64 {
        let info = vk::BufferDeviceAddressInfo::default().buffer(self.raw);
        // SAFETY: the buffer was created with SHADER_DEVICE_ADDRESS usage on a device with
        // bufferDeviceAddress enabled (the case's requirement), and its memory is bound.
        unsafe { self.ctx.device.get_buffer_device_address(&info) }
    }

    /// Whether the CPU can read and write the buffer (it is mapped, host-coherent: gpu-allocator
    /// asks for that for CPU-visible locations).
    pub fn mapped(&self) -> bool {
        match &self.memory {
            Some(Memory::Allocated(a)) => a.mapped_ptr().is_some(),
            Some(Memory::Dedicated { .. }) => true,
            None => false,
        }
    }

    /// The mapped memory; an error for a buffer the CPU cannot reach (a device-local one).
    pub fn bytes_mut(&mut self) -> Result<&mut [u8]> {
        let size = self.size as usize;
        let slice = match &mut self.memory {
            Some(Memory::Allocated(a)) => a.mapped_slice_mut().unwrap_or_default(),
            // SAFETY: the whole allocation (at least `size` bytes) is mapped while the buffer lives.
            Some(Memory::Dedicated { mapped, .. }) => unsafe {
                std::slice::from_raw_parts_mut(mapped.as_ptr(), size)
            },
            None => &mut [],
        };
        match slice.len() >= size {
            true => Ok(&mut slice[..size]),
            false => Err(Error::Unmapped { size: self.size, mapped: slice.len() }),
        }
    }

    /// The mapped memory, read-only; an error for a buffer the CPU cannot reach.
    pub fn bytes(&self) -> Result<&[u8]> {
        let size = self.size as usize;
        let slice = match &self.memory {
            Some(Memory::Allocated(a)) => a.mapped_slice().unwrap_or_default(),
            // SAFETY: as in bytes_mut.
            Some(Memory::Dedicated { mapped, .. }) => unsafe {
                std::slice::from_raw_parts(mapped.as_ptr(), size)
            },
            None => &[],
        };
        match slice.len() >= size {
            true => Ok(&slice[..size]),
            false => Err(Error::Unmapped { size: self.size, mapped: slice.len() }),
        }
    }
}

impl<'ctx> Buffer<'ctx> {
    /// Puts the buffer aside, handle and memory, for [`Buffer::unpark`]; `None` (and the buffer
    /// destroyed) for one whose memory is not the allocator's.
    pub(crate) fn park(mut self) -> Option<Parked> {
        match self.memory.take() {
            Some(Memory::Allocated(allocation)) => {
                // The buffer drops with a null handle, which vkDestroyBuffer ignores.
                let raw = std::mem::replace(&mut self.raw, vk::Buffer::null());
                Some(Parked {
                    raw,
                    size: self.size,
                    usage: self.usage,
                    concurrent: self.concurrent,
                    allocation,
                })
            }
            other => {
                self.memory = other;
                None
            }
        }
    }

    /// The buffer `parked` put aside, on the context it was made on.
    pub(crate) fn unpark(ctx: &'ctx Context, parked: Parked) -> Self {
        let Parked { raw, size, usage, concurrent, allocation } = parked;
        let memory = Some(Memory::Allocated(allocation));
        Self { ctx, raw, size, memory_type: None, memory, usage, concurrent }
    }
}

/// Writes `bytes` with `fill`, or zeroes them on all cores a MiB at a time without one (a 2 GiB
/// staging buffer is seconds of one core's stores to write-combined memory).
pub(super) fn write(bytes: &mut [u8], fill: Contents<'_>) {
    use rayon::prelude::*;
    match fill {
        Some(fill) => fill(bytes),
        None => bytes.par_chunks_mut(1 << 20).for_each(|chunk| chunk.fill(0)),
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        // SAFETY: the GPU is done with the buffer (every submission is waited for).
        unsafe { self.ctx.device.destroy_buffer(self.raw, None) };
        match self.memory.take() {
            Some(Memory::Allocated(allocation)) => self.ctx.free(allocation),
            Some(Memory::Dedicated { memory, .. }) => {
                // SAFETY: the buffer bound to it is destroyed; unmapping frees the mapping with it.
                unsafe {
                    self.ctx.device.unmap_memory(memory);
                    self.ctx.device.free_memory(memory, None);
                }
            }
            None => {}
        }
    }
}

/// Whether a buffer `wanted` shared by every queue family of `ctx` is: only where it has two or
/// more (`VK_SHARING_MODE_CONCURRENT` names distinct families).
fn shared_by_all(ctx: &Context, wanted: bool) -> bool {
    wanted && ctx.families().len() > 1
}

/// A buffer object of `size` bytes for `usage`, shared by every queue family of `ctx` where
/// `concurrent` ([`shared_by_all`]), owned by one otherwise; no memory bound.
fn create(ctx: &Context, size: u64, usage: vk::BufferUsageFlags, concurrent: bool) -> Result<vk::Buffer> {
    let families = ctx.families();
    let mut info = vk::BufferCreateInfo::default().size(size.max(4)).usage(usage);
    if concurrent {
        info = info.sharing_mode(vk::SharingMode::CONCURRENT).queue_family_indices(&families);
    }
    // SAFETY: valid device and create-info (concurrent sharing names distinct families).
    unsafe { ctx.device.create_buffer(&info, None) }.map_err(vk_err("vkCreateBuffer"))
}

/// A dedicated allocation for `requirements` from the first memory type of `kind` that holds it.
fn dedicated(
    ctx: &Context,
    name: &str,
    requirements: vk::MemoryRequirements,
    kind: MemoryKind,
    usage: vk::BufferUsageFlags,
) -> Result<(vk::DeviceMemory, u32)> {
    let index = kind
        .pick(&ctx.caps.memory_types, requirements.memory_type_bits, requirements.size)
        .ok_or_else(|| crate::error::Error::CaseSpec {
            case: name.to_owned(),
            problem: format!(
                "no {} memory type can hold its {} bytes (the case's requirement should have skipped it)",
                kind.label().to_lowercase(),
                requirements.size
            ),
        })?;
    // A buffer whose address shaders take needs memory allocated for device addresses.
    let mut flags = vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
    let mut info =
        vk::MemoryAllocateInfo::default().allocation_size(requirements.size).memory_type_index(index);
    if usage.contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS) {
        info = info.push_next(&mut flags);
    }
    // SAFETY: a valid type index of this device, a size its heap holds, and a live chained struct.
    let memory = unsafe { ctx.device.allocate_memory(&info, None) }.map_err(|result| match result {
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => Error::NoRoom {
            memory: ctx.caps.memory_types.get(index as usize).map_or_else(String::new, |t| t.describe(index)),
            bytes: requirements.size,
            result,
        },
        other => vk_err("vkAllocateMemory")(other),
    })?;
    Ok((memory, index))
}

/// A view that lets a shader read a buffer as a texel buffer of one format.
pub struct TexelView<'ctx> {
    ctx: &'ctx Context,
    /// The view handle.
    pub raw: vk::BufferView,
}

impl<'ctx> TexelView<'ctx> {
    /// Views all of `buffer` as `format`.
    pub fn new(ctx: &'ctx Context, name: &str, buffer: &Buffer<'_>, format: vk::Format) -> Result<Self> {
        let info =
            vk::BufferViewCreateInfo::default().buffer(buffer.raw).format(format).range(vk::WHOLE_SIZE);
        // SAFETY: the buffer has texel-buffer usage and the format supports it (a case requirement).
        let raw =
            unsafe { ctx.device.create_buffer_view(&info, None) }.map_err(vk_err("vkCreateBufferView"))?;
        ctx.set_name(raw, name);
        Ok(Self { ctx, raw })
    }
}

impl Drop for TexelView<'_> {
    fn drop(&mut self) {
        // SAFETY: no pending submission uses the view.
        unsafe { self.ctx.device.destroy_buffer_view(self.raw, None) };
    }
}
