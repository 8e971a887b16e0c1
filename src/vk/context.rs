//! The Context: instance, device, queue, allocator, command buffer and compiler, torn down in order.

use std::cell::RefCell;
use std::mem::ManuallyDrop;

use ash::vk;
use gpu_allocator::vulkan::{
    Allocation, AllocationCreateDesc, AllocationScheme, Allocator, AllocatorCreateDesc,
};
use gpu_allocator::MemoryLocation;

use super::debug::Sink;
use super::device;
use super::instance::Instance;
use super::pipeline_cache;
use super::select;
use crate::caps::{DeviceCaps, Feature, FeatureSet, QueueKind};
use crate::caps::{DeviceInfo, Row};
use crate::error::{vk_err, Error, Result};

/// A staging buffer put aside for the next upload ([`super::transfer`] keeps one here): its handle
/// and its allocator's memory, borrowing nothing, so that the context can hold it
/// (`Buffer::park`, `Buffer::unpark`).
pub(crate) struct Parked {
    /// The buffer handle.
    pub(crate) raw: vk::Buffer,
    /// Its size in bytes.
    pub(crate) size: u64,
    /// What it was created for, and whether every queue family shares it.
    pub(crate) usage: vk::BufferUsageFlags,
    pub(crate) concurrent: bool,
    /// The memory bound to it.
    pub(crate) allocation: Allocation,
}

impl Parked {
    /// Destroys the buffer and gives its memory back to `ctx`'s allocator (every upload is waited
    /// for, so the GPU is done with it).
    pub(crate) fn free(self, ctx: &Context) {
        // SAFETY: no pending submission uses the buffer; it goes before the memory bound to it.
        unsafe { ctx.device.destroy_buffer(self.raw, None) };
        ctx.free(self.allocation);
    }
}

/// Which device row to use and how.
#[derive(Clone, Debug, Default)]
pub struct ContextOptions {
    /// Keep rows whose name contains this.
    pub device_name: Option<String>,
    /// 1-based physical device among those kept.
    pub device_index: Option<usize>,
    /// The device's compute queue family to run on (`--queue`; its best where `None`).
    pub queue_family: Option<u32>,
    /// Enable the validation layer.
    pub validation: bool,
    /// Clamp what the device reports to this profile (`--simulate`).
    pub simulate: Option<crate::caps::profile::Profile>,
}

/// The chosen device row before a device is created: what it offers decides what to enable.
pub struct Adapter {
    instance: Instance,
    physical: vk::PhysicalDevice,
    row: Row,
    simulate: Option<crate::caps::profile::Profile>,
}

impl Adapter {
    /// Loads Vulkan and picks the row that `options` name.
    pub fn open(options: &ContextOptions) -> Result<Self> {
        let instance = Instance::new(options.validation)?;
        let (physicals, rows) = select::enumerate(&instance)?;
        let chosen = select::select(
            &rows,
            options.device_name.as_deref(),
            options.device_index,
            options.queue_family,
        )?;
        let row = rows[chosen].clone();
        Ok(Self { physical: physicals[row.device], row, instance, simulate: options.simulate.clone() })
    }

    /// The row's header facts and capabilities (without VK_NV_cooperative_matrix2's limits,
    /// which no expansion needs), with the properties of `formats`.
    pub fn describe(&self, formats: &[vk::Format]) -> (DeviceInfo, DeviceCaps) {
        let (mut info, mut caps) = device::describe(&self.instance, self.physical, &self.row, formats, false);
        if let Some(profile) = &self.simulate {
            device::simulate(profile, &mut info, &mut caps);
        }
        (info, caps)
    }

    /// The validation messages collected so far.
    pub fn validation_sink(&self) -> Sink {
        self.instance.sink()
    }
}

/// Everything a run needs on one device. Per-case objects borrow it, so they cannot outlive it.
pub struct Context {
    /// The device.
    pub device: ash::Device,
    /// The physical device behind it.
    pub physical: vk::PhysicalDevice,
    /// Header facts.
    pub info: DeviceInfo,
    /// What the device offers (features, limits, the formats asked about).
    pub caps: DeviceCaps,
    /// The optional features that were enabled.
    pub enabled: FeatureSet,
    /// The pipeline cache every pipeline of the run is created with.
    pub pipeline_cache: vk::PipelineCache,
    /// Where it is kept between runs ([`pipeline_cache`]), and how many bytes it began with.
    cache_file: Option<(std::path::PathBuf, usize)>,
    pub(crate) allocator: ManuallyDrop<RefCell<Allocator>>,
    /// The compute queue of the selected family, with its command buffer and fence.
    pub(crate) submitter: Submitter,
    /// Whether times are the CPU's wall time around each submission and its fence rather than GPU
    /// timestamps: the queue has none (`timestampValidBits = 0`), or `--fence-timing` asked.
    pub fenced: bool,
    /// A queue of each other kind of family the selected cases copy on, for transfers timed there.
    pub(crate) side: Vec<Submitter>,
    debug_utils: Option<ash::ext::debug_utils::Device>,
    /// The staging buffer kept from one upload to the next ([`super::transfer::upload`]).
    pub(crate) staging: RefCell<Option<Parked>>,
    // Dropped last, after the device is destroyed in Drop::drop.
    instance: Instance,
}

impl Context {
    /// Creates the device of `adapter` with each group of `wanted` features that it supports
    /// whole (a group is what one case needs), and describes it with the properties of `formats`.
    /// Beside the run's queue it gets one queue of the first family of each of `queues`' kinds
    /// the device has (copies on other families); a run without such copies makes none.
    pub fn new(
        adapter: Adapter,
        wanted: &[Vec<Feature>],
        formats: &[vk::Format],
        queues: &[QueueKind],
    ) -> Result<Self> {
        let Adapter { instance, physical, row, simulate } = adapter;
        let workgroup_scope = wanted.iter().flatten().any(|&f| f == Feature::CooperativeMatrixWorkgroupScope);
        let (mut info, mut caps) = device::describe(&instance, physical, &row, formats, workgroup_scope);
        if let Some(profile) = &simulate {
            device::simulate(profile, &mut info, &mut caps);
        }
        let whole = wanted.iter().filter(|group| group.iter().all(|&f| caps.features.get(f)));
        let enabled = caps.features.enabled_of(whole.flatten().copied());
        let mut side_families: Vec<u32> = Vec::new();
        for kind in queues {
            if let Some(family) = kind.family(&caps.queue_families) {
                if family != row.family && !side_families.contains(&family) {
                    side_families.push(family);
                }
            }
        }
        let (device, queue, side_queues) =
            device::create(&instance, physical, row.family, &side_families, &enabled)?;
        // From here on, a failure must destroy what was made, then the device.
        let mut partial =
            Partial { device: &device, cache: vk::PipelineCache::null(), submitters: Vec::new() };
        // The pipelines an earlier run of this device and driver compiled, where they were kept.
        // SAFETY: a valid physical device of this instance.
        let properties = unsafe { instance.raw.get_physical_device_properties(physical) };
        let (vendor, device_id, uuid) =
            (properties.vendor_id, properties.device_id, properties.pipeline_cache_uuid);
        let kept = pipeline_cache::path(vendor, device_id, uuid)
            .map(|path| (pipeline_cache::read(&path, vendor, device_id, uuid), path));
        let initial = kept.as_ref().map_or(&[][..], |(data, _)| data.as_slice());
        let cache_info = vk::PipelineCacheCreateInfo::default().initial_data(initial);
        // SAFETY: valid device; the data, where any, begins with this device's cache header; the
        // cache is destroyed in Drop (or by `partial` on failure).
        let pipeline_cache = unsafe { device.create_pipeline_cache(&cache_info, None) }
            .map_err(vk_err("vkCreatePipelineCache"))?;
        let cache_file = kept.map(|(data, path)| (path, data.len()));
        partial.cache = pipeline_cache;
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.raw.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: Default::default(),
            buffer_device_address: enabled.get(Feature::BufferDeviceAddress),
            allocation_sizes: Default::default(),
        })
        .map_err(|source| Error::Allocation { case: None, source })?;
        // The run's queue first, then the side queues.
        let queues =
            std::iter::once((row.family, queue)).chain(side_families.iter().copied().zip(side_queues));
        for (family, queue) in queues {
            let submitter = Submitter::new(&device, family, queue)?;
            partial.submitters.push(submitter);
        }
        let mut side = std::mem::take(&mut partial.submitters);
        let submitter = side.remove(0);
        std::mem::forget(partial);
        let debug_utils =
            instance.debug_utils.then(|| ash::ext::debug_utils::Device::new(&instance.raw, &device));
        let fenced = info.timestamp_valid_bits == 0;
        Ok(Self {
            device,
            physical,
            info,
            caps,
            enabled,
            pipeline_cache,
            cache_file,
            allocator: ManuallyDrop::new(RefCell::new(allocator)),
            submitter,
            fenced,
            side,
            debug_utils,
            staging: RefCell::new(None),
            instance,
        })
    }

    /// The validation messages collected so far; still readable after the context is dropped.
    pub fn validation_sink(&self) -> Sink {
        self.instance.sink()
    }

    /// Gives `handle` a debug-utils name (seen in validation messages and GPU debuggers).
    pub fn set_name<H: vk::Handle>(&self, handle: H, name: &str) {
        let Some(debug_utils) = &self.debug_utils else { return };
        let Ok(name) = std::ffi::CString::new(name) else { return };
        let info = vk::DebugUtilsObjectNameInfoEXT::default().object_handle(handle).object_name(&name);
        // SAFETY: handle belongs to this device; naming is best-effort, so a failure is ignored.
        let _ = unsafe { debug_utils.set_debug_utils_object_name(&info) };
    }

    /// Allocates memory for a resource named `name` with gpu-allocator: always memory the driver
    /// gives afresh, never one a freed resource gave back. Memory taken again for the next
    /// resource of its size (fcafcbf) saved 5 s of a full H200 run's setup and freeing but moved
    /// 26 cases' rates: 20 slower by 3-87% (stores, int8 GEMMs, sweeps, a constant-buffer read),
    /// 6 convolutions faster by 4-8% (results/half-the-time-18/).
    pub(crate) fn allocate(
        &self,
        name: &str,
        requirements: vk::MemoryRequirements,
        location: MemoryLocation,
        linear: bool,
    ) -> Result<Allocation> {
        let scheme = AllocationScheme::GpuAllocatorManaged;
        let desc = AllocationCreateDesc { name, requirements, location, linear, allocation_scheme: scheme };
        self.allocator.borrow_mut().allocate(&desc).map_err(|source| match source {
            // A full heap costs the case, not the run: say how much, and where it could have gone.
            gpu_allocator::AllocationError::OutOfMemory => Error::NoRoom {
                memory: (0..32u32)
                    .filter(|i| requirements.memory_type_bits & (1 << i) != 0)
                    .filter_map(|i| self.caps.memory_types.get(i as usize).map(|t| t.describe(i)))
                    .collect::<Vec<_>>()
                    .join(" or "),
                bytes: requirements.size,
                result: vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            },
            source => Error::Allocation { case: None, source },
        })
    }

    /// Returns memory to the allocator (after the resource using it was destroyed).
    pub(crate) fn free(&self, allocation: Allocation) {
        // A free can only fail on a double free, which ownership of `Allocation` rules out.
        let _ = self.allocator.borrow_mut().free(allocation);
    }

    /// Whether pipelines capture the driver's statistics (`--shader-stats`).
    pub fn pipeline_statistics(&self) -> bool {
        self.enabled.get(Feature::PipelineExecutableInfo)
    }

    /// The queues of this context, with their command buffers and fences: the run's, then the
    /// side queues.
    pub(crate) fn submitters(&self) -> impl Iterator<Item = &Submitter> {
        std::iter::once(&self.submitter).chain(&self.side)
    }

    /// The families with a queue of this context: the run's, then the side queues'.
    pub fn families(&self) -> Vec<u32> {
        self.submitters().map(|s| s.family).collect()
    }

    /// The first family of `kind` on the device: a side queue's, or the run's own (copies on it
    /// would repeat the run's queue's).
    pub fn queue_family(&self, kind: QueueKind) -> Option<u32> {
        kind.family(&self.caps.queue_families)
    }

    /// The raw instance (for instance-level extension loaders).
    pub fn instance(&self) -> &ash::Instance {
        &self.instance.raw
    }
}

/// What `Context::new` has made so far; dropped (destroying it all) only if a later step fails.
struct Partial<'a> {
    device: &'a ash::Device,
    cache: vk::PipelineCache,
    submitters: Vec<Submitter>,
}

/// A queue with its own command pool, one command buffer and a fence: what a submission records
/// into and waits on. The context has one for the run's queue and one per side queue (a copy
/// engine, an async-compute queue).
pub(crate) struct Submitter {
    /// Its family.
    pub family: u32,
    /// The queue (index 0 of the family).
    pub queue: vk::Queue,
    /// The pool of its command buffer.
    pub pool: vk::CommandPool,
    /// Its one command buffer, reset before each submission.
    pub command_buffer: vk::CommandBuffer,
    /// Signalled when its submission completes.
    pub fence: vk::Fence,
}

impl Submitter {
    /// A command pool, one command buffer and a fence for `queue` of `family`; what was made is
    /// destroyed again if a step fails.
    fn new(device: &ash::Device, family: u32, queue: vk::Queue) -> Result<Self> {
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device; the pool is destroyed in Submitter::destroy.
        let pool =
            unsafe { device.create_command_pool(&pool_info, None) }.map_err(vk_err("vkCreateCommandPool"))?;
        let mut submitter = Submitter {
            family,
            queue,
            pool,
            command_buffer: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
        };
        let alloc_info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid pool.
        match unsafe { device.allocate_command_buffers(&alloc_info) } {
            Ok(buffers) => submitter.command_buffer = buffers[0],
            Err(result) => {
                submitter.destroy(device);
                return Err(vk_err("vkAllocateCommandBuffers")(result));
            }
        }
        // SAFETY: valid device; destroyed in Submitter::destroy.
        match unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) } {
            Ok(fence) => submitter.fence = fence,
            Err(result) => {
                submitter.destroy(device);
                return Err(vk_err("vkCreateFence")(result));
            }
        }
        Ok(submitter)
    }

    /// Destroys the fence and the pool (with its command buffer).
    fn destroy(&self, device: &ash::Device) {
        // SAFETY: the queue is idle (the caller waited, or nothing was submitted); null handles
        // are ignored; each is destroyed once.
        unsafe {
            device.destroy_fence(self.fence, None);
            device.destroy_command_pool(self.pool, None);
        }
    }
}

impl Drop for Partial<'_> {
    fn drop(&mut self) {
        for submitter in &self.submitters {
            submitter.destroy(self.device);
        }
        // SAFETY: nothing was submitted yet; null handles are ignored; children go before the device.
        unsafe {
            self.device.destroy_pipeline_cache(self.cache, None);
            self.device.destroy_device(None);
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: nothing else uses the device once the context is dropped; an error from the
        // wait (a lost device) leaves nothing better to do than tear down.
        let _ = unsafe { self.device.device_wait_idle() };
        // The kept staging buffer is destroyed, and its memory freed, before the allocator goes.
        if let Some(parked) = self.staging.take() {
            parked.free(self);
        }
        // SAFETY: dropped once, before the device it allocates from.
        unsafe { ManuallyDrop::drop(&mut self.allocator) };
        // Idle after the wait; each destroyed once (its pool frees its command buffer).
        for submitter in self.submitters() {
            submitter.destroy(&self.device);
        }
        // Kept for the next run where this one compiled something; a cache that cannot be kept
        // costs that run its compile time, nothing else.
        if let Some((path, began)) = &self.cache_file {
            // SAFETY: every pipeline created with the cache is done being created.
            let data = unsafe { self.device.get_pipeline_cache_data(self.pipeline_cache) };
            if let Some(data) = data.ok().filter(|d| d.len() > *began) {
                let _ = crate::cache_files::replace(path, &data);
            }
        }
        // SAFETY: every pipeline created with the cache is done being created.
        unsafe { self.device.destroy_pipeline_cache(self.pipeline_cache, None) };
        // SAFETY: every child object has been destroyed (per-case objects borrow the context).
        unsafe { self.device.destroy_device(None) };
        // `instance` drops next: the messenger, then the instance.
    }
}
