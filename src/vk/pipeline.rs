//! Compute pipelines (built on any thread from a device handle and a pipeline cache, then adopted
//! by the context) and the descriptor sets that bind a case's resources to them.

use ash::vk;

use super::context::Context;
use crate::error::{vk_err, Result};

/// What a descriptor binding holds.
#[derive(Clone, Copy, Debug)]
pub enum Binding {
    /// A storage buffer.
    Storage(vk::Buffer),
    /// A uniform buffer.
    Uniform(vk::Buffer),
    /// A uniform texel buffer view.
    UniformTexel(vk::BufferView),
    /// A storage texel buffer view.
    StorageTexel(vk::BufferView),
    /// A sampled image view with its sampler.
    CombinedImage(vk::ImageView, vk::Sampler),
    /// A storage image view (GENERAL layout).
    StorageImage(vk::ImageView),
}

impl Binding {
    /// The descriptor type of this binding.
    pub fn descriptor_type(self) -> vk::DescriptorType {
        match self {
            Binding::Storage(_) => vk::DescriptorType::STORAGE_BUFFER,
            Binding::Uniform(_) => vk::DescriptorType::UNIFORM_BUFFER,
            Binding::UniformTexel(_) => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            Binding::StorageTexel(_) => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            Binding::CombinedImage(..) => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            Binding::StorageImage(_) => vk::DescriptorType::STORAGE_IMAGE,
        }
    }
}

/// How to build one pipeline: plain data a worker thread can take.
#[derive(Clone, Debug)]
pub struct PipelineDesc {
    /// The compiled compute shader.
    pub spirv: Vec<u32>,
    /// Set 0's descriptor types, binding 0 first.
    pub bindings: Vec<vk::DescriptorType>,
    /// Size of the push-constant block (0: none).
    pub push_bytes: u32,
    /// Ask the driver to keep statistics (VK_KHR_pipeline_executable_properties enabled).
    pub capture_statistics: bool,
    /// Require full subgroups (`computeFullSubgroups` enabled): cooperative matrices at subgroup
    /// scope in SPIR-V before 1.6 need it.
    pub full_subgroups: bool,
}

/// Pipeline handles made by [`build`], not yet owned by a context: [`Pipeline::adopt`] them, or
/// [`RawPipeline::destroy`] them.
#[derive(Debug)]
pub struct RawPipeline {
    raw: vk::Pipeline,
    layout: vk::PipelineLayout,
    set_layout: vk::DescriptorSetLayout,
    push_bytes: u32,
}

impl RawPipeline {
    /// Destroys the handles (null ones are ignored).
    pub fn destroy(self, device: &ash::Device) {
        // SAFETY: the handles came from `device` and no command buffer uses them.
        unsafe {
            device.destroy_pipeline(self.raw, None);
            device.destroy_pipeline_layout(self.layout, None);
            device.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

/// Creates the set layout, pipeline layout and pipeline of `desc` with `cache`. Safe to call from
/// several threads at once (ash's device is `Sync`; pipeline caches are internally synchronised).
pub fn build(device: &ash::Device, cache: vk::PipelineCache, desc: &PipelineDesc) -> Result<RawPipeline> {
    let mut made = RawPipeline {
        raw: vk::Pipeline::null(),
        layout: vk::PipelineLayout::null(),
        set_layout: vk::DescriptorSetLayout::null(),
        push_bytes: desc.push_bytes,
    };
    let built = build_into(device, cache, desc, &mut made);
    match built {
        Ok(()) => Ok(made),
        Err(error) => {
            made.destroy(device);
            Err(error)
        }
    }
}

fn build_into(
    device: &ash::Device,
    cache: vk::PipelineCache,
    desc: &PipelineDesc,
    made: &mut RawPipeline,
) -> Result<()> {
    let layout_bindings: Vec<_> = desc
        .bindings
        .iter()
        .enumerate()
        .map(|(binding, &ty)| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(binding as u32)
                .descriptor_type(ty)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings);
    // SAFETY: valid device and create-info; the caller destroys the handle on failure.
    made.set_layout = unsafe { device.create_descriptor_set_layout(&info, None) }
        .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
    let ranges =
        [vk::PushConstantRange::default().stage_flags(vk::ShaderStageFlags::COMPUTE).size(desc.push_bytes)];
    let set_layouts = [made.set_layout];
    let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
    if desc.push_bytes > 0 {
        info = info.push_constant_ranges(&ranges);
    }
    // SAFETY: as above.
    made.layout =
        unsafe { device.create_pipeline_layout(&info, None) }.map_err(vk_err("vkCreatePipelineLayout"))?;
    let module_info = vk::ShaderModuleCreateInfo::default().code(&desc.spirv);
    // SAFETY: spirv is shaderc output for the Vulkan environment.
    let module =
        unsafe { device.create_shader_module(&module_info, None) }.map_err(vk_err("vkCreateShaderModule"))?;
    let stage_flags = if desc.full_subgroups {
        vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS
    } else {
        vk::PipelineShaderStageCreateFlags::empty()
    };
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .flags(stage_flags)
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(c"main");
    let flags = if desc.capture_statistics {
        vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
    } else {
        vk::PipelineCreateFlags::empty()
    };
    let info = [vk::ComputePipelineCreateInfo::default().flags(flags).stage(stage).layout(made.layout)];
    // SAFETY: valid module, layout and cache.
    let created = unsafe { device.create_compute_pipelines(cache, &info, None) };
    // SAFETY: the module is no longer needed once the pipeline exists (or failed).
    unsafe { device.destroy_shader_module(module, None) };
    made.raw = created.map_err(|(_, result)| vk_err("vkCreateComputePipelines")(result))?[0];
    Ok(())
}

/// A compute pipeline with its layouts, owned by a context.
pub struct Pipeline<'ctx> {
    ctx: &'ctx Context,
    /// The pipeline.
    pub raw: vk::Pipeline,
    /// Its layout (push constants and set 0).
    pub layout: vk::PipelineLayout,
    /// Set 0's layout.
    pub set_layout: vk::DescriptorSetLayout,
    /// Size of its push-constant block.
    pub push_bytes: u32,
}

impl<'ctx> Pipeline<'ctx> {
    /// Takes ownership of handles built by [`build`] on this context's device, naming the pipeline.
    pub fn adopt(ctx: &'ctx Context, raw: RawPipeline, name: &str) -> Self {
        ctx.set_name(raw.raw, name);
        Self { ctx, raw: raw.raw, layout: raw.layout, set_layout: raw.set_layout, push_bytes: raw.push_bytes }
    }
}

impl Pipeline<'_> {
    /// The driver's statistics of the compiled pipeline (registers, instructions, ... as the driver
    /// names them), one `executable: name = value, ...` line per executable; `None` when the
    /// driver does not offer VK_KHR_pipeline_executable_properties.
    pub fn statistics(&self) -> Result<Option<Vec<String>>> {
        if !self.ctx.pipeline_statistics() {
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
        RawPipeline { raw: self.raw, layout: self.layout, set_layout: self.set_layout, push_bytes: 0 }
            .destroy(&self.ctx.device);
    }
}

/// Set 0 of a pipeline, written with a case's resources, with its own descriptor pool.
pub struct DescriptorSet<'ctx> {
    ctx: &'ctx Context,
    pool: vk::DescriptorPool,
    /// The set.
    pub raw: vk::DescriptorSet,
}

impl<'ctx> DescriptorSet<'ctx> {
    /// Allocates a set of `pipeline`'s layout and writes `bindings[i]` at binding `i`.
    pub fn new(
        ctx: &'ctx Context,
        pipeline: &Pipeline<'_>,
        bindings: &[Binding],
        name: &str,
    ) -> Result<Self> {
        let device = &ctx.device;
        let sizes: Vec<_> = bindings
            .iter()
            .map(|b| vk::DescriptorPoolSize::default().ty(b.descriptor_type()).descriptor_count(1))
            .collect();
        let info = vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes);
        // SAFETY: valid device and create-info; destroyed in Drop (also on a later failure).
        let pool = unsafe { device.create_descriptor_pool(&info, None) }
            .map_err(vk_err("vkCreateDescriptorPool"))?;
        let mut set = Self { ctx, pool, raw: vk::DescriptorSet::null() };
        let set_layouts = [pipeline.set_layout];
        let info = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&set_layouts);
        // SAFETY: the pool has room for exactly this set.
        set.raw =
            unsafe { device.allocate_descriptor_sets(&info) }.map_err(vk_err("vkAllocateDescriptorSets"))?[0];
        ctx.set_name(set.raw, name);
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
                Binding::StorageImage(view) => [vk::DescriptorImageInfo::default()
                    .image_view(view)
                    .image_layout(vk::ImageLayout::GENERAL)],
                _ => [vk::DescriptorImageInfo::default()],
            })
            .collect();
        let views: Vec<[vk::BufferView; 1]> = bindings
            .iter()
            .map(|b| match *b {
                Binding::UniformTexel(view) | Binding::StorageTexel(view) => [view],
                _ => [vk::BufferView::null()],
            })
            .collect();
        let writes: Vec<_> = bindings
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let write = vk::WriteDescriptorSet::default()
                    .dst_set(set.raw)
                    .dst_binding(i as u32)
                    .descriptor_type(b.descriptor_type());
                match b {
                    Binding::UniformTexel(_) | Binding::StorageTexel(_) => write.texel_buffer_view(&views[i]),
                    Binding::CombinedImage(..) | Binding::StorageImage(_) => {
                        write.image_info(&image_infos[i])
                    }
                    Binding::Storage(_) | Binding::Uniform(_) => write.buffer_info(&buffer_infos[i]),
                }
            })
            .collect();
        // SAFETY: the set and every bound object are live; the set is not in use.
        unsafe { device.update_descriptor_sets(&writes, &[]) };
        Ok(set)
    }
}

impl Drop for DescriptorSet<'_> {
    fn drop(&mut self) {
        // SAFETY: no pending submission uses the set; destroying the pool frees it.
        unsafe { self.ctx.device.destroy_descriptor_pool(self.pool, None) };
    }
}
