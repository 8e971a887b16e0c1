//! What a case binds: buffers, texel buffers, images and buffer addresses, described as data.

use std::sync::Arc;

use ash::vk;

use crate::caps::{Feature, FormatUse, Limit, MemoryKind, Requirements};

/// Writes a resource's initial contents (the CPU reference reads the same data).
pub type Fill = Arc<dyn Fn(&mut [u8]) + Send + Sync>;

/// Writes the initial contents of a buffer reached by its address, given that address: data that
/// points into itself (a pointer chase), written once into the staging buffer.
pub type FillAt = Arc<dyn Fn(&mut [u8], u64) + Send + Sync>;

/// What kind of resource, and its size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ResourceKind {
    /// A storage buffer (`buffer` block, std430).
    StorageBuffer {
        /// Size in bytes.
        bytes: u64,
    },
    /// A uniform buffer (at most 16384 bytes: the range every device offers).
    UniformBuffer {
        /// Size in bytes.
        bytes: u64,
    },
    /// A uniform texel buffer (`textureBuffer`) viewed as `format`.
    UniformTexelBuffer {
        /// The view's format.
        format: vk::Format,
        /// Size in bytes.
        bytes: u64,
    },
    /// A storage texel buffer (`imageBuffer`) viewed as `format`.
    StorageTexelBuffer {
        /// The view's format.
        format: vk::Format,
        /// Size in bytes.
        bytes: u64,
    },
    /// A sampled 2D image with a sampler (a combined image sampler), repeat addressing, level 0.
    SampledImage {
        /// The image's format.
        format: vk::Format,
        /// Width and height in texels.
        size: [u32; 2],
        /// The sampler's filter (loads ignore it).
        filter: vk::Filter,
    },
    /// A storage 2D image (`image2D`), in the GENERAL layout.
    StorageImage {
        /// The image's format.
        format: vk::Format,
        /// Width and height in texels.
        size: [u32; 2],
    },
    /// A buffer only copied (a transfer case's source or target): no descriptor, no binding limits.
    TransferBuffer {
        /// Size in bytes.
        bytes: u64,
    },
    /// A storage buffer reached through its device address (`buffer_reference`), not a descriptor:
    /// the 8-byte address is written into the family's push block at `push_offset`.
    BufferAddress {
        /// Size in bytes.
        bytes: u64,
        /// Byte offset of the address within the family's push block (a multiple of 8).
        push_offset: u32,
    },
    /// A storage buffer holding the 8-byte device addresses of `buffers` device-local buffers of
    /// `bytes` each, cleared on the device: more memory than one buffer or one binding may reach
    /// (a screen of most of a GPU's memory). It binds the table; the shader follows the addresses
    /// (`buffer_reference`).
    AddressTable {
        /// How many buffers.
        buffers: u32,
        /// Each one's size in bytes.
        bytes: u64,
    },
}

impl ResourceKind {
    /// The descriptor type that binds it; `None` for a buffer reached by its address.
    pub fn descriptor_type(&self) -> Option<vk::DescriptorType> {
        Some(match self {
            ResourceKind::StorageBuffer { .. } | ResourceKind::AddressTable { .. } => {
                vk::DescriptorType::STORAGE_BUFFER
            }
            ResourceKind::UniformBuffer { .. } => vk::DescriptorType::UNIFORM_BUFFER,
            ResourceKind::UniformTexelBuffer { .. } => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            ResourceKind::StorageTexelBuffer { .. } => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            ResourceKind::SampledImage { .. } => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            ResourceKind::StorageImage { .. } => vk::DescriptorType::STORAGE_IMAGE,
            ResourceKind::BufferAddress { .. } | ResourceKind::TransferBuffer { .. } => return None,
        })
    }

    /// Its size in bytes (an image's texel count for images, which are never placed by kind; an
    /// address table's buffers together).
    pub fn bytes(&self) -> u64 {
        match *self {
            ResourceKind::AddressTable { buffers, bytes } => u64::from(buffers) * bytes,
            ResourceKind::StorageBuffer { bytes }
            | ResourceKind::UniformBuffer { bytes }
            | ResourceKind::UniformTexelBuffer { bytes, .. }
            | ResourceKind::StorageTexelBuffer { bytes, .. }
            | ResourceKind::BufferAddress { bytes, .. }
            | ResourceKind::TransferBuffer { bytes } => bytes,
            ResourceKind::SampledImage { size, .. } | ResourceKind::StorageImage { size, .. } => {
                u64::from(size[0]) * u64::from(size[1])
            }
        }
    }

    /// The bytes its contents take, as a fill writes and a staging copy holds them: an image's
    /// texels tightly packed (16 bytes a texel where perftest does not know the format's size),
    /// else [`ResourceKind::bytes`].
    pub fn content_bytes(&self) -> u64 {
        match *self {
            ResourceKind::SampledImage { format, .. } | ResourceKind::StorageImage { format, .. } => {
                self.bytes() * super::format::texel_bytes(format).unwrap_or(16)
            }
            _ => self.bytes(),
        }
    }

    /// What the device must offer to hold and bind it: format uses, the buffer-address feature,
    /// and the limits its size meets. A case needs these whatever else it states.
    pub fn requirements(&self) -> Requirements {
        let buffer = |bytes: u64| Requirements::new().limit(Limit::AllocationBytes(bytes));
        match *self {
            ResourceKind::TransferBuffer { bytes } => buffer(bytes),
            ResourceKind::StorageBuffer { bytes } => buffer(bytes).limit(Limit::StorageBufferRange(bytes)),
            ResourceKind::UniformBuffer { bytes } => buffer(bytes).limit(Limit::UniformBufferRange(bytes)),
            ResourceKind::UniformTexelBuffer { format, bytes } => buffer(bytes)
                .format(format, FormatUse::UniformTexelBuffer)
                .limit(Limit::TexelBufferElements(bytes / super::format::texel_bytes(format).unwrap_or(1))),
            ResourceKind::StorageTexelBuffer { format, bytes } => buffer(bytes)
                .format(format, FormatUse::StorageTexelBuffer)
                .limit(Limit::TexelBufferElements(bytes / super::format::texel_bytes(format).unwrap_or(1))),
            ResourceKind::SampledImage { format, filter, .. } => {
                let sampled = Requirements::new().format(format, FormatUse::SampledImage);
                if filter == vk::Filter::LINEAR {
                    sampled.format(format, FormatUse::LinearFilter)
                } else {
                    sampled
                }
            }
            ResourceKind::StorageImage { format, .. } => {
                Requirements::new().format(format, FormatUse::StorageImage)
            }
            ResourceKind::BufferAddress { bytes, .. } => {
                buffer(bytes).feature(Feature::BufferDeviceAddress).limit(Limit::StorageBufferRange(bytes))
            }
            ResourceKind::AddressTable { buffers, bytes } => buffer(bytes)
                .feature(Feature::BufferDeviceAddress)
                .limit(Limit::StorageBufferRange(8 * u64::from(buffers))),
        }
    }
}

/// Where a resource's memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Device-local memory, uploaded through a staging buffer (the default).
    DeviceLocal,
    /// Host-visible memory the shader reads across the bus (or from BAR memory).
    HostVisible,
    /// Memory of one kind, by memory-type flags (the case needs such a type: a requirement).
    Memory(MemoryKind),
}

/// Whether the shader writes a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read only.
    ReadOnly,
    /// Read and written.
    ReadWrite,
}

/// How a read-write resource is put back before each measurement (outside the timestamps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reset {
    /// Every 32-bit word set to this value (`vkCmdFillBuffer`; buffers only).
    Fill(u32),
    /// The initial contents copied back from a pristine device-local copy.
    Initial,
}

/// A resource a case binds. Descriptor-bound resources take bindings 1, 2, ... in order
/// (binding 0 is the results buffer); [`ResourceKind::BufferAddress`] takes none.
#[derive(Clone)]
pub struct Resource {
    /// Kind and size.
    pub kind: ResourceKind,
    /// Device-local or host-visible.
    pub placement: Placement,
    /// Read-only or read-write.
    pub access: Access,
    /// What happens before each measurement.
    pub reset: Option<Reset>,
    /// The initial contents; `None` leaves them zero (or `fill_at` writes them).
    pub fill: Option<Fill>,
    /// The initial contents written given the buffer's device address, in place of `fill`
    /// ([`ResourceKind::BufferAddress`] only).
    pub fill_at: Option<FillAt>,
    /// The name of what `fill` writes, where other cases read the same ([`Resource::contents`]).
    pub contents: Option<String>,
}

impl std::fmt::Debug for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resource")
            .field("kind", &self.kind)
            .field("placement", &self.placement)
            .field("access", &self.access)
            .field("reset", &self.reset)
            .field("filled", &self.fill.is_some())
            .field("filled at its address", &self.fill_at.is_some())
            .field("contents", &self.contents)
            .finish()
    }
}

impl Resource {
    /// A read-only, device-local resource of `kind` filled by `fill`.
    pub fn new(kind: ResourceKind, fill: impl Fn(&mut [u8]) + Send + Sync + 'static) -> Self {
        Self { fill: Some(Arc::new(fill)), ..Self::zeros(kind) }
    }

    /// A read-only, device-local resource of `kind` holding zeros: a buffer is cleared on the
    /// device (`vkCmdFillBuffer`), with no staging copy to allocate and write (a 256 MiB output
    /// took 40 ms that way on the H200).
    pub fn zeros(kind: ResourceKind) -> Self {
        Self {
            kind,
            placement: Placement::DeviceLocal,
            access: Access::ReadOnly,
            reset: None,
            fill: None,
            fill_at: None,
            contents: None,
        }
    }

    /// A read-only storage buffer of zeros ([`Resource::zeros`]).
    pub fn zeroed_storage_buffer(bytes: u64) -> Self {
        Self::zeros(ResourceKind::StorageBuffer { bytes })
    }

    /// A read-only buffer reached through its device address, which goes into the family's push
    /// block at `push_offset`; `fill_at` writes its contents given that address, so they can hold
    /// pointers into the buffer itself.
    pub fn buffer_address(
        bytes: u64,
        push_offset: u32,
        fill_at: impl Fn(&mut [u8], u64) + Send + Sync + 'static,
    ) -> Self {
        Self {
            fill_at: Some(Arc::new(fill_at)),
            ..Self::zeros(ResourceKind::BufferAddress { bytes, push_offset })
        }
    }

    /// A read-only storage buffer.
    pub fn storage_buffer(bytes: u64, fill: impl Fn(&mut [u8]) + Send + Sync + 'static) -> Self {
        Self::new(ResourceKind::StorageBuffer { bytes }, fill)
    }

    /// A buffer a transfer case copies from or into, filled by `fill`.
    pub fn transfer_buffer(bytes: u64, fill: impl Fn(&mut [u8]) + Send + Sync + 'static) -> Self {
        Self::new(ResourceKind::TransferBuffer { bytes }, fill)
    }

    /// A uniform buffer.
    pub fn uniform_buffer(bytes: u64, fill: impl Fn(&mut [u8]) + Send + Sync + 'static) -> Self {
        Self::new(ResourceKind::UniformBuffer { bytes }, fill)
    }

    /// A uniform texel buffer of `format`.
    pub fn texel_buffer(
        format: vk::Format,
        bytes: u64,
        fill: impl Fn(&mut [u8]) + Send + Sync + 'static,
    ) -> Self {
        Self::new(ResourceKind::UniformTexelBuffer { format, bytes }, fill)
    }

    /// A sampled image of `format`, texels row by row, tightly packed.
    pub fn sampled_image(
        format: vk::Format,
        size: [u32; 2],
        filter: vk::Filter,
        fill: impl Fn(&mut [u8]) + Send + Sync + 'static,
    ) -> Self {
        Self::new(ResourceKind::SampledImage { format, size, filter }, fill)
    }

    /// Places the resource in host-visible memory.
    pub fn host_visible(mut self) -> Self {
        self.placement = Placement::HostVisible;
        self
    }

    /// Places the resource in memory of `kind` (a buffer only).
    pub fn in_memory(mut self, kind: MemoryKind) -> Self {
        self.placement = Placement::Memory(kind);
        self
    }

    /// What the resource needs: its kind's requirements, and memory of its kind if it names one;
    /// a device-local one, its bytes there and the staging copy that fills it (images always
    /// take one; buffers without contents are cleared on the device instead).
    pub fn requirements(&self) -> Requirements {
        let needs = self.kind.requirements();
        match self.placement {
            Placement::Memory(kind) => needs.memory(kind, self.kind.bytes()),
            Placement::HostVisible => needs,
            Placement::DeviceLocal => {
                let image = matches!(
                    self.kind,
                    ResourceKind::SampledImage { .. } | ResourceKind::StorageImage { .. }
                );
                let staged = image || self.fill.is_some() || self.fill_at.is_some();
                let bytes = self.kind.content_bytes();
                needs.device_local(bytes, if staged { bytes } else { 0 })
            }
        }
    }

    /// Names what `fill` writes: every read-only resource of the same kind, size and placement
    /// under the same name holds the same bytes, so a run uploads them once and keeps them on the
    /// device for the later cases that read them (`runner::kept`). A test holds each family's
    /// names to its fills.
    pub fn contents(mut self, name: impl Into<String>) -> Self {
        self.contents = Some(name.into());
        self
    }

    /// Makes the resource writable by the shader.
    pub fn read_write(mut self) -> Self {
        self.access = Access::ReadWrite;
        self
    }

    /// Resets the resource before each measurement (and before a verify run).
    pub fn reset(mut self, reset: Reset) -> Self {
        self.reset = Some(reset);
        self
    }

    /// Whether the resource takes a descriptor binding.
    pub fn has_binding(&self) -> bool {
        !matches!(self.kind, ResourceKind::BufferAddress { .. })
    }
}
