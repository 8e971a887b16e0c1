//! The `data` axis: what values a case's operands hold. An energy figure depends on them more
//! than on anything else (results/energy/): a multiply of zeros toggles no bits; one of random
//! words toggles half of them. The cases the energy table reads take the axis; the values other
//! than `default` run only when `--axis FAMILY.data=...` asks for them ([`CaseSpec::on_request`]).
//!
//! [`CaseSpec::on_request`]: super::CaseSpec::on_request

/// The string axis's name.
pub const AXIS: &str = "data";

/// The values a case's operands hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Data {
    /// The family's own values, those every timing run uses (small integers; chains that
    /// converge to 10): the case keeps its name.
    Default,
    /// Every bit zero.
    Zeros,
    /// One value with dense bits in every operand: nothing toggles from one operand to the next.
    Constant,
    /// Independent random words (finite floats): each bit toggles with probability 1/2 from one
    /// operand to the next.
    Random,
}

impl Data {
    /// Every value, the default first.
    pub const ALL: [Data; 4] = [Data::Default, Data::Zeros, Data::Constant, Data::Random];

    /// Its value on the axis (`random`).
    pub fn name(self) -> &'static str {
        match self {
            Data::Default => "default",
            Data::Zeros => "zeros",
            Data::Constant => "constant",
            Data::Random => "random",
        }
    }

    /// The value named `name`, if one is.
    pub fn named(name: &str) -> Option<Data> {
        Data::ALL.into_iter().find(|d| d.name() == name)
    }

    /// What a case's name adds for it (` on random data`; nothing for the default).
    pub fn suffix(self) -> &'static str {
        match self {
            Data::Default => "",
            Data::Zeros => " on zeros",
            Data::Constant => " on a constant",
            Data::Random => " on random data",
        }
    }

    /// `variant` (a case's variant or name) without the suffix of the data it names.
    pub fn base(variant: &str) -> &str {
        Data::ALL
            .iter()
            .filter(|d| !d.suffix().is_empty())
            .find_map(|d| variant.strip_suffix(d.suffix()))
            .unwrap_or(variant)
    }

    /// The shaders' DATA define: 0 to 3 in [`Data::ALL`]'s order.
    pub fn define(self) -> &'static str {
        match self {
            Data::Default => "0",
            Data::Zeros => "1",
            Data::Constant => "2",
            Data::Random => "3",
        }
    }
}

/// The 32-bit mix of the shaders (glsl/mix.glsl, the `lowbias32` hash): every input bit moves
/// about half the output bits.
pub fn mix32(mut v: u32) -> u32 {
    v ^= v >> 16;
    v = v.wrapping_mul(0x7feb_352d);
    v ^= v >> 15;
    v = v.wrapping_mul(0x846c_a68b);
    v ^ (v >> 16)
}

/// Word `k` of random data (`random_word` in glsl/mix.glsl): random bits, except that bit 30 is
/// the inverse of bit 29, so that as a float it is finite and normal (2^-63 to 2^65 in
/// magnitude); each bit, bit 30 too, is 1 with probability 1/2.
pub fn random_word(k: u32) -> u32 {
    let h = mix32(k ^ 0x9E37_79B9);
    (h & !(1 << 30)) | ((!h >> 29 & 1) << 30)
}

/// The word of constant data: a float (-1.6666666) with 20 of its 32 bits set.
pub const CONSTANT_WORD: u32 = 0xBFD5_5555;

/// Word `k` of `data` where a buffer holds 32-bit floats, `default(k)` for the default.
pub fn word(data: Data, k: u32, default: impl Fn(u32) -> f32) -> u32 {
    bits(data, k, |k| default(k).to_bits())
}

/// Word `k` of `data` where a buffer holds words of any type, `default(k)` for the default.
pub fn bits(data: Data, k: u32, default: impl Fn(u32) -> u32) -> u32 {
    match data {
        Data::Default => default(k),
        Data::Zeros => 0,
        Data::Constant => CONSTANT_WORD,
        Data::Random => random_word(k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_words_are_finite_and_toggle_every_bit() {
        let words: Vec<u32> = (0..4096).map(random_word).collect();
        assert!(words.iter().all(|&w| f32::from_bits(w).is_normal()));
        // Between consecutive words each bit changes about half the time.
        for bit in 0..32 {
            let toggles = words.windows(2).filter(|w| (w[0] ^ w[1]) >> bit & 1 == 1).count();
            assert!((1800..2300).contains(&toggles), "bit {bit} toggles {toggles} times in 4095");
        }
        assert!(f32::from_bits(CONSTANT_WORD).is_normal());
        assert_eq!(CONSTANT_WORD.count_ones(), 20);
    }

    #[test]
    fn names_and_suffixes_round_trip() {
        for data in Data::ALL {
            assert_eq!(Data::named(data.name()), Some(data));
            let name = format!("Sweep SSBO vec4 linear{}", data.suffix());
            assert_eq!(Data::base(&name), "Sweep SSBO vec4 linear");
        }
    }
}
