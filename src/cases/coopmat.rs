//! Cooperative matrices (tensor cores): multiply-add throughput for each shape the device advertises.
//!
//! `CoopMat f16*f16+f32 16x16x16 subgroup` runs result = A * B + C on M x K and K x N matrices
//! held in registers, 8 independent accumulators per subgroup (glsl/coopmat.glsl), like the ALU
//! family's FMA chains. Cases come from `vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR` (the
//! subgroup-scope shapes whose component types GLSL can name: f16, f32, s8, u8, s32, u32), plus
//! four common shapes listed everywhere, which devices without them skip with the reason. Data
//! are small multiples of 1/4 (or small integers), so every sum is exact: verify runs do 2
//! multiply-adds per accumulator and compare every element of the stored sums.

use ash::vk;

use super::load::half_bits;
use crate::caps::{Ceiling, CoopMatShape, Feature, Requirements};
use crate::registry::{self, CaseSpec, Env, Family, Glsl, Push, Reset, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "coopmat.glsl", source: include_str!("../../glsl/coopmat.glsl") };

/// Independent accumulators per subgroup (CHAINS in the GLSL).
const CHAINS: u64 = 8;
/// Multiply-adds per accumulator in timing runs (verify runs do 2).
const ITERATIONS: u32 = 256;
const VERIFY_ITERATIONS: u32 = 2;
/// Invocations per workgroup.
const GROUP: u32 = 128;
/// Output slots (one M x N sum each): enough for a verify run's subgroups at subgroup size 8.
const SLOTS: u32 = 32;

type C = vk::ComponentTypeKHR;

/// The GLSL type, the short name and the byte size of a component type, if GLSL has one here.
fn component(ty: C) -> Option<(&'static str, &'static str, u64)> {
    Some(match ty {
        C::FLOAT16 => ("float16_t", "f16", 2),
        C::FLOAT32 => ("float", "f32", 4),
        C::SINT8 => ("int8_t", "s8", 1),
        C::UINT8 => ("uint8_t", "u8", 1),
        C::SINT32 => ("int32_t", "s32", 4),
        C::UINT32 => ("uint32_t", "u32", 4),
        _ => return None,
    })
}

/// Shapes listed on every device (as `--list` shows them).
fn common() -> Vec<CoopMatShape> {
    let shape = |a, c, k| CoopMatShape {
        m: 16,
        n: 16,
        k,
        a,
        b: a,
        c,
        result: c,
        saturating: false,
        scope: vk::ScopeKHR::SUBGROUP,
    };
    vec![
        shape(C::FLOAT16, C::FLOAT16, 16),
        shape(C::FLOAT16, C::FLOAT32, 16),
        shape(C::SINT8, C::SINT32, 32),
        shape(C::UINT8, C::UINT32, 32),
    ]
}

/// Element `e` of A or B: small exact values (f16: multiples of 1/4; A in -0.5..0.5, B in -0.25..0.5).
fn element(ty: C, e: u64, period: u64, offset: i64) -> f64 {
    let k = (e % period) as i64 + offset;
    match ty {
        C::FLOAT16 => k as f64 / 4.0,
        C::UINT8 => (e % period) as f64,
        _ => k as f64,
    }
}

fn a_value(ty: C, e: u64) -> f64 {
    element(ty, e, 5, -2)
}

fn b_value(ty: C, e: u64) -> f64 {
    element(ty, e, 4, -1)
}

/// `value` as `ty`'s bytes.
fn encode(ty: C, value: f64, out: &mut [u8]) {
    match ty {
        C::FLOAT16 if value == 0.0 => out.fill(0),
        C::FLOAT16 => out.copy_from_slice(&half_bits(value as f32).to_ne_bytes()),
        C::FLOAT32 => out.copy_from_slice(&(value as f32).to_ne_bytes()),
        C::SINT8 | C::UINT8 => out[0] = value as i64 as u8,
        _ => out.copy_from_slice(&(value as i64 as u32).to_ne_bytes()),
    }
}

/// The verify run's sum at (i, j): CHAINS accumulators, accumulator c starting at c, of 2
/// multiply-adds each.
fn expected(shape: &CoopMatShape, i: u64, j: u64) -> f64 {
    let (k, n) = (u64::from(shape.k), u64::from(shape.n));
    let dot: f64 = (0..k).map(|x| a_value(shape.a, i * k + x) * b_value(shape.b, x * n + j)).sum();
    dot * (CHAINS * u64::from(VERIFY_ITERATIONS)) as f64 + (CHAINS * (CHAINS - 1) / 2) as f64
}

/// Output word `w` of a verify run: each of its `subgroups` slots holds the same M x N sum, the
/// other slots stay 0.
fn reference(shape: CoopMatShape, subgroups: u64, w: u32) -> Value {
    let (_, _, bytes) = component(shape.c).unwrap_or(("", "", 4));
    let (m, n) = (u64::from(shape.m), u64::from(shape.n));
    let mut word = [0u8; 4];
    for (at, chunk) in word.chunks_exact_mut(bytes as usize).enumerate() {
        let element = u64::from(w) * 4 / bytes + at as u64;
        let e = element % (m * n);
        if element / (m * n) < subgroups {
            encode(shape.c, expected(&shape, e / n, e % n), chunk);
        }
    }
    Value::U32(u32::from_ne_bytes(word))
}

fn name(shape: &CoopMatShape) -> Option<String> {
    let (_, a, _) = component(shape.a)?;
    let (_, b, _) = component(shape.b)?;
    let (_, c, _) = component(shape.c)?;
    let result =
        if shape.result == shape.c { String::new() } else { format!("->{}", component(shape.result)?.1) };
    let sat = if shape.saturating { " saturating" } else { "" };
    Some(format!("CoopMat {a}*{b}+{c}{result} {}x{}x{} subgroup{sat}", shape.m, shape.n, shape.k))
}

/// The case for `shape`, if perftest has a shader for it (subgroup scope, types GLSL names,
/// result type = C, no saturation).
fn case(shape: CoopMatShape, subgroup: u64) -> Option<CaseSpec> {
    let plain = shape.scope == vk::ScopeKHR::SUBGROUP && shape.result == shape.c && !shape.saturating;
    let (at, _, a_bytes) = component(shape.a)?;
    let (bt, _, b_bytes) = component(shape.b)?;
    let (ct, _, c_bytes) = component(shape.c)?;
    if !plain || shape.a != shape.b {
        return None;
    }
    let (m, n, k) = (u64::from(shape.m), u64::from(shape.n), u64::from(shape.k));
    // glslang declares the Vulkan memory model in these shaders (a test checks); enabled, it
    // needs device scope too, which the other families' atomics and barriers use.
    let mut needs = Requirements::new()
        .feature(Feature::CooperativeMatrix)
        .feature(Feature::VulkanMemoryModel)
        .feature(Feature::VulkanMemoryModelDeviceScope)
        .cooperative_matrix(shape)
        .subgroup(vk::SubgroupFeatureFlags::BASIC);
    for ty in [shape.a, shape.c] {
        needs = match ty {
            C::FLOAT16 => needs.feature(Feature::ShaderFloat16).feature(Feature::StorageBuffer16BitAccess),
            C::SINT8 | C::UINT8 => {
                needs.feature(Feature::ShaderInt8).feature(Feature::StorageBuffer8BitAccess)
            }
            _ => needs,
        };
    }
    let (a_ty, b_ty) = (shape.a, shape.b);
    let a = Resource::storage_buffer((m * k * a_bytes).max(4), move |bytes| {
        for (e, chunk) in bytes.chunks_exact_mut(a_bytes as usize).enumerate() {
            encode(a_ty, a_value(a_ty, e as u64), chunk);
        }
    });
    let b = Resource::storage_buffer((k * n * b_bytes).max(4), move |bytes| {
        for (e, chunk) in bytes.chunks_exact_mut(b_bytes as usize).enumerate() {
            encode(b_ty, b_value(b_ty, e as u64), chunk);
        }
    });
    let sums = Resource::storage_buffer(u64::from(SLOTS) * m * n * c_bytes, |b| b.fill(0))
        .read_write()
        .reset(Reset::Fill(0));
    let (unit, ceiling) = match shape.a {
        C::FLOAT16 => (Unit::Flop, Some(Ceiling::TensorFp16)),
        C::SINT8 | C::UINT8 => (Unit::IntOp, Some(Ceiling::TensorInt8)),
        // No sourced tensor peak for other input types.
        C::FLOAT32 => (Unit::Flop, None),
        _ => (Unit::IntOp, None),
    };
    // Subgroups in a verify run (two workgroups), each with its own slot.
    let verified_subgroups = (2 * u64::from(GROUP) / subgroup).min(u64::from(SLOTS));
    // A subgroup's multiply-adds, shared among its invocations.
    let per_invocation = (2 * m * n * k * CHAINS * u64::from(ITERATIONS)) as f64 / subgroup as f64;
    let work = Work::new(per_invocation, unit);
    let (ms, ns, ks, chains) = (m.to_string(), n.to_string(), k.to_string(), CHAINS.to_string());
    let case = CaseSpec::new(name(&shape)?, GLSL, [GROUP, 1, 1])
        .group("coopmat")
        .defines([("AT", at), ("BT", bt), ("CT", ct)])
        .defines([("M", ms.as_str()), ("N", ns.as_str()), ("K", ks.as_str()), ("CHAINS", chains.as_str())])
        .resource(a)
        .resource(b)
        .resource(sums)
        .push(Push::per_mode(&[ITERATIONS, SLOTS], &[VERIFY_ITERATIONS, SLOTS]))
        .requires(needs)
        .work([ceiling.map_or(work, |c| work.bounded_by(c))])
        .checks(2)
        .reference(move |w| reference(shape, verified_subgroups, w));
    Some(case)
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let subgroup = env.device.map_or(32, |d| u64::from(d.subgroup_size.max(1)));
    let mut shapes = common();
    for shape in env.device.map(|d| d.cooperative_matrix.clone()).unwrap_or_default() {
        if !shapes.contains(&shape) {
            shapes.push(shape);
        }
    }
    shapes.into_iter().filter_map(|s| case(s, subgroup)).collect()
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "cooperative-matrix (tensor core) multiply-add throughput for each subgroup-scope shape the \
                       device advertises (VK_KHR_cooperative_matrix), with f16, f32, 8-bit and 32-bit integer \
                       components",
            invocation: "its share of a subgroup's 8 independent accumulators, each through 256 multiply-adds of \
                         A (M x K) and B (K x N) held in registers; the sums are stored",
            rate: "FLOP (or integer operations) per second, 2 per multiply-add of M x N x K",
        },
        name: "coopmat",
        order: 910,
        axes: &[],
        ratio_note: None,
        levels: false,
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_shapes_are_named_as_the_issue_names_them() {
        let names: Vec<String> = common().iter().filter_map(name).collect();
        assert_eq!(
            names,
            [
                "CoopMat f16*f16+f16 16x16x16 subgroup",
                "CoopMat f16*f16+f32 16x16x16 subgroup",
                "CoopMat s8*s8+s32 16x16x32 subgroup",
                "CoopMat u8*u8+u32 16x16x32 subgroup"
            ]
        );
    }

    #[test]
    fn the_reference_is_the_matrix_product() {
        let shape = common()[1];
        // Element (0, 0): 8 chains x 2 steps of sum over x of a(x) * b(16 x), plus the chains'
        // starting values 0 + 1 + ... + 7.
        let dot: f64 = (0..16).map(|x| a_value(C::FLOAT16, x) * b_value(C::FLOAT16, x * 16)).sum();
        assert_eq!(reference(shape, 8, 0), Value::U32(((dot * 16.0 + 28.0) as f32).to_bits()));
        // Every written slot holds the same sum; the others stay 0.
        assert_eq!(reference(shape, 8, 7 * 256), reference(shape, 8, 0));
        assert_eq!(reference(shape, 8, 8 * 256), Value::U32(0));
        // f16 sums pack two per word: elements (0, 0) and (0, 1).
        let half = common()[0];
        let mut bytes = [0u8; 4];
        encode(C::FLOAT16, expected(&half, 0, 0), &mut bytes[..2]);
        encode(C::FLOAT16, expected(&half, 0, 1), &mut bytes[2..]);
        assert_eq!(reference(half, 8, 0), Value::U32(u32::from_ne_bytes(bytes)));
    }

    #[test]
    fn sums_stay_exact_in_fp16() {
        // Multiples of 1/16 below 128 have at most 11 significant bits.
        let half = common()[0];
        for e in 0..256 {
            let v = expected(&half, e / 16, e % 16);
            assert!(v.abs() < 128.0 && (v * 16.0).fract() == 0.0, "{v}");
        }
        assert!((0..256).any(|e| expected(&half, e / 16, e % 16) != expected(&half, 0, 0)), "not constant");
    }

    #[test]
    fn the_shaders_declare_the_vulkan_memory_model_the_case_requires() {
        // OpCapability (17) VulkanMemoryModel (5345) needs the vulkanMemoryModel feature.
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        for shape in common() {
            let spirv = compiler.compile(&case(shape, 32).unwrap()).unwrap();
            let capabilities: Vec<u32> = crate::shader::spirv::instructions(&spirv)
                .filter(|i| i.opcode == 17)
                .filter_map(|i| i.operands.first().copied())
                .collect();
            assert!(capabilities.contains(&6022), "CooperativeMatrixKHR: {capabilities:?}");
            assert!(capabilities.contains(&5345), "VulkanMemoryModel: {capabilities:?}");
            assert!(case(shape, 32).unwrap().requirements().features.contains(&Feature::VulkanMemoryModel));
        }
    }

    #[test]
    fn shapes_without_a_shader_make_no_case() {
        let mut odd = common()[0];
        odd.scope = vk::ScopeKHR::WORKGROUP;
        assert!(case(odd, 32).is_none());
        odd = common()[0];
        odd.a = C::FLOAT64;
        assert!(case(odd, 32).is_none());
    }
}
