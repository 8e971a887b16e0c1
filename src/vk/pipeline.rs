//! A compute pipeline with its descriptor set of storage buffers and a 32-byte push-constant block.

use ash::vk;

use super::context::Context;
use crate::error::{vk_err, Result};

/// Size of `registry::Params`, the push-constant block of every shader.
pub const PUSH_CONSTANT_BYTES: u32 = 32;

/// What a descriptor binding holds.
#[derive(Clone, Copy)]
pub enum Binding {
    /// A storage buffer.
    Storage(vk::Buffer),
    /// A uniform buffer.
    Uniform(vk::Buffer),
    /// A uniform texel buffer view.
    TexelBuffer(vk::BufferView),
    /// A sampled image view with its sampler.
    CombinedImage(vk::ImageView, vk::Sampler),
}

impl Binding {
    fn descriptor_type(self) -> vk::DescriptorType {
        match self {
            Binding::Storage(_) => vk::DescriptorType::STORAGE_BUFFER,
            Binding::Uniform(_) => vk::DescriptorType::UNIFORM_BUFFER,
            Binding::TexelBuffer(_) => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            Binding::CombinedImage(..) => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        }
    }
}

/// A compute pipeline whose set 0 binds `bindings[i]` at binding `i`.
pub struct Pipeline<'ctx> {
    ctx: &'ctx Context,
    /// The pipeline.
    pub raw: vk::Pipeline,
    /// Its layout (push constants and set 0).
    pub layout: vk::PipelineLayout,
    /// Set 0, already written.
    pub set: vk::DescriptorSet,
    set_layout: vk::DescriptorSetLayout,
    pool: vk::DescriptorPool,
}

impl<'ctx> Pipeline<'ctx> {
    /// Builds the pipeline from `spirv` with `bindings` at bindings 0, 1, ...
    pub fn new(ctx: &'ctx Context, name: &str, spirv: &[u32], bindings: &[Binding]) -> Result<Self> {
        let device = &ctx.device;
        let mut pipeline = Self {
            ctx,
            raw: vk::Pipeline::null(),
            layout: vk::PipelineLayout::null(),
            set: vk::DescriptorSet::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            pool: vk::DescriptorPool::null(),
        };
        let layout_bindings: Vec<_> = (0..bindings.len() as u32)
            .zip(bindings)
            .map(|(binding, b)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(b.descriptor_type())
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings);
        // SAFETY: valid device and create-info; every handle made here is destroyed in Drop,
        // which also runs if a later step fails.
        pipeline.set_layout = unsafe { device.create_descriptor_set_layout(&info, None) }
            .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(PUSH_CONSTANT_BYTES)];
        let set_layouts = [pipeline.set_layout];
        let info =
            vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts).push_constant_ranges(&ranges);
        // SAFETY: as above.
        pipeline.layout = unsafe { device.create_pipeline_layout(&info, None) }
            .map_err(vk_err("vkCreatePipelineLayout"))?;

        let sizes: Vec<_> = bindings
            .iter()
            .map(|b| vk::DescriptorPoolSize::default().ty(b.descriptor_type()).descriptor_count(1))
            .collect();
        let info = vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes);
        // SAFETY: as above.
        pipeline.pool = unsafe { device.create_descriptor_pool(&info, None) }
            .map_err(vk_err("vkCreateDescriptorPool"))?;
        let info =
            vk::DescriptorSetAllocateInfo::default().descriptor_pool(pipeline.pool).set_layouts(&set_layouts);
        // SAFETY: the pool has room for exactly this set.
        pipeline.set =
            unsafe { device.allocate_descriptor_sets(&info) }.map_err(vk_err("vkAllocateDescriptorSets"))?[0];
        let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = bindings
            .iter()
            .map(|b| match *b {
                Binding::Storage(buffer) | Binding::Uniform(buffer) => {
                    [vk::DescriptorBufferInfo::default().buffer(buffer).range(vk::WHOLE_SIZE)]
                }
                _ => [vk::DescriptorBufferInfo::default()],
            })
            .collect();
        let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = bindings
            .iter()
            .map(|b| match *b {
                Binding::CombinedImage(view, sampler) => [vk::DescriptorImageInfo::default()
                    .image_view(view)
                    .sampler(sampler)
                    .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)],
                _ => [vk::DescriptorImageInfo::default()],
            })
            .collect();
        let views: Vec<[vk::BufferView; 1]> = bindings
            .iter()
            .map(|b| match *b {
                Binding::TexelBuffer(view) => [view],
                _ => [vk::BufferView::null()],
            })
            .collect();
        let writes: Vec<_> = bindings
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let write = vk::WriteDescriptorSet::default()
                    .dst_set(pipeline.set)
                    .dst_binding(i as u32)
                    .descriptor_type(b.descriptor_type());
                match b {
                    Binding::TexelBuffer(_) => write.texel_buffer_view(&views[i]),
                    Binding::CombinedImage(..) => write.image_info(&image_infos[i]),
                    _ => write.buffer_info(&buffer_infos[i]),
                }
            })
            .collect();
        // SAFETY: the set and buffers are live; the set is not in use.
        unsafe { device.update_descriptor_sets(&writes, &[]) };

        let module_info = vk::ShaderModuleCreateInfo::default().code(spirv);
        // SAFETY: spirv is shaderc output for the Vulkan environment.
        let module = unsafe { device.create_shader_module(&module_info, None) }
            .map_err(vk_err("vkCreateShaderModule"))?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let flags = if ctx.caps.pipeline_statistics {
            vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
        } else {
            vk::PipelineCreateFlags::empty()
        };
        let info =
            [vk::ComputePipelineCreateInfo::default().flags(flags).stage(stage).layout(pipeline.layout)];
        // SAFETY: valid module and layout.
        let created = unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &info, None) };
        // SAFETY: the module is no longer needed once the pipeline exists (or failed).
        unsafe { device.destroy_shader_module(module, None) };
        pipeline.raw = created.map_err(|(_, result)| vk_err("vkCreateComputePipelines")(result))?[0];
        ctx.set_name(pipeline.raw, name);
        Ok(pipeline)
    }
}

impl Pipeline<'_> {
    /// The driver's statistics of the compiled pipeline (registers, instructions, ... as the driver
    /// names them), one `executable: name = value, ...` line per executable; `None` when the
    /// driver does not offer VK_KHR_pipeline_executable_properties.
    pub fn statistics(&self) -> Result<Option<Vec<String>>> {
        if !self.ctx.caps.pipeline_statistics {
            return Ok(None);
        }
        let loader =
            ash::khr::pipeline_executable_properties::Device::new(self.ctx.instance(), &self.ctx.device);
        let info = vk::PipelineInfoKHR::default().pipeline(self.raw);
        // SAFETY: the pipeline was created with CAPTURE_STATISTICS and the extension is enabled.
        let executables = unsafe { loader.get_pipeline_executable_properties(&info) }
            .map_err(vk_err("vkGetPipelineExecutablePropertiesKHR"))?;
        let mut lines = Vec::new();
        for (index, executable) in executables.iter().enumerate() {
            let info =
                vk::PipelineExecutableInfoKHR::default().pipeline(self.raw).executable_index(index as u32);
            // SAFETY: as above; index is below the executable count.
            let statistics = unsafe { loader.get_pipeline_executable_statistics(&info) }
                .map_err(vk_err("vkGetPipelineExecutableStatisticsKHR"))?;
            let values: Vec<String> = statistics.iter().map(format_statistic).collect();
            let name =
                executable.name_as_c_str().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            lines.push(format!("{name}: {}", values.join(", ")));
        }
        Ok(Some(lines))
    }
}

fn format_statistic(s: &vk::PipelineExecutableStatisticKHR<'_>) -> String {
    let name = s.name_as_c_str().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // SAFETY: `format` says which member of the union the driver wrote.
    let value = unsafe {
        match s.format {
            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => (s.value.b32 == vk::TRUE).to_string(),
            vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
            _ => format!("{:.3}", s.value.f64),
        }
    };
    format!("{name} = {value}")
}

impl Drop for Pipeline<'_> {
    fn drop(&mut self) {
        let device = &self.ctx.device;
        // SAFETY: no pending submission uses these objects; null handles are ignored by Vulkan.
        unsafe {
            device.destroy_pipeline(self.raw, None);
            device.destroy_pipeline_layout(self.layout, None);
            device.destroy_descriptor_pool(self.pool, None);
            device.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}
