//! Buffers with gpu-allocator memory: described by a small `Copy` [`BufferDesc`], created with their
//! initial contents (staged into device-local memory), named, and destroyed before their memory is freed.

use ash::vk;
use gpu_allocator::vulkan::Allocation;
use gpu_allocator::MemoryLocation;

use super::commands::submit;
use super::context::Context;
use crate::error::{vk_err, Result};

/// Writes a buffer's initial contents into its mapped bytes; `None` leaves zeros.
pub type Contents<'a> = Option<&'a dyn Fn(&mut [u8])>;

/// What a buffer is: size, usage and memory location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferDesc {
    /// Size in bytes.
    pub size: u64,
    /// How it is used (transfers are always allowed: uploads and resets).
    pub usage: vk::BufferUsageFlags,
    /// Where its memory lives.
    pub location: MemoryLocation,
}

impl BufferDesc {
    fn new(size: u64, usage: vk::BufferUsageFlags, location: MemoryLocation) -> Self {
        let usage = usage | vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::TRANSFER_SRC;
        Self { size, usage, location }
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

    fn host_visible(&self) -> bool {
        self.location != MemoryLocation::GpuOnly
    }
}

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
    /// Creates a buffer named `name`; its contents are undefined (host-visible ones are mapped).
    pub fn new(ctx: &'ctx Context, name: &str, desc: BufferDesc) -> Result<Self> {
        let info = vk::BufferCreateInfo::default().size(desc.size.max(4)).usage(desc.usage);
        // SAFETY: valid device and create-info.
        let raw = unsafe { ctx.device.create_buffer(&info, None) }.map_err(vk_err("vkCreateBuffer"))?;
        let mut buffer = Self { ctx, raw, size: desc.size, allocation: None };
        // SAFETY: raw is a live buffer of this device.
        let requirements = unsafe { ctx.device.get_buffer_memory_requirements(raw) };
        let allocation = ctx.allocate(name, requirements, desc.location, true)?;
        // SAFETY: the allocation fits the requirements of raw and is not bound elsewhere.
        unsafe { ctx.device.bind_buffer_memory(raw, allocation.memory(), allocation.offset()) }
            .map_err(vk_err("vkBindBufferMemory"))?;
        buffer.allocation = Some(allocation);
        ctx.set_name(raw, name);
        Ok(buffer)
    }

    /// Creates a buffer whose contents `fill` writes (zeros without one): host-visible buffers
    /// are written in place, device-local ones through a staging buffer, as kajiya's
    /// `create_buffer(desc, name, initial_data)` does.
    pub fn with_data(ctx: &'ctx Context, name: &str, desc: BufferDesc, fill: Contents<'_>) -> Result<Self> {
        let mut buffer = Self::new(ctx, name, desc)?;
        if desc.host_visible() {
            let bytes = buffer.bytes_mut();
            bytes.fill(0);
            if let Some(fill) = fill {
                fill(bytes);
            }
            return Ok(buffer);
        }
        match fill {
            None => {
                submit(ctx, |rec| {
                    rec.fill_buffer(&buffer, 0);
                    rec.transfer_to_compute();
                })?;
            }
            Some(fill) => {
                let staging = Self::staging(ctx, &format!("{name}: staging"), desc.size, fill)?;
                submit(ctx, |rec| {
                    rec.copy_buffer(&staging, &buffer);
                    rec.transfer_to_compute();
                })?;
            }
        }
        Ok(buffer)
    }

    /// A host-visible transfer source of `size` bytes written by `fill`.
    pub fn staging(ctx: &'ctx Context, name: &str, size: u64, fill: &dyn Fn(&mut [u8])) -> Result<Self> {
        let mut staging =
            Self::new(ctx, name, BufferDesc::cpu_to_gpu(size, vk::BufferUsageFlags::TRANSFER_SRC))?;
        let bytes = staging.bytes_mut();
        bytes.fill(0);
        fill(bytes);
        Ok(staging)
    }

    /// The buffer's device address (it must have SHADER_DEVICE_ADDRESS usage).
    pub fn device_address(&self) -> u64 {
        let info = vk::BufferDeviceAddressInfo::default().buffer(self.raw);
        // SAFETY: the buffer was created with SHADER_DEVICE_ADDRESS usage on a device with
        // bufferDeviceAddress enabled (the case's requirement), and its memory is bound.
        unsafe { self.ctx.device.get_buffer_device_address(&info) }
    }

    /// The mapped memory (host-coherent: gpu-allocator asks for it for CPU-visible locations);
    /// empty for device-local buffers.
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
