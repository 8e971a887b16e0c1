//! The data cases read, and where they read it: the original's three address patterns, and the
//! values every buffer and texture holds (never zero, exact in fp16), with what a typed load of
//! them returns. The CPU references compute from the same functions the fills use.

use crate::registry::data::Data;
use crate::registry::{FormatInfo, Value};

/// Where each invocation starts reading, as in the original.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pattern {
    /// Every invocation reads the same addresses.
    Uniform,
    /// Invocation t starts at element t: a subgroup reads consecutive addresses.
    Linear,
    /// A hashed start in 0..15.
    Random,
}

impl Pattern {
    pub(super) const ALL: [Pattern; 3] = [Pattern::Uniform, Pattern::Linear, Pattern::Random];

    pub(super) fn name(self) -> &'static str {
        match self {
            Pattern::Uniform => "uniform",
            Pattern::Linear => "linear",
            Pattern::Random => "random",
        }
    }

    /// The PATTERN define.
    pub(super) fn define(self) -> &'static str {
        match self {
            Pattern::Uniform => "0",
            Pattern::Linear => "1",
            Pattern::Random => "2",
        }
    }
}

/// The element the workgroup's invocation `tid` (0..255 at most) starts at.
pub(super) fn start(pattern: Pattern, tid: usize) -> usize {
    match pattern {
        Pattern::Uniform => 0,
        Pattern::Linear => tid,
        Pattern::Random => {
            let h = (tid as u32).wrapping_mul(0x9E37_79B1);
            ((h ^ (h >> 15)) & 15) as usize
        }
    }
}

/// The float at position `k` of every float buffer: k/16 steps in [1/16, 4], exact in fp16.
pub(super) fn float_value(k: usize) -> f32 {
    (1 + (k * 5) % 64) as f32 / 16.0
}

/// The byte at position `k` of every 8-bit buffer: never zero.
pub(super) fn unorm8(k: usize) -> u8 {
    (1 + (k * 7) % 255) as u8
}

/// The word at position `k` of the raw buffer.
pub(super) fn raw_word(k: usize) -> u32 {
    (k as u32).wrapping_mul(0x9E37_79B1) ^ 0x5BD1_E995
}

/// The fp16 bits of `v`, which must be a normal fp16 value with at most 11 significant bits.
pub(super) fn half_bits(v: f32) -> u16 {
    let bits = v.to_bits();
    let exponent = ((bits >> 23) & 0xFF) as i32 - 127 + 15;
    (((bits >> 16) & 0x8000) | ((exponent as u32) << 10) | ((bits >> 13) & 0x3FF)) as u16
}

/// What a verify run of loads summed on `data` writes, `loaded` in the order the loads run: on the
/// default data (small integers) the exact sum, in any order; on other data the sum within the
/// rounding of that many additions, which the GPU does in its own order.
pub(super) fn loads_sum(data: Data, loaded: &[f32]) -> Value {
    match data {
        Data::Default => Value::F32(loaded.iter().sum()),
        _ => {
            let exact: f64 = loaded.iter().copied().map(f64::from).sum();
            let magnitude: f64 = loaded.iter().map(|&v| f64::from(v).abs()).sum();
            Value::F32Within { value: exact as f32, bound: (magnitude * 2f64.powi(-14)) as f32 }
        }
    }
}

/// Fills a buffer or image of format `f` with element k's value at position k.
pub(super) fn fill_typed(f: &FormatInfo, bytes: &mut [u8]) {
    let size = f.channel_bytes as usize;
    fill_elements(bytes, size, |k, chunk| match size {
        1 => chunk[0] = unorm8(k),
        2 => chunk.copy_from_slice(&half_bits(float_value(k)).to_ne_bytes()),
        _ => chunk.copy_from_slice(&float_value(k).to_ne_bytes()),
    });
}

/// Writes each `size`-byte element of `bytes` with `write(index, element)`, on all cores, in
/// blocks of about 1 MiB: a 2 GiB input is the work of one core for seconds, and its element's
/// value depends only on its index. Bytes after the last whole element are zeroed (a fill writes
/// every byte: `vk::buffer::Contents`).
pub(super) fn fill_elements(bytes: &mut [u8], size: usize, write: impl Fn(usize, &mut [u8]) + Sync) {
    use rayon::prelude::*;
    let block = ((1 << 20) / size).max(1) * size;
    bytes.par_chunks_mut(block).enumerate().for_each(|(b, chunk)| {
        let first = b * (block / size);
        let mut elements = chunk.chunks_exact_mut(size);
        for (i, element) in elements.by_ref().enumerate() {
            write(first + i, element);
        }
        elements.into_remainder().fill(0);
    });
}

/// What texelFetch returns for element `e`: missing green and blue read 0, missing alpha 1.
pub(super) fn typed_texel(f: &FormatInfo, e: usize) -> [f32; 4] {
    let (channels, size) = (f.channels as usize, f.channel_bytes);
    let mut texel = [0.0, 0.0, 0.0, 1.0];
    for (c, value) in texel.iter_mut().enumerate().take(channels) {
        let k = e * channels + c;
        *value = if size == 1 { f32::from(unorm8(k)) / 255.0 } else { float_value(k) };
    }
    texel
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk;

    #[test]
    fn elements_filled_on_all_cores_are_those_of_one_loop() {
        // Three blocks and a bit, elements of 3 bytes (a block is not a multiple of them), and a
        // tail shorter than an element, which is zeroed.
        let mut parallel = vec![0xEEu8; 3 * (1 << 20) + 3 * 1000 + 2];
        fill_elements(&mut parallel, 3, |e, element| element.copy_from_slice(&(e as u32).to_le_bytes()[..3]));
        let mut serial = vec![0xEEu8; parallel.len()];
        for (e, element) in serial.chunks_exact_mut(3).enumerate() {
            element.copy_from_slice(&(e as u32).to_le_bytes()[..3]);
        }
        assert!(parallel[..parallel.len() - 2] == serial[..serial.len() - 2]);
        assert_eq!(parallel[parallel.len() - 2..], [0, 0]);
    }

    #[test]
    fn half_bits_encodes_the_data_exactly() {
        assert_eq!(half_bits(1.0), 0x3C00);
        assert_eq!(half_bits(0.0625), 0x2C00);
        assert_eq!(half_bits(4.0), 0x4400);
        assert_eq!(half_bits(1.5625), 0x3E40);
        for k in 0..4096 {
            assert!(float_value(k) > 0.0 && unorm8(k) > 0, "the data is never zero");
        }
    }

    #[test]
    fn typed_texels_fill_missing_channels_like_texel_fetch() {
        let info = |format| crate::registry::format_info(format).unwrap();
        assert_eq!(typed_texel(info(vk::Format::R32_SFLOAT), 0), [float_value(0), 0.0, 0.0, 1.0]);
        let rgba8 = typed_texel(info(vk::Format::R8G8B8A8_UNORM), 1);
        assert_eq!(rgba8[3], f32::from(unorm8(7)) / 255.0);
    }
}
