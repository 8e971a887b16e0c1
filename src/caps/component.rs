//! Cooperative-matrix component types as plain values: bfloat16, newer than ash 0.38's headers,
//! and each type's name as the headers spell it.

use ash::vk;

/// `VK_COMPONENT_TYPE_BFLOAT16_KHR`.
pub const BFLOAT16: vk::ComponentTypeKHR = vk::ComponentTypeKHR::from_raw(1_000_141_000);

/// A component type's name as the headers spell it (`FLOAT16`, `BFLOAT16`).
pub fn component_name(ty: vk::ComponentTypeKHR) -> String {
    if ty == BFLOAT16 {
        "BFLOAT16".to_owned()
    } else {
        format!("{ty:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfloat16_is_named() {
        assert_eq!(component_name(BFLOAT16), "BFLOAT16");
        assert_eq!(component_name(vk::ComponentTypeKHR::FLOAT16), "FLOAT16");
    }
}
