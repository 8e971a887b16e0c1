//! Sampled 2D images (uploaded through a staging buffer) and samplers.

use ash::vk;
use gpu_allocator::vulkan::Allocation;
use gpu_allocator::MemoryLocation;

use super::buffer::Buffer;
use super::commands::submit;
use super::context::Context;
use crate::error::{vk_err, Result};

/// A device-local 2D image in SHADER_READ_ONLY_OPTIMAL layout, with a view.
pub struct Image<'ctx> {
    ctx: &'ctx Context,
    /// The image.
    pub raw: vk::Image,
    /// A view of its one mip level.
    pub view: vk::ImageView,
    allocation: Option<Allocation>,
}

impl<'ctx> Image<'ctx> {
    /// Creates a `width` x `height` image of `format` and uploads the bytes `fill` writes
    /// (texels row by row, tightly packed, `texel_bytes` each).
    pub fn new(
        ctx: &'ctx Context,
        name: &str,
        format: vk::Format,
        [width, height]: [u32; 2],
        texel_bytes: u64,
        fill: fn(&mut [u8]),
    ) -> Result<Self> {
        let extent = vk::Extent3D { width, height, depth: 1 };
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(extent)
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid device; the format supports sampling (a case requirement).
        let raw = unsafe { ctx.device.create_image(&info, None) }.map_err(vk_err("vkCreateImage"))?;
        let mut image = Self { ctx, raw, view: vk::ImageView::null(), allocation: None };
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
            .format(format)
            .subresource_range(range);
        // SAFETY: valid image with bound memory.
        image.view =
            unsafe { ctx.device.create_image_view(&view_info, None) }.map_err(vk_err("vkCreateImageView"))?;

        let bytes = u64::from(width) * u64::from(height) * texel_bytes;
        let mut staging = Buffer::new(
            ctx,
            &format!("{name}: staging"),
            bytes,
            vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
        )?;
        fill(staging.bytes_mut());
        let layers =
            vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1);
        let copy = vk::BufferImageCopy::default().image_subresource(layers).image_extent(extent);
        submit(ctx, |device, cmd| {
            let to_transfer = vk::ImageMemoryBarrier::default()
                .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(raw)
                .subresource_range(range);
            let to_shader = vk::ImageMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::SHADER_READ)
                .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .new_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(raw)
                .subresource_range(range);
            // SAFETY: cmd is recording; the image and staging buffer are live.
            unsafe {
                device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[to_transfer],
                );
                device.cmd_copy_buffer_to_image(
                    cmd,
                    staging.raw,
                    raw,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[copy],
                );
                device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[to_shader],
                );
            }
        })?;
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
