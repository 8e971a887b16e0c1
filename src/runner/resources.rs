//! A case's resources on the GPU: the buffers, texel views, images and samplers its [`Resource`]
//! descriptions ask for, their bindings, and the resets recorded before each measurement.

use std::rc::Rc;

use ash::vk;

use super::kept::{Kept, Object};
use crate::error::{Error, Result};
use crate::registry::{CaseSpec, Placement, Reset, Resource, ResourceKind, HEADER_BYTES};
use crate::vk::buffer::{BufferDesc, Contents, TexelView};
use crate::vk::image::{Image, ImageDesc, Sampler};
use crate::vk::pipeline::Binding;
use crate::vk::{transfer, Buffer, Context};

/// The resource a verify run reads back: a buffer or an image, by index in [`Resources`].
#[derive(Clone, Copy)]
pub(super) enum Checked {
    Buffer(usize),
    Image(usize),
}

/// A reset recorded before each measurement.
pub(super) enum ResetOp {
    /// Fill buffer `.0` with the word `.1`.
    Fill(usize, u32),
    /// Copy buffer `.0` (the pristine contents) into buffer `.1`.
    CopyBuffer(usize, usize),
    /// Copy buffer `.0` into image `.1`.
    CopyImage(usize, usize),
}

/// The Vulkan objects made from a case's resources. Fields drop in order: views before the
/// buffers and kept contents they view.
#[derive(Default)]
pub(super) struct Resources<'ctx> {
    pub(super) views: Vec<TexelView<'ctx>>,
    pub(super) samplers: Vec<Sampler<'ctx>>,
    pub(super) images: Vec<Image<'ctx>>,
    pub(super) buffers: Vec<Buffer<'ctx>>,
    /// The case's share of contents kept from case to case ([`Kept`]).
    pub(super) kept: Vec<Object<'ctx>>,
}

/// What [`build`] made of a case's resources.
pub(super) struct Built<'ctx> {
    pub(super) resources: Resources<'ctx>,
    /// One per resource that binds, in the set's order (after the results buffer).
    pub(super) bindings: Vec<Binding>,
    pub(super) resets: Vec<ResetOp>,
    pub(super) checked: Option<Checked>,
    /// The buffer the workgroups record their compute units in ([`CaseSpec::unit_records`]).
    pub(super) records: Option<usize>,
    /// The buffer the shader logs its faults in ([`CaseSpec::fault_log`]).
    pub(super) faults: Option<usize>,
    /// The buffers of its copies, source then through ([`CaseSpec::copies`]), and their count.
    pub(super) copies: Option<(usize, usize, u32)>,
}

/// An error in `case`'s description: a defect in its family, not in the driver.
pub(super) fn spec_error(case: &CaseSpec, problem: String) -> Error {
    Error::CaseSpec { case: case.name.clone(), problem }
}

impl<'ctx> Resources<'ctx> {
    pub(super) fn buffer(&mut self, buffer: Buffer<'ctx>) -> usize {
        self.buffers.push(buffer);
        self.buffers.len() - 1
    }
}

/// Creates `case`'s resources (those that name their contents taken from `kept`, or made and
/// kept there), and writes the device address of each [`ResourceKind::BufferAddress`] into both of
/// its push blocks (time and verify).
pub(super) fn build<'ctx>(
    ctx: &'ctx Context,
    case: &CaseSpec,
    push: &mut [Vec<u8>; 2],
    kept: &Kept<'ctx>,
) -> Result<Built<'ctx>> {
    let name = &case.name;
    let mut resources = Resources::default();
    let mut resets = Vec::new();
    let mut bindings = Vec::new();
    let mut checked = None;
    let mut records = None;
    let mut faults = None;
    let mut copied = [None, None];
    for (i, resource) in case.resources.iter().enumerate() {
        if resource.contents.is_some() {
            let object = kept.take_or(resource, || make_kept(ctx, case, resource))?;
            bindings.push(bind_kept(ctx, case, resource, object, &mut resources)?);
            continue;
        }
        let label = format!("{name}: resource {}", i + 1);
        let fill = resource.fill.as_deref().map(|f| f as &dyn Fn(&mut [u8]));
        let binding = match resource.kind {
            ResourceKind::TransferBuffer { .. } => {
                return Err(spec_error(
                    case,
                    format!("resource {}: a transfer buffer is only for CaseSpec::copy cases", i + 1),
                ))
            }
            ResourceKind::StorageBuffer { bytes } => {
                let at = add_buffer(ctx, &label, resource, bytes, &mut resources, &mut resets)?;
                if case.checks == Some(i) {
                    checked = Some(Checked::Buffer(at));
                }
                if case.unit_records == Some(i) {
                    records = Some(at);
                }
                if case.fault_log.map(|log| log.resource) == Some(i) {
                    faults = Some(at);
                }
                for (end, place) in
                    copied.iter_mut().zip(case.copies.iter().flat_map(|c| [c.source, c.through]))
                {
                    if place == i {
                        *end = Some(at);
                    }
                }
                Some(Binding::Storage(resources.buffers[at].raw))
            }
            ResourceKind::UniformBuffer { bytes } => {
                let at = add_buffer(ctx, &label, resource, bytes, &mut resources, &mut resets)?;
                Some(Binding::Uniform(resources.buffers[at].raw))
            }
            ResourceKind::UniformTexelBuffer { format, bytes }
            | ResourceKind::StorageTexelBuffer { format, bytes } => {
                let at = add_buffer(ctx, &label, resource, bytes, &mut resources, &mut resets)?;
                if case.checks == Some(i) {
                    checked = Some(Checked::Buffer(at));
                }
                let storage = matches!(resource.kind, ResourceKind::StorageTexelBuffer { .. });
                let buffer = &resources.buffers[at];
                Some(texel_binding(ctx, &label, buffer, format, storage, &mut resources.views)?)
            }
            ResourceKind::SampledImage { format, size, .. } | ResourceKind::StorageImage { format, size } => {
                let storage = matches!(resource.kind, ResourceKind::StorageImage { .. });
                let (image, staging) = filled_image(ctx, case, &label, format, size, storage, fill)?;
                let binding = match resource.kind {
                    ResourceKind::SampledImage { filter, .. } => {
                        sampled_binding(ctx, &label, image.view, filter, &mut resources.samplers)?
                    }
                    _ => Binding::StorageImage(image.view),
                };
                resources.images.push(image);
                if case.checks == Some(i) {
                    checked = Some(Checked::Image(resources.images.len() - 1));
                }
                match resource.reset {
                    None => {}
                    Some(Reset::Initial) => {
                        let source = resources.buffer(staging);
                        resets.push(ResetOp::CopyImage(source, resources.images.len() - 1));
                    }
                    Some(Reset::Fill(_)) => {
                        return Err(spec_error(
                            case,
                            format!("resource {}: images reset to their initial contents only", i + 1),
                        ))
                    }
                }
                Some(binding)
            }
            ResourceKind::AddressTable { buffers, bytes } => {
                let at = address_table(ctx, &label, resource, buffers, bytes, &mut resources)?;
                Some(Binding::Storage(resources.buffers[at].raw))
            }
            ResourceKind::BufferAddress { bytes, push_offset } => {
                let at = add_buffer(ctx, &label, resource, bytes, &mut resources, &mut resets)?;
                let address = resources.buffers[at].device_address().to_ne_bytes();
                let at = HEADER_BYTES + push_offset as usize;
                for block in push.iter_mut() {
                    let slot = block.get_mut(at..at + 8).ok_or_else(|| {
                        spec_error(
                            case,
                            format!(
                                "resource {}: push offset {push_offset} is outside the push block",
                                i + 1
                            ),
                        )
                    })?;
                    slot.copy_from_slice(&address);
                }
                None
            }
        };
        bindings.extend(binding);
    }
    let copies = match (case.copies, copied) {
        (Some(c), [Some(source), Some(through)]) => Some((source, through, c.count)),
        (Some(_), _) => return Err(spec_error(case, "its copies' buffers were not made".into())),
        (None, _) => None,
    };
    Ok(Built { resources, bindings, resets, checked, records, faults, copies })
}

/// Creates `resource`, which names its contents (read-only, filled, never reset:
/// [`CaseSpec::validate`] holds it), to be kept from case to case; with its size in bytes.
fn make_kept<'ctx>(ctx: &'ctx Context, case: &CaseSpec, resource: &Resource) -> Result<(Object<'ctx>, u64)> {
    let label = format!("kept {}", resource.contents.as_deref().unwrap_or_default());
    let fill = resource.fill.as_deref().map(|f| f as &dyn Fn(&mut [u8]));
    if let ResourceKind::SampledImage { format, size, .. } = resource.kind {
        // The staging buffer goes: kept contents are never reset.
        let (image, staging) = filled_image(ctx, case, &label, format, size, false, fill)?;
        return Ok((Object::Image(Rc::new(image)), staging.size));
    }
    let bytes = resource.kind.bytes();
    let desc = buffer_desc(resource.placement, bytes, buffer_usage(resource.kind));
    let buffer = transfer::with_data(ctx, &label, desc, fill)?;
    Ok((Object::Buffer(Rc::new(buffer)), bytes))
}

/// The binding of kept `object` for `resource` of `case`, with the view or sampler it needs added
/// to `resources`, which holds a share of the object until the case ends.
fn bind_kept<'ctx>(
    ctx: &'ctx Context,
    case: &CaseSpec,
    resource: &Resource,
    object: Object<'ctx>,
    resources: &mut Resources<'ctx>,
) -> Result<Binding> {
    let label = format!("{}: kept {}", case.name, resource.contents.as_deref().unwrap_or_default());
    let binding = match (&object, resource.kind) {
        (Object::Buffer(buffer), ResourceKind::StorageBuffer { .. }) => Binding::Storage(buffer.raw),
        (Object::Buffer(buffer), ResourceKind::UniformBuffer { .. }) => Binding::Uniform(buffer.raw),
        (Object::Buffer(buffer), ResourceKind::UniformTexelBuffer { format, .. }) => {
            texel_binding(ctx, &label, buffer, format, false, &mut resources.views)?
        }
        (Object::Image(image), ResourceKind::SampledImage { filter, .. }) => {
            sampled_binding(ctx, &label, image.view, filter, &mut resources.samplers)?
        }
        _ => return Err(spec_error(case, "its kept contents are of another kind".into())),
    };
    resources.kept.push(object);
    Ok(binding)
}

/// The usage a buffer resource of `kind` is created with (none for images, and for transfer
/// buffers, which `copy.rs` makes).
fn buffer_usage(kind: ResourceKind) -> vk::BufferUsageFlags {
    match kind {
        ResourceKind::StorageBuffer { .. } => vk::BufferUsageFlags::STORAGE_BUFFER,
        ResourceKind::UniformBuffer { .. } => vk::BufferUsageFlags::UNIFORM_BUFFER,
        ResourceKind::UniformTexelBuffer { .. } => vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER,
        ResourceKind::StorageTexelBuffer { .. } => vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER,
        ResourceKind::BufferAddress { .. } | ResourceKind::AddressTable { .. } => {
            vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
        }
        ResourceKind::TransferBuffer { .. }
        | ResourceKind::SampledImage { .. }
        | ResourceKind::StorageImage { .. } => vk::BufferUsageFlags::empty(),
    }
}

/// Creates the `buffers` buffers of `bytes` of an [`ResourceKind::AddressTable`], each cleared on
/// the device, and the table of their addresses; returns the table's index in
/// `resources.buffers` (the buffers come before it, and are dropped after it).
fn address_table<'ctx>(
    ctx: &'ctx Context,
    label: &str,
    resource: &Resource,
    buffers: u32,
    bytes: u64,
    resources: &mut Resources<'ctx>,
) -> Result<usize> {
    let usage = buffer_usage(resource.kind);
    let mut addresses = Vec::with_capacity(buffers as usize);
    for n in 1..=buffers {
        let name = format!("{label}, buffer {n} of {buffers}");
        let mut buffer = Buffer::new(ctx, &name, buffer_desc(resource.placement, bytes, usage))?;
        transfer::upload(ctx, &mut buffer, &name, None)?;
        addresses.push(buffer.device_address());
        resources.buffer(buffer);
    }
    let name = format!("{label}: the table of its {buffers} addresses");
    let desc =
        buffer_desc(Placement::DeviceLocal, 8 * u64::from(buffers), vk::BufferUsageFlags::STORAGE_BUFFER);
    let mut table = Buffer::new(ctx, &name, desc)?;
    let fill = |out: &mut [u8]| {
        for (slot, address) in out.chunks_exact_mut(8).zip(&addresses) {
            slot.copy_from_slice(&address.to_ne_bytes());
        }
    };
    transfer::upload(ctx, &mut table, &name, Some(&fill))?;
    Ok(resources.buffer(table))
}

/// An image of `format` and `size` (a storage image where `storage`) holding what `fill` writes,
/// and the staging buffer it was uploaded through (a reset copies it back).
fn filled_image<'ctx>(
    ctx: &'ctx Context,
    case: &CaseSpec,
    label: &str,
    format: vk::Format,
    size: [u32; 2],
    storage: bool,
    fill: Contents<'_>,
) -> Result<(Image<'ctx>, Buffer<'ctx>)> {
    let texel_bytes = crate::registry::texel_bytes(format)
        .ok_or_else(|| spec_error(case, format!("perftest does not know the texel size of {format:?}")))?;
    let desc = ImageDesc { format, size, storage, texel_bytes };
    let staging = Buffer::staging(ctx, &format!("{label}: staging"), desc.bytes(), fill)?;
    let image = transfer::image(ctx, label, desc, &staging)?;
    Ok((image, staging))
}

/// A view of `buffer` as texels of `format`, kept in `views`; its binding, a storage or a uniform
/// texel buffer.
fn texel_binding<'ctx>(
    ctx: &'ctx Context,
    label: &str,
    buffer: &Buffer<'ctx>,
    format: vk::Format,
    storage: bool,
    views: &mut Vec<TexelView<'ctx>>,
) -> Result<Binding> {
    let view = TexelView::new(ctx, label, buffer, format)?;
    let binding = if storage { Binding::StorageTexel(view.raw) } else { Binding::UniformTexel(view.raw) };
    views.push(view);
    Ok(binding)
}

/// A sampler with `filter` for the image `view`, kept in `samplers`; its combined binding.
fn sampled_binding<'ctx>(
    ctx: &'ctx Context,
    label: &str,
    view: vk::ImageView,
    filter: vk::Filter,
    samplers: &mut Vec<Sampler<'ctx>>,
) -> Result<Binding> {
    let sampler = Sampler::new(ctx, label, filter)?;
    let binding = Binding::CombinedImage(view, sampler.raw);
    samplers.push(sampler);
    Ok(binding)
}

/// `the buffer in memory type 2 (heap 1, 1 TiB: HOST_VISIBLE | ...)` for each named buffer in a
/// dedicated memory type.
pub(super) fn memory_notes<'a>(
    ctx: &Context,
    buffers: impl Iterator<Item = (&'a str, &'a Buffer<'a>)>,
) -> Vec<String> {
    buffers
        .filter_map(|(what, buffer)| {
            let index = buffer.memory_type?;
            let ty = ctx.caps.memory_types.get(index as usize)?;
            Some(format!("{what} in memory {}", ty.describe(index)))
        })
        .collect()
}

/// The buffer of `bytes` with `usage` that `placement` asks for.
pub(super) fn buffer_desc(placement: Placement, bytes: u64, usage: vk::BufferUsageFlags) -> BufferDesc {
    match placement {
        Placement::DeviceLocal => BufferDesc::gpu_only(bytes, usage),
        Placement::HostVisible => BufferDesc::cpu_to_gpu(bytes, usage),
        Placement::Memory(kind) => BufferDesc::in_memory(bytes, usage, kind),
    }
}

/// Creates a buffer-backed resource of `bytes` with its kind's usage ([`buffer_usage`]), placed and
/// filled (given its own address, where it asks) as it asks, keeps it, and records its reset (a
/// fill, or a copy from a pristine device-local copy; validate() refuses a reset of a buffer filled
/// at its address). Returns its index in `resources.buffers`.
fn add_buffer<'ctx>(
    ctx: &'ctx Context,
    label: &str,
    resource: &Resource,
    bytes: u64,
    resources: &mut Resources<'ctx>,
    resets: &mut Vec<ResetOp>,
) -> Result<usize> {
    let fill = resource.fill.as_deref().map(|f| f as &dyn Fn(&mut [u8]));
    let usage = buffer_usage(resource.kind);
    let mut buffer = Buffer::new(ctx, label, buffer_desc(resource.placement, bytes, usage))?;
    match &resource.fill_at {
        None => transfer::upload(ctx, &mut buffer, label, fill)?,
        Some(fill_at) => {
            let address = buffer.device_address();
            transfer::upload(ctx, &mut buffer, label, Some(&|bytes: &mut [u8]| fill_at(bytes, address)))?;
        }
    }
    let at = resources.buffer(buffer);
    match resource.reset {
        None => {}
        Some(Reset::Fill(value)) => resets.push(ResetOp::Fill(at, value)),
        Some(Reset::Initial) => {
            let desc = BufferDesc::gpu_only(bytes, vk::BufferUsageFlags::empty());
            let pristine = transfer::with_data(ctx, &format!("{label}: pristine"), desc, fill)?;
            let source = resources.buffer(pristine);
            resets.push(ResetOp::CopyBuffer(source, at));
        }
    }
    Ok(at)
}
