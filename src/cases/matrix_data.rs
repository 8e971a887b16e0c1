//! The `data` axis of the tensor-core families: the bits of A's and B's elements on zeros, a
//! constant and random data, per component type, and the values a verify run's sums hold on them.
//! The default data are [`super::matrix`]'s exact values.

use super::matrix::{a_value, b_value, encode, C};
use crate::caps::component::BFLOAT16;
use crate::registry::data::{random_word, Data};
use crate::registry::Value;

/// Which factor of the product an element belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    A,
    B,
}

/// Whether a product of `a`s into accumulators of `c` can take data other than the default: 16-
/// or 8-bit inputs into 32-bit accumulators. Random fp16 products (up to 2^18) overflow an fp16
/// accumulator at the first multiply-add, so fp16 accumulators keep the default data.
pub fn takes_data(a: C, c: C) -> bool {
    matches!(a, C::FLOAT16 | BFLOAT16 | C::SINT8 | C::UINT8)
        && matches!(c, C::FLOAT32 | C::SINT32 | C::UINT32)
}

/// The constant's bits: -5/3 rounded in fp16 (0xBEAB, 11 of 16 bits set) and in bfloat16 (the top
/// half of [`crate::registry::data::CONSTANT_WORD`], 11 set), 0xD5 in 8 bits (5 of 8 set).
fn constant_bits(ty: C) -> u32 {
    match ty {
        C::FLOAT16 => 0xBEAB,
        BFLOAT16 => crate::registry::data::CONSTANT_WORD >> 16,
        _ => 0xD5,
    }
}

/// Element `e` of `operand` on `data`, as `ty`'s bits in the low bits of a word. Random 16-bit
/// elements are the top halves of [`random_word`]s, whose bit 14 is the inverse of bit 13: normal
/// numbers (fp16 magnitudes 2^-7 to 2^9) with every bit 1 with probability 1/2; in bfloat16 bit
/// 12 equals bit 13 as well (magnitudes 2^-31 to 2^33); random 8-bit ones its low byte. B's
/// elements are words `e ^ 0x5BD1E995`, A's words `e`.
pub fn element_bits(ty: C, operand: Operand, data: Data, e: u64) -> u32 {
    let bytes = if matches!(ty, C::SINT8 | C::UINT8) { 1 } else { 2 };
    match data {
        Data::Default => {
            let value = match operand {
                Operand::A => a_value(ty, e),
                Operand::B => b_value(ty, e),
            };
            let mut out = [0u8; 4];
            encode(ty, value, &mut out[..bytes]);
            u32::from_le_bytes(out)
        }
        Data::Zeros => 0,
        Data::Constant => constant_bits(ty),
        Data::Random => {
            let k = match operand {
                Operand::A => e as u32,
                Operand::B => e as u32 ^ 0x5BD1_E995,
            };
            let half = random_word(k) >> 16;
            match ty {
                C::SINT8 | C::UINT8 => random_word(k) & 0xFF,
                // bfloat16 has fp32's exponent: its bit 12 follows bit 13 too, so that products
                // (under 2^66) stay finite in the fp32 accumulators.
                BFLOAT16 => (half & !(1 << 12)) | ((half >> 13 & 1) << 12),
                _ => half,
            }
        }
    }
}

/// The value of `ty`'s `bits`.
pub fn decode(ty: C, bits: u32) -> f64 {
    match ty {
        C::FLOAT16 => {
            let (sign, exponent, mantissa) = ((bits >> 15) & 1, ((bits >> 10) & 0x1F) as i32, bits & 0x3FF);
            let magnitude = match exponent {
                0 => f64::from(mantissa) * 2f64.powi(-24),
                _ => (1.0 + f64::from(mantissa) / 1024.0) * 2f64.powi(exponent - 15),
            };
            if sign == 1 {
                -magnitude
            } else {
                magnitude
            }
        }
        BFLOAT16 => f64::from(f32::from_bits(bits << 16)),
        C::SINT8 => f64::from(bits as u8 as i8),
        _ => f64::from(bits & 0xFF),
    }
}

/// Fills a buffer of `ty` elements of `operand` on `data`, element `e` at position `e`.
pub fn fill(ty: C, operand: Operand, data: Data, element_bytes: usize) -> impl Fn(&mut [u8]) + Send + Sync {
    move |bytes| {
        super::data::fill_elements(bytes, element_bytes, |e, chunk| {
            let word = element_bits(ty, operand, data, e as u64).to_le_bytes();
            chunk.copy_from_slice(&word[..element_bytes]);
        })
    }
}

/// The dot product of `k` elements of A and B on `data`, term x of A's element `a_at(x)` and B's
/// `b_at(x)` (each family lays its matrices out its own way): the exact sum and the sum of the
/// terms' magnitudes.
pub fn dot(ty: C, data: Data, k: u64, a_at: impl Fn(u64) -> u64, b_at: impl Fn(u64) -> u64) -> (f64, f64) {
    (0..k).fold((0.0, 0.0), |(sum, magnitude), x| {
        let a = decode(ty, element_bits(ty, Operand::A, data, a_at(x)));
        let b = decode(ty, element_bits(ty, Operand::B, data, b_at(x)));
        (sum + a * b, magnitude + (a * b).abs())
    })
}

/// The rounding a verify run allows a float sum of terms whose magnitudes sum to `magnitude`: 2^-10
/// of it (the tensor cores add in their own order and may truncate; a wrong row, column or stride
/// moves a sum of random terms by about the magnitude itself), or `terms` x 2^-22 of it where the
/// sum has more than 4096 terms.
pub fn rounding(magnitude: f64, terms: u64) -> f64 {
    magnitude * (terms as f64 * 2f64.powi(-22)).max(2f64.powi(-10))
}

/// What a verify run's accumulator element holds on `data` other than the default: `sum` (exact)
/// in accumulators of `c`, the integers wrapped to 32 bits, the floats within `bound`.
pub fn accumulated(c: C, sum: f64, bound: f64) -> Value {
    match c {
        C::FLOAT32 => Value::F32Within { value: sum as f32, bound: bound as f32 },
        _ => Value::U32(sum as i64 as u32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPES: [C; 4] = [C::FLOAT16, BFLOAT16, C::SINT8, C::UINT8];

    #[test]
    fn random_elements_are_normal_and_toggle_every_bit() {
        for ty in TYPES {
            let width = if matches!(ty, C::SINT8 | C::UINT8) { 8 } else { 16 };
            let words: Vec<u32> = (0..4096).map(|e| element_bits(ty, Operand::A, Data::Random, e)).collect();
            assert!(words.iter().all(|&w| w >> width == 0), "{ty:?}: wider than the type");
            for bit in 0..width {
                let toggles = words.windows(2).filter(|w| (w[0] ^ w[1]) >> bit & 1 == 1).count();
                assert!((1800..2300).contains(&toggles), "{ty:?} bit {bit} toggles {toggles} times in 4095");
            }
            if width == 16 {
                // Normal, and products of two finite in fp32 (an fp32 accumulator).
                let (low, high) = if ty == C::FLOAT16 { (-7, 9) } else { (-31, 33) };
                for w in &words {
                    let v = decode(ty, *w).abs();
                    assert!(v >= 2f64.powi(low) && v < 2f64.powi(high), "{ty:?}: {v}");
                }
                assert!(2f64.powi(2 * high) * 16.0 < f64::from(f32::MAX));
            }
            // A and B differ.
            assert_ne!(element_bits(ty, Operand::B, Data::Random, 0), words[0]);
        }
    }

    #[test]
    fn the_constant_is_minus_five_thirds_and_zeros_are_zero() {
        assert_eq!(
            decode(C::FLOAT16, element_bits(C::FLOAT16, Operand::A, Data::Constant, 7)),
            -1.6669921875
        );
        assert_eq!(decode(BFLOAT16, element_bits(BFLOAT16, Operand::B, Data::Constant, 7)), -1.6640625);
        assert_eq!(decode(C::SINT8, element_bits(C::SINT8, Operand::A, Data::Constant, 7)), -43.0);
        assert_eq!(decode(C::UINT8, element_bits(C::UINT8, Operand::A, Data::Constant, 7)), 213.0);
        for ty in TYPES {
            assert_eq!(element_bits(ty, Operand::A, Data::Zeros, 3), 0);
        }
    }

    #[test]
    fn the_default_bits_are_the_exact_values() {
        for ty in TYPES {
            for e in 0..64 {
                assert_eq!(decode(ty, element_bits(ty, Operand::A, Data::Default, e)), a_value(ty, e));
                assert_eq!(decode(ty, element_bits(ty, Operand::B, Data::Default, e)), b_value(ty, e));
            }
        }
    }

    #[test]
    fn a_wrong_layout_on_random_data_is_far_outside_the_bound() {
        // B read transposed: the sum moves by far more than the bound a verify run allows.
        let (n, k) = (16, 16);
        for ty in [C::FLOAT16, BFLOAT16] {
            let (right, magnitude) = dot(ty, Data::Random, k, |x| 2 * k + x, |x| x * n + 5);
            let wrong: f64 = (0..k)
                .map(|x| {
                    let a = decode(ty, element_bits(ty, Operand::A, Data::Random, 2 * k + x));
                    a * decode(ty, element_bits(ty, Operand::B, Data::Random, 5 * k + x))
                })
                .sum();
            let Value::F32Within { value, bound } = accumulated(C::FLOAT32, right, rounding(magnitude, k))
            else {
                panic!()
            };
            assert!(
                (wrong as f32 - value).abs() > 100.0 * bound,
                "{ty:?}: {wrong} vs {value} within {bound}"
            );
        }
        assert_eq!(rounding(1.0, 16), 2f64.powi(-10));
        assert_eq!(rounding(1.0, 8192), 2f64.powi(-9));
        // Integers are exact, wrapped to 32 bits.
        assert_eq!(accumulated(C::SINT32, -5.0, 5.0), Value::U32(-5i32 as u32));
    }
}
