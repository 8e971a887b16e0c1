//! The texel formats cases use, in one table: channels and bytes, the GLSL qualifier of a storage
//! declaration, whether that declaration needs `StorageImageExtendedFormats`, and the original
//! perftest's labels. Every format fact is read from here; a format outside the table is a case
//! description [`CaseSpec::validate`](super::CaseSpec::validate) refuses.

use ash::vk;

use crate::caps::{Feature, Requirements};

/// What perftest knows of one format.
#[derive(Debug, PartialEq, Eq)]
pub struct FormatInfo {
    /// The format.
    pub format: vk::Format,
    /// Channels per texel.
    pub channels: u32,
    /// Bytes per channel.
    pub channel_bytes: u32,
    /// The GLSL format qualifier of a storage image or texel buffer (`rg16f`).
    pub qualifier: &'static str,
    /// Whether a storage declaration needs `shaderStorageImageExtendedFormats`.
    pub extended: bool,
    /// The original's label in `Buffer<...>` names (`R16f`); empty for formats it did not have.
    pub buffer_label: &'static str,
    /// The original's label in `Texture2D<...>` names (`R16F`).
    pub texture_label: &'static str,
}

macro_rules! formats {
    ($( $format:ident: $channels:literal x $bytes:literal, $qualifier:literal,
        $extended:ident, $buffer:literal, $texture:literal; )*) => {
        /// Every format a case uses, the original's nine first, in its order.
        pub const FORMATS: &[FormatInfo] = &[$(
            FormatInfo {
                format: vk::Format::$format,
                channels: $channels,
                channel_bytes: $bytes,
                qualifier: $qualifier,
                extended: formats!(@extended $extended),
                buffer_label: $buffer,
                texture_label: $texture,
            },
        )*];
    };
    (@extended extended) => { true };
    (@extended core) => { false };
}

formats! {
    R8_UNORM: 1 x 1, "r8", extended, "R8", "R8";
    R8G8_UNORM: 2 x 1, "rg8", extended, "RG8", "RG8";
    R8G8B8A8_UNORM: 4 x 1, "rgba8", core, "RGBA8", "RGBA8";
    R16_SFLOAT: 1 x 2, "r16f", extended, "R16f", "R16F";
    R16G16_SFLOAT: 2 x 2, "rg16f", extended, "RG16f", "RG16F";
    R16G16B16A16_SFLOAT: 4 x 2, "rgba16f", core, "RGBA16f", "RGBA16F";
    R32_SFLOAT: 1 x 4, "r32f", core, "R32f", "R32F";
    R32G32_SFLOAT: 2 x 4, "rg32f", extended, "RG32f", "RG32F";
    R32G32B32A32_SFLOAT: 4 x 4, "rgba32f", core, "RGBA32f", "RGBA32F";
    R32_UINT: 1 x 4, "r32ui", core, "", "";
    R32G32_UINT: 2 x 4, "rg32ui", extended, "", "";
}

impl FormatInfo {
    /// Bytes per texel.
    pub fn texel_bytes(&self) -> u32 {
        self.channels * self.channel_bytes
    }

    /// What declaring a storage image or texel buffer of this format needs.
    pub fn storage_needs(&self) -> Requirements {
        match self.extended {
            true => Requirements::new().feature(Feature::StorageImageExtendedFormats),
            false => Requirements::new(),
        }
    }
}

/// The table's row of `format`, if it has one.
pub fn format_info(format: vk::Format) -> Option<&'static FormatInfo> {
    FORMATS.iter().find(|f| f.format == format)
}

/// The original perftest's nine formats, in its order.
pub fn originals() -> impl Iterator<Item = &'static FormatInfo> {
    FORMATS.iter().filter(|f| !f.buffer_label.is_empty())
}

/// Bytes per texel of a format in the table; `None` for others.
pub fn texel_bytes(format: vk::Format) -> Option<u64> {
    format_info(format).map(|f| u64::from(f.texel_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_has_one_row_and_the_originals_are_nine() {
        for (i, f) in FORMATS.iter().enumerate() {
            assert!(FORMATS[..i].iter().all(|g| g.format != f.format), "{:?} twice", f.format);
        }
        let labels: Vec<&str> = originals().map(|f| f.buffer_label).collect();
        assert_eq!(labels, ["R8", "RG8", "RGBA8", "R16f", "RG16f", "RGBA16f", "R32f", "RG32f", "RGBA32f"]);
        assert_eq!(texel_bytes(vk::Format::R16G16_SFLOAT), Some(4));
        assert_eq!(texel_bytes(vk::Format::B8G8R8A8_UNORM), None);
        assert!(format_info(vk::Format::R8_UNORM).unwrap().storage_needs() != Requirements::new());
        assert_eq!(format_info(vk::Format::R32_SFLOAT).unwrap().storage_needs(), Requirements::new());
    }
}
