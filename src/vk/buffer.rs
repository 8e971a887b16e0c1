//! Buffers with gpu-allocator memory: created, named, mapped, and destroyed before their memory is freed.

use ash::vk;
use gpu_allocator::vulkan::Allocation;
use gpu_allocator::MemoryLocation;

use super::context::Context;
use crate::error::{vk_err, Result};

/// A buffer and its memory, borrowed from a [`Context`].
pub struct Buffer<'ctx> {
    ctx: &'ctx Context,
    /// The buffer handle.
    pub raw: vk::Buffer,
    /// Its size in bytes.
    pub size: u64,
    allocation: Option<Allocation>,
}

impl<'ctx> Buffer<'ctx> {
    /// Creates a host-visible buffer (`location` is `CpuToGpu` or `GpuToCpu`) named `name`.
    pub fn new(
        ctx: &'ctx Context,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<Self> {
        let info = vk::BufferCreateInfo::default().size(size).usage(usage);
        // SAFETY: valid device and create-info.
        let raw = unsafe { ctx.device.create_buffer(&info, None) }.map_err(vk_err("vkCreateBuffer"))?;
        let mut buffer = Self { ctx, raw, size, allocation: None };
        // SAFETY: raw is a live buffer of this device.
        let requirements = unsafe { ctx.device.get_buffer_memory_requirements(raw) };
        let allocation = ctx.allocate(name, requirements, location, true)?;
        // SAFETY: the allocation fits the requirements of raw and is not bound elsewhere.
        unsafe { ctx.device.bind_buffer_memory(raw, allocation.memory(), allocation.offset()) }
            .map_err(vk_err("vkBindBufferMemory"))?;
        buffer.allocation = Some(allocation);
        ctx.set_name(raw, name);
        Ok(buffer)
    }

    /// The mapped memory (host-coherent: gpu-allocator asks for it for CPU-visible locations).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let size = self.size as usize;
        let slice = self.allocation.as_mut().and_then(Allocation::mapped_slice_mut).unwrap_or_default();
        let len = size.min(slice.len());
        &mut slice[..len]
    }

    /// The mapped memory, read-only.
    pub fn bytes(&self) -> &[u8] {
        let slice = self.allocation.as_ref().and_then(Allocation::mapped_slice).unwrap_or_default();
        &slice[..(self.size as usize).min(slice.len())]
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        // SAFETY: the GPU is done with the buffer (every submission is waited for).
        unsafe { self.ctx.device.destroy_buffer(self.raw, None) };
        if let Some(allocation) = self.allocation.take() {
            self.ctx.free(allocation);
        }
    }
}

/// A view that lets a shader read a buffer as a uniform texel buffer of one format.
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
        // SAFETY: the buffer has UNIFORM_TEXEL_BUFFER usage and the format supports it (a case requirement).
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
