//! One invocation's result as the CPU reference computes it, and how a GPU word is compared with it.

/// One invocation's result as the CPU reference computes it; the GPU's word is read as the same type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A float, compared bit for bit (the reference is built to be exact).
    F32(f32),
    /// A float that may differ in the last bits: the GPU's format conversions (UNORM to float)
    /// may round differently; within [`NEAR`] of the magnitude it matches.
    F32Near(f32),
    /// A float within an absolute bound of the value: an operation the Vulkan specification lets
    /// err by so much ("Precision and Operation of SPIR-V Instructions"), carried through a
    /// chain of them. A NaN never matches.
    F32Within {
        /// The exact value (the CPU's, in f64 rounded once).
        value: f32,
        /// The largest absolute difference allowed.
        bound: f32,
    },
    /// An unsigned integer.
    U32(u32),
    /// A word the reference leaves unchecked: a sampled reference (a large matrix product) checks
    /// some words and counts only those.
    Unchecked,
}

/// The relative tolerance of [`Value::F32Near`].
pub const NEAR: f32 = 1e-5;

impl Value {
    /// Whether the GPU's word `bits` is this value.
    pub fn matches(self, bits: u32) -> bool {
        match self {
            Value::F32(v) => v.to_bits() == bits,
            Value::F32Near(v) => {
                let got = f32::from_bits(bits);
                (got - v).abs() <= NEAR * v.abs().max(1.0)
            }
            Value::F32Within { value, bound } => (f32::from_bits(bits) - value).abs() <= bound,
            Value::U32(v) => v == bits,
            Value::Unchecked => true,
        }
    }

    /// A GPU word read as the same type as `self`, for messages.
    pub fn same_type(self, bits: u32) -> Value {
        match self {
            Value::F32(_) | Value::F32Near(_) | Value::F32Within { .. } => Value::F32(f32::from_bits(bits)),
            Value::U32(_) | Value::Unchecked => Value::U32(bits),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::F32(v) => write!(f, "{v:?}"),
            Value::F32Near(v) => write!(f, "{v:?} (within {NEAR:e})"),
            Value::F32Within { value, bound } => write!(f, "{value:?} (within {bound:e})"),
            Value::U32(v) => write!(f, "{v}"),
            Value::Unchecked => f.write_str("anything (unchecked)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_values_tolerate_rounding_only() {
        let expected = Value::F32Near(1000.0);
        assert!(expected.matches(1000.005f32.to_bits()));
        assert!(!expected.matches(1000.05f32.to_bits()));
        assert!(!Value::F32(1.0).matches(1.0000001f32.to_bits()));
        assert!(Value::U32(7).matches(7));
        assert!(Value::Unchecked.matches(0xDEAD_BEEF));
    }

    #[test]
    fn a_bounded_value_takes_its_bound_and_never_a_nan() {
        let sin = Value::F32Within { value: 0.5, bound: 1e-3 };
        assert!(sin.matches(0.5009f32.to_bits()) && sin.matches(0.4991f32.to_bits()));
        assert!(!sin.matches(0.5011f32.to_bits()));
        assert!(!sin.matches(f32::NAN.to_bits()));
        assert_eq!(sin.to_string(), "0.5 (within 1e-3)");
    }
}
