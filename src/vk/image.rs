//! 2D images (sampled or storage), uploaded through a staging buffer, and samplers.

use ash::vk;
use gpu_allocator::vulkan::Allocation;
use gpu_allocator::MemoryLocation;

use super::context::Context;
use crate::error::{vk_err, Result};

/// What an image is: format, size, and how shaders use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    /// The texel format.
    pub format: vk::Format,
    /// Width and height in texels.
    pub size: [u32; 2],
    /// A storage image (GENERAL layout, `imageLoad`/`imageStore`) instead of a sampled one.
    pub storage: bool,
    /// Bytes per texel of the tightly packed upload.
    pub texel_bytes: u64,
}

impl ImageDesc {
    /// The layout shaders see it in.
    pub fn layout(&self) -> vk::ImageLayout {
        if self.storage {
            vk::ImageLayout::GENERAL
        } else {
            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
        }
    }

    /// Bytes of the tightly packed texels.
    pub fn bytes(&self) -> u64 {
        u64::from(self.size[0]) * u64::from(self.size[1]) * self.texel_bytes
    }
}

/// A device-local 2D image with a view, in its [`ImageDesc::layout`].
pub struct Image<'ctx> {
    ctx: &'ctx Context,
    /// The image.
    pub raw: vk::Image,
    /// A view of its one mip level.
    pub view: vk::ImageView,
    /// Width and height.
    pub size: [u32; 2],
    /// Bytes per texel, tightly packed (uploads and read-backs).
    pub texel_bytes: u64,
    /// The layout shaders see it in.
    pub layout: vk::ImageLayout,
    allocation: Option<Allocation>,
}

impl<'ctx> Image<'ctx> {
    /// Creates the image (its contents undefined, its layout `UNDEFINED` until
    /// `transfer::image` uploads it and moves it to [`ImageDesc::layout`]).
    pub fn new(ctx: &'ctx Context, name: &str, desc: ImageDesc) -> Result<Self> {
        let [width, height] = desc.size;
        // Storage images may also be read back (a verify run of a case that stores to one).
        let usage = if desc.storage {
            vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::TRANSFER_SRC
        } else {
            vk::ImageUsageFlags::SAMPLED
        };
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(desc.format)
            .extent(vk::Extent3D { width, height, depth: 1 })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage | vk::ImageUsageFlags::TRANSFER_DST)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid device; the format supports the use (a case requirement).
        let raw = unsafe { ctx.device.create_image(&info, None) }.map_err(vk_err("vkCreateImage"))?;
        let mut image = Self {
            ctx,
            raw,
            view: vk::ImageView::null(),
            size: desc.size,
            texel_bytes: desc.texel_bytes,
            layout: desc.layout(),
            allocation: None,
        };
        // SAFETY: raw is a live image of this device.
        let requirements = unsafe { ctx.device.get_image_memory_requirements(raw) };
        let allocation = ctx.allocate(name, requirements, MemoryLocation::GpuOnly, false)?;
        // SAFETY: the allocation fits the image's requirements.
        unsafe { ctx.device.bind_image_memory(raw, allocation.memory(), allocation.offset()) }
            .map_err(vk_err("vkBindImageMemory"))?;
        image.allocation = Some(allocation);
        ctx.set_name(raw, name);

        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(1);
        let view_info = vk::ImageViewCreateInfo::default()
            .image(raw)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(desc.format)
            .subresource_range(range);
        // SAFETY: valid image with bound memory.
        image.view =
            unsafe { ctx.device.create_image_view(&view_info, None) }.map_err(vk_err("vkCreateImageView"))?;
        Ok(image)
    }
}

impl Drop for Image<'_> {
    fn drop(&mut self) {
        // SAFETY: no pending submission uses the image; the view goes before the image, the
        // image before its memory; a null view is ignored.
        unsafe {
            self.ctx.device.destroy_image_view(self.view, None);
            self.ctx.device.destroy_image(self.raw, None);
        }
        if let Some(allocation) = self.allocation.take() {
            self.ctx.free(allocation);
        }
    }
}

/// A sampler with one filter, repeat addressing and level 0 only.
pub struct Sampler<'ctx> {
    ctx: &'ctx Context,
    /// The sampler.
    pub raw: vk::Sampler,
}

impl<'ctx> Sampler<'ctx> {
    /// Creates the sampler.
    pub fn new(ctx: &'ctx Context, name: &str, filter: vk::Filter) -> Result<Self> {
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(filter)
            .min_filter(filter)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(vk::SamplerAddressMode::REPEAT)
            .address_mode_v(vk::SamplerAddressMode::REPEAT)
            .address_mode_w(vk::SamplerAddressMode::REPEAT)
            .max_lod(0.0);
        // SAFETY: valid device and create-info.
        let raw = unsafe { ctx.device.create_sampler(&info, None) }.map_err(vk_err("vkCreateSampler"))?;
        ctx.set_name(raw, name);
        Ok(Self { ctx, raw })
    }
}

impl Drop for Sampler<'_> {
    fn drop(&mut self) {
        // SAFETY: no pending submission uses the sampler.
        unsafe { self.ctx.device.destroy_sampler(self.raw, None) };
    }
}
