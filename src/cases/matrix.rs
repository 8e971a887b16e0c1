//! Exact matrix data for the tensor-core families (coopmat, gemm): the component types GLSL can
//! name, the elements of A and B (small multiples of 1/4 or small integers, so every sum the GPU
//! forms is exact in its accumulator), their encodings, and what each type needs of the device.

use ash::vk;

use super::data::half_bits;
use crate::caps::component::BFLOAT16;
use crate::caps::{CoopMatFlexible, CoopMatShape, Feature, Limit, Requirements};

/// A cooperative-matrix component type.
pub type C = vk::ComponentTypeKHR;

/// The GLSL type, the short name and the byte size of a component type, if GLSL has one here.
pub fn component(ty: C) -> Option<(&'static str, &'static str, u64)> {
    Some(match ty {
        C::FLOAT16 => ("float16_t", "f16", 2),
        BFLOAT16 => ("bfloat16_t", "bf16", 2),
        C::FLOAT32 => ("float", "f32", 4),
        C::SINT8 => ("int8_t", "s8", 1),
        C::UINT8 => ("uint8_t", "u8", 1),
        C::SINT32 => ("int32_t", "s32", 4),
        C::UINT32 => ("uint32_t", "u32", 4),
        _ => return None,
    })
}

/// Element `e` of A or B: small exact values from a hash of `e` and `salt` (f16, bf16: multiples
/// of 1/4; A in -0.5..0.5, B in -0.25..0.5), so that a product over the wrong rows, columns,
/// stride or tile differs from the right one (a unit test checks each).
fn element(ty: C, e: u64, salt: u32, period: u64, offset: i64) -> f64 {
    let h = u64::from(((e as u32) ^ salt).wrapping_mul(0x9E37_79B1) >> 24) % period;
    let k = h as i64 + offset;
    match ty {
        C::FLOAT16 | BFLOAT16 => k as f64 / 4.0,
        C::UINT8 => h as f64,
        _ => k as f64,
    }
}

/// Element `e` of A (row-major, or as the family lays it out).
pub fn a_value(ty: C, e: u64) -> f64 {
    element(ty, e, 0, 5, -2)
}

/// Element `e` of B.
pub fn b_value(ty: C, e: u64) -> f64 {
    element(ty, e, 0x5BD1_E995, 4, -1)
}

/// `value` as `ty`'s bytes.
pub fn encode(ty: C, value: f64, out: &mut [u8]) {
    match ty {
        C::FLOAT16 if value == 0.0 => out.fill(0),
        C::FLOAT16 => out.copy_from_slice(&half_bits(value as f32).to_ne_bytes()),
        // The values are exact in bfloat16: the top half of their fp32 bits.
        BFLOAT16 => out.copy_from_slice(&(((value as f32).to_bits() >> 16) as u16).to_ne_bytes()),
        C::FLOAT32 => out.copy_from_slice(&(value as f32).to_ne_bytes()),
        C::SINT8 | C::UINT8 => out[0] = value as i64 as u8,
        _ => out.copy_from_slice(&(value as i64 as u32).to_ne_bytes()),
    }
}

/// Where a shader's cooperative matrices live.
pub enum Scope {
    /// Subgroup scope (VK_KHR_cooperative_matrix), of this shape.
    Subgroup(CoopMatShape),
    /// Workgroup scope (VK_NV_cooperative_matrix2): a flexible-dimension family, the largest
    /// dimension used and the workgroup's invocations.
    Workgroup { family: CoopMatFlexible, dimension: u32, invocations: u32 },
}

/// What a cooperative-matrix shader at `scope` with inputs of `a` and accumulators of `c` needs
/// of the device.
pub fn requirements(scope: Scope, a: C, c: C) -> Requirements {
    // glslang declares the Vulkan memory model in these shaders (a test checks); enabled, it
    // needs device scope too, which the other families' atomics and barriers use.
    let needs = Requirements::new()
        .feature(Feature::CooperativeMatrix)
        .feature(Feature::VulkanMemoryModel)
        .feature(Feature::VulkanMemoryModelDeviceScope);
    let needs = match scope {
        Scope::Workgroup { family, dimension, invocations } => needs
            .vulkan_1_3()
            .feature(Feature::CooperativeMatrixWorkgroupScope)
            .feature(Feature::CooperativeMatrixFlexibleDimensions)
            .cooperative_matrix_flexible(family)
            .limit(Limit::CooperativeMatrixDimension(dimension))
            .limit(Limit::CooperativeMatrixWorkgroupInvocations(invocations)),
        // Subgroup-scope matrices in SPIR-V 1.5 need full subgroups (the pipeline requires them;
        // the workgroup must be a multiple of the subgroup size).
        Scope::Subgroup(shape) => needs
            .cooperative_matrix(shape)
            .subgroup(vk::SubgroupFeatureFlags::BASIC)
            .feature(Feature::ComputeFullSubgroups),
    };
    [a, c].into_iter().fold(needs, type_requirements)
}

/// `needs` with what a matrix of `ty` needs of the device: its arithmetic and storage features.
fn type_requirements(needs: Requirements, ty: C) -> Requirements {
    match ty {
        C::FLOAT16 => needs.feature(Feature::ShaderFloat16).feature(Feature::StorageBuffer16BitAccess),
        // glslang declares Float16 in bfloat16 shaders too (a test checks every capability).
        BFLOAT16 => needs
            .feature(Feature::ShaderFloat16)
            .feature(Feature::ShaderBfloat16Type)
            .feature(Feature::ShaderBfloat16CooperativeMatrix)
            .feature(Feature::StorageBuffer16BitAccess),
        C::SINT8 | C::UINT8 => needs.feature(Feature::ShaderInt8).feature(Feature::StorageBuffer8BitAccess),
        _ => needs,
    }
}
