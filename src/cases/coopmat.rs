//! Cooperative matrices (tensor cores): multiply-add throughput for each shape the device advertises.
//!
//! `CoopMat f16*f16+f32 16x16x16 subgroup` runs result = A * B + C on M x K and K x N matrices
//! held in registers, independent accumulators per subgroup (glsl/coopmat.glsl), like the ALU
//! family's FMA chains. Cases come from `vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR` (the
//! subgroup-scope shapes whose component types GLSL can name: f16, bf16, f32, s8, u8, s32, u32),
//! plus four common shapes listed everywhere, which devices without them skip with the reason.
//! Where VK_NV_cooperative_matrix2 offers workgroup scope, each of its flexible-dimension
//! families gets two workgroup-scope cases (64x64 and 128x128, rounded to its granularity).
//! Data are small multiples of 1/4 (or small integers), so every sum is exact: verify runs do 2
//! multiply-adds per accumulator and compare every element of the stored sums.

use ash::vk;

use super::matrix::{self, a_value, b_value, component, encode, C};
use super::matrix_data::{self, Operand};
use crate::caps::component::BFLOAT16;
use crate::caps::{Ceiling, CoopMatFlexible, CoopMatShape, Requirements};
use crate::registry::data::Data;
use crate::registry::{self, CaseSpec, Env, Family, Glsl, Push, Reset, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "coopmat.glsl", source: include_str!("../../glsl/coopmat.glsl") };

/// Multiply-adds per accumulator in timing runs (verify runs do 2).
const ITERATIONS: u32 = 256;
const VERIFY_ITERATIONS: u32 = 2;
/// Invocations per workgroup of the subgroup-scope cases.
const GROUP: u32 = 128;
/// Output slots (one M x N sum each): enough for a verify run's subgroups at subgroup size 8.
const SLOTS: u32 = 32;
/// Accumulator registers (32-bit) per invocation the chains may fill: 8 chains of a 16x16 fp32
/// accumulator in a subgroup of 32.
const ACCUMULATOR_REGISTERS: u64 = 64;
/// The most independent accumulators per subgroup or workgroup.
const MAX_CHAINS: u64 = 8;

/// One case's matrices: the shape (its actual M, N, K and scope), the invocations that share it
/// and how many independent accumulators each subgroup or workgroup runs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Plan {
    shape: CoopMatShape,
    /// Invocations per workgroup.
    invocations: u32,
    /// Independent accumulators per scope instance.
    chains: u64,
    /// The flexible-dimension family the shape comes from (workgroup scope).
    flexible: Option<CoopMatFlexible>,
}

impl Plan {
    /// Accumulators that fill [`ACCUMULATOR_REGISTERS`] per invocation among `sharing`
    /// invocations, between 1 and [`MAX_CHAINS`].
    fn chains(shape: &CoopMatShape, sharing: u64) -> u64 {
        let bytes = component(shape.c).map_or(4, |c| c.2);
        let per_chain = u64::from(shape.m) * u64::from(shape.n) * bytes;
        (ACCUMULATOR_REGISTERS * 4 * sharing / per_chain.max(1)).clamp(1, MAX_CHAINS)
    }

    fn subgroup(shape: CoopMatShape, subgroup: u64) -> Plan {
        Plan { shape, invocations: GROUP, chains: Plan::chains(&shape, subgroup), flexible: None }
    }

    /// The workgroup-scope plans of a flexible family: 64x64 and 128x128 (rounded up to the
    /// granularity), with K the natural step of the input type (16 for 16-bit, 32 for 8-bit).
    fn flexible(family: CoopMatFlexible) -> Vec<Plan> {
        let g = family.granularity;
        let round = |value: u32, step: u32| value.div_ceil(step.max(1)) * step.max(1);
        let natural_k = match component(g.a) {
            Some((_, _, 1)) => 32,
            _ => 16,
        };
        let mut plans: Vec<Plan> = [64, 128]
            .into_iter()
            .map(|size| {
                let shape =
                    CoopMatShape { m: round(size, g.m), n: round(size, g.n), k: round(natural_k, g.k), ..g };
                let chains = Plan::chains(&shape, u64::from(family.invocations));
                Plan { shape, invocations: family.invocations, chains, flexible: Some(family) }
            })
            .collect();
        plans.dedup();
        plans
    }

    fn workgroup(&self) -> bool {
        self.shape.scope == vk::ScopeKHR::WORKGROUP
    }
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

/// The verify run's sum at (i, j): `chains` accumulators, accumulator c starting at c, of 2
/// multiply-adds each.
fn expected(shape: &CoopMatShape, chains: u64, i: u64, j: u64) -> f64 {
    let (k, n) = (u64::from(shape.k), u64::from(shape.n));
    let dot: f64 = (0..k).map(|x| a_value(shape.a, i * k + x) * b_value(shape.b, x * n + j)).sum();
    dot * (chains * u64::from(VERIFY_ITERATIONS)) as f64 + (chains * (chains - 1) / 2) as f64
}

/// Output word `w` of a verify run: each of the `written` slots holds the same M x N sum, the
/// other slots stay 0.
fn reference(plan: Plan, written: u64, w: u32) -> Value {
    let shape = plan.shape;
    let (_, _, bytes) = component(shape.c).unwrap_or(("", "", 4));
    let (m, n) = (u64::from(shape.m), u64::from(shape.n));
    let mut word = [0u8; 4];
    for (at, chunk) in word.chunks_exact_mut(bytes as usize).enumerate() {
        let element = u64::from(w) * 4 / bytes + at as u64;
        let e = element % (m * n);
        if element / (m * n) < written {
            encode(shape.c, expected(&shape, plan.chains, e / n, e % n), chunk);
        }
    }
    Value::U32(u32::from_ne_bytes(word))
}

/// Output word `w` of a verify run on `data` other than the default (32-bit accumulators, one
/// element a word): the exact sum, the integers wrapped, the floats within their rounding.
fn data_reference(plan: Plan, data: Data, written: u64, w: u32) -> Value {
    let shape = plan.shape;
    let (m, n, k) = (u64::from(shape.m), u64::from(shape.n), u64::from(shape.k));
    if u64::from(w) / (m * n) >= written {
        return Value::U32(0);
    }
    let e = u64::from(w) % (m * n);
    let (i, j) = (e / n, e % n);
    let (dot, magnitude) = matrix_data::dot(shape.a, data, k, |x| i * k + x, |x| x * n + j);
    let steps = (plan.chains * u64::from(VERIFY_ITERATIONS)) as f64;
    let starts = (plan.chains * (plan.chains - 1) / 2) as f64;
    let bound = matrix_data::rounding(magnitude * steps + starts, k);
    matrix_data::accumulated(shape.c, dot * steps + starts, bound)
}

fn name(plan: &Plan) -> Option<String> {
    let shape = &plan.shape;
    let (_, a, _) = component(shape.a)?;
    let (_, b, _) = component(shape.b)?;
    let (_, c, _) = component(shape.c)?;
    let result =
        if shape.result == shape.c { String::new() } else { format!("->{}", component(shape.result)?.1) };
    let sat = if shape.saturating { " saturating" } else { "" };
    let scope = if plan.workgroup() {
        format!("workgroup ({} invocations)", plan.invocations)
    } else {
        "subgroup".to_owned()
    };
    Some(format!("CoopMat {a}*{b}+{c}{result} {}x{}x{} {scope}{sat}", shape.m, shape.n, shape.k))
}

/// What a plan needs beyond its shape: the cooperative-matrix features, the memory model, and
/// the features of its component types.
fn requirements(plan: &Plan) -> Requirements {
    let shape = plan.shape;
    let scope = match plan.flexible {
        Some(family) => matrix::Scope::Workgroup {
            family,
            dimension: shape.m.max(shape.n).max(shape.k),
            invocations: plan.invocations,
        },
        // The workgroup must be a multiple of the subgroup size, which case() checks.
        None => matrix::Scope::Subgroup(shape),
    };
    matrix::requirements(scope, shape.a, shape.c)
}

/// The case for `plan` on `data`, if perftest has a shader for it (subgroup scope or a flexible
/// workgroup-scope family, types GLSL names, A and B of one type, result type = C, no saturation)
/// and the data fits its accumulators ([`matrix_data::takes_data`]).
fn case(plan: Plan, subgroup: u64, data: Data) -> Option<CaseSpec> {
    let shape = plan.shape;
    let scoped = match plan.flexible {
        Some(_) => plan.workgroup(),
        None => shape.scope == vk::ScopeKHR::SUBGROUP,
    };
    let plain = scoped && shape.result == shape.c && !shape.saturating;
    let (at, _, a_bytes) = component(shape.a)?;
    let (bt, _, b_bytes) = component(shape.b)?;
    let (ct, _, c_bytes) = component(shape.c)?;
    // Full subgroups: the workgroup must be a multiple of the subgroup size.
    let whole = plan.workgroup() || u64::from(plan.invocations) % subgroup == 0;
    let fits = data == Data::Default || matrix_data::takes_data(shape.a, shape.c);
    if !plain || !whole || shape.a != shape.b || !fits {
        return None;
    }
    let (m, n, k) = (u64::from(shape.m), u64::from(shape.n), u64::from(shape.k));
    let a = Resource::storage_buffer(
        (m * k * a_bytes).max(4),
        matrix_data::fill(shape.a, Operand::A, data, a_bytes as usize),
    );
    let b = Resource::storage_buffer(
        (k * n * b_bytes).max(4),
        matrix_data::fill(shape.b, Operand::B, data, b_bytes as usize),
    );
    let sums = Resource::zeroed_storage_buffer(u64::from(SLOTS) * m * n * c_bytes)
        .read_write()
        .reset(Reset::Fill(0));
    let (unit, ceiling) = match shape.a {
        C::FLOAT16 => (Unit::Flop, Some(Ceiling::TensorFp16)),
        BFLOAT16 => (Unit::Flop, Some(Ceiling::TensorBf16)),
        C::SINT8 | C::UINT8 => (Unit::IntOp, Some(Ceiling::TensorInt8)),
        // No sourced tensor peak for other input types.
        C::FLOAT32 => (Unit::Flop, None),
        _ => (Unit::IntOp, None),
    };
    let invocations = u64::from(plan.invocations);
    // Scope instances in a verify run (two workgroups), each with its own slot; and the
    // invocations that share one scope instance's multiply-adds.
    let (written, sharing) = if plan.workgroup() {
        (2, invocations)
    } else {
        ((2 * invocations / subgroup).min(u64::from(SLOTS)), subgroup)
    };
    let per_invocation = (2 * m * n * k * plan.chains * u64::from(ITERATIONS)) as f64 / sharing as f64;
    let work = Work::new(per_invocation, unit);
    let (ms, ns, ks, chains) = (m.to_string(), n.to_string(), k.to_string(), plan.chains.to_string());
    let scope = if plan.workgroup() { "gl_ScopeWorkgroup" } else { "gl_ScopeSubgroup" };
    let case = CaseSpec::new(name(&plan)?, GLSL, [plan.invocations, 1, 1])
        .group("coopmat")
        .defines([("AT", at), ("BT", bt), ("CT", ct), ("SCOPE", scope)])
        .defines([("M", ms.as_str()), ("N", ns.as_str()), ("K", ks.as_str()), ("CHAINS", chains.as_str())])
        .defines(plan.workgroup().then_some(("WORKGROUP_SCOPE", "1")))
        .defines((shape.a == BFLOAT16).then_some(("BFLOAT16", "1")))
        .resource(a)
        .resource(b)
        .resource(sums)
        .push(Push::per_mode(&[ITERATIONS, SLOTS], &[VERIFY_ITERATIONS, SLOTS]))
        .requires(requirements(&plan))
        .work([ceiling.map_or(work, |c| work.bounded_by(c))])
        .checks(2)
        .reference(move |w| match data {
            Data::Default => reference(plan, written, w),
            _ => data_reference(plan, data, written, w),
        });
    Some(if matrix_data::takes_data(shape.a, shape.c) { case.data(data) } else { case })
}

/// Every plan for the device (or the common shapes, without one), whose subgroups hold
/// `subgroup` invocations.
fn plans(env: &Env, subgroup: u64) -> Vec<Plan> {
    let mut shapes = common();
    for shape in env.device.map(|d| d.cooperative_matrix.clone()).unwrap_or_default() {
        if !shapes.contains(&shape) {
            shapes.push(shape);
        }
    }
    let mut plans: Vec<Plan> = shapes.into_iter().map(|s| Plan::subgroup(s, subgroup)).collect();
    for family in env.device.map(|d| d.cooperative_matrix_flexible.clone()).unwrap_or_default() {
        if family.granularity.scope == vk::ScopeKHR::WORKGROUP {
            plans.extend(Plan::flexible(family));
        }
    }
    plans
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let subgroup = env.device.map_or(32, |d| u64::from(d.subgroup_size.max(1)));
    // Each case on each data its accumulators take; the other data run only when asked for.
    plans(env, subgroup)
        .into_iter()
        .flat_map(|p| Data::ALL.into_iter().filter_map(move |data| case(p, subgroup, data)))
        .collect()
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "cooperative-matrix (tensor core) multiply-add throughput for each subgroup-scope shape the \
                       device advertises (VK_KHR_cooperative_matrix), with f16, bf16, f32, 8-bit and 32-bit \
                       integer components, and workgroup-scope shapes where VK_NV_cooperative_matrix2 offers them",
            invocation: "its share of a subgroup's (or workgroup's) independent accumulators (8 for 16x16 fp32; as \
                         many as fill 64 registers per invocation, 1 to 8), each through 256 multiply-adds of \
                         A (M x K) and B (K x N) held in registers; the sums are stored",
            rate: "FLOP (or integer operations) per second, 2 per multiply-add of M x N x K",
        },
        name: "coopmat",
        order: 910,
        axes: &[],
        ratio_note: None,
        levels: false,
        device_cases: true,
        quick: &["CoopMat f16*f16+f32 16x16x16 subgroup", "CoopMat s8*s8+s32 16x16x32 subgroup"],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caps::Feature;

    fn subgroup_plan(shape: CoopMatShape) -> Plan {
        Plan::subgroup(shape, 32)
    }

    /// A workgroup-scope family like the ones VK_NV_cooperative_matrix2 lists.
    fn family(a: C, c: C, granularity: u32, invocations: u32) -> CoopMatFlexible {
        let (m, n, k) = (granularity, granularity, granularity);
        let scope = vk::ScopeKHR::WORKGROUP;
        let g = CoopMatShape { m, n, k, a, b: a, c, result: c, saturating: false, scope };
        CoopMatFlexible { granularity: g, invocations }
    }

    #[test]
    fn common_shapes_are_named_as_the_issue_names_them() {
        let names: Vec<String> = common().into_iter().map(subgroup_plan).filter_map(|p| name(&p)).collect();
        assert_eq!(
            names,
            [
                "CoopMat f16*f16+f16 16x16x16 subgroup",
                "CoopMat f16*f16+f32 16x16x16 subgroup",
                "CoopMat s8*s8+s32 16x16x32 subgroup",
                "CoopMat u8*u8+u32 16x16x32 subgroup"
            ]
        );
        let bf16 = CoopMatShape { a: BFLOAT16, b: BFLOAT16, ..common()[1] };
        assert_eq!(name(&subgroup_plan(bf16)).unwrap(), "CoopMat bf16*bf16+f32 16x16x16 subgroup");
    }

    #[test]
    fn chains_fill_the_same_registers_at_every_size() {
        // 8 accumulators of 16x16 fp32 in a subgroup of 32, as before; fewer for larger matrices.
        assert_eq!(subgroup_plan(common()[1]).chains, 8);
        assert_eq!(subgroup_plan(common()[0]).chains, 8);
        let plans = Plan::flexible(family(C::FLOAT16, C::FLOAT32, 16, 256));
        let sizes: Vec<(u32, u32, u32, u64)> =
            plans.iter().map(|p| (p.shape.m, p.shape.n, p.shape.k, p.chains)).collect();
        assert_eq!(sizes, [(64, 64, 16, 4), (128, 128, 16, 1)]);
        // A coarse granularity rounds the sizes up; 8-bit inputs step K by 32.
        let plans = Plan::flexible(family(C::SINT8, C::SINT32, 48, 128));
        assert_eq!((plans[0].shape.m, plans[0].shape.k), (96, 48));
    }

    #[test]
    fn the_reference_is_the_matrix_product() {
        let plan = subgroup_plan(common()[1]);
        // Element (0, 0): 8 chains x 2 steps of sum over x of a(x) * b(16 x), plus the chains'
        // starting values 0 + 1 + ... + 7.
        let dot: f64 = (0..16).map(|x| a_value(C::FLOAT16, x) * b_value(C::FLOAT16, x * 16)).sum();
        assert_eq!(reference(plan, 8, 0), Value::U32(((dot * 16.0 + 28.0) as f32).to_bits()));
        // Every written slot holds the same sum; the others stay 0.
        assert_eq!(reference(plan, 8, 7 * 256), reference(plan, 8, 0));
        assert_eq!(reference(plan, 8, 8 * 256), Value::U32(0));
        // f16 sums pack two per word: elements (0, 0) and (0, 1).
        let half = subgroup_plan(common()[0]);
        let mut bytes = [0u8; 4];
        encode(C::FLOAT16, expected(&half.shape, 8, 0, 0), &mut bytes[..2]);
        encode(C::FLOAT16, expected(&half.shape, 8, 0, 1), &mut bytes[2..]);
        assert_eq!(reference(half, 8, 0), Value::U32(u32::from_ne_bytes(bytes)));
    }

    /// The verify sum at (i, j) with A read at `a_at(i, x)` and B at `b_at(x, j)`.
    fn product(
        shape: &CoopMatShape,
        a_at: impl Fn(u64, u64) -> u64,
        b_at: impl Fn(u64, u64) -> u64,
    ) -> Vec<f64> {
        let (m, n, k) = (u64::from(shape.m), u64::from(shape.n), u64::from(shape.k));
        (0..m * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                (0..k).map(|x| a_value(shape.a, a_at(i, x)) * b_value(shape.b, b_at(x, j))).sum()
            })
            .collect()
    }

    #[test]
    fn the_data_tells_wrong_layouts_from_the_right_one() {
        // The sums a shader computes with a wrong stride, transposition, K order or tile must
        // differ from the reference's somewhere, or --verify could not catch that bug.
        let wide = Plan::flexible(family(C::FLOAT16, C::FLOAT32, 16, 256))[0].shape;
        let deep = common()[2];
        for shape in [common()[1], deep, wide] {
            let (m, n, k) = (u64::from(shape.m), u64::from(shape.n), u64::from(shape.k));
            let right = product(&shape, |i, x| i * k + x, |x, j| x * n + j);
            let reference: Vec<f64> = (0..m * n).map(|e| expected(&shape, 1, e / n, e % n)).collect();
            // expected() with one chain is 2 x the product.
            assert!(right.iter().zip(&reference).all(|(r, e)| 2.0 * r == *e));
            let wrongs = [
                ("K reversed", product(&shape, |i, x| i * k + (k - 1 - x), |x, j| x * n + j)),
                ("A transposed", product(&shape, |i, x| x * m + i, |x, j| x * n + j)),
                ("B transposed", product(&shape, |i, x| i * k + x, |x, j| j * k + x)),
                ("B stride N + 4", product(&shape, |i, x| i * k + x, |x, j| x * (n + 4) + j)),
                ("the first 16 columns repeated", product(&shape, |i, x| i * k + x, |x, j| x * n + j % 16)),
                ("the first 16 rows repeated", product(&shape, |i, x| (i % 16) * k + x, |x, j| x * n + j)),
            ];
            for (what, wrong) in wrongs {
                let repeats = what.contains("repeated") && n == 16 && m == 16;
                assert!(
                    repeats || wrong != right,
                    "{}: {what} gives the same sums",
                    name(&Plan::subgroup(shape, 32)).unwrap()
                );
            }
        }
    }

    #[test]
    fn cases_with_32_bit_accumulators_take_the_data_axis_on_request() {
        let cases: Vec<CaseSpec> = common()
            .into_iter()
            .flat_map(|s| Data::ALL.into_iter().filter_map(move |d| case(subgroup_plan(s), 32, d)))
            .collect();
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        // fp16 accumulators on the default data only; the three others on each data.
        assert_eq!(names.len(), 1 + 3 * 4, "{names:?}");
        assert!(names.contains(&"CoopMat f16*f16+f32 16x16x16 subgroup on random data"));
        assert!(!names.iter().any(|n| n.starts_with("CoopMat f16*f16+f16") && n.contains(" on ")));
        for c in &cases {
            let default = c.label_of(registry::data::AXIS).is_none_or(|d| d == "default");
            assert_eq!(c.on_request.is_some(), !default, "{}", c.name);
        }
        // On zeros every written element holds the chains' starts (0 + 1 + ... + 7); the rest 0.
        let plan = subgroup_plan(common()[1]);
        let Value::F32Within { value, .. } = data_reference(plan, Data::Zeros, 8, 5) else { panic!() };
        assert_eq!(value, 28.0);
        assert_eq!(data_reference(plan, Data::Random, 8, 8 * 256), Value::U32(0));
        // 8-bit inputs into 32-bit integers: exact, wrapped.
        let ints = subgroup_plan(common()[2]);
        let (dot, _) = matrix_data::dot(C::SINT8, Data::Constant, 32, |x| x, |x| x * 16);
        assert_eq!(dot, 32.0 * 43.0 * 43.0);
        assert_eq!(data_reference(ints, Data::Constant, 8, 0), Value::U32((dot as u32) * 16 + 28));
    }

    #[test]
    fn bfloat16_inputs_are_the_top_halves_of_their_fp32_bits() {
        let mut bytes = [0u8; 2];
        encode(BFLOAT16, -0.25, &mut bytes);
        assert_eq!(u16::from_ne_bytes(bytes), 0xBE80);
        encode(BFLOAT16, 0.5, &mut bytes);
        assert_eq!(u16::from_ne_bytes(bytes), 0x3F00);
    }

    #[test]
    fn sums_stay_exact_in_fp16() {
        // fp16 results: multiples of 1/16 below 128 have at most 11 significant bits.
        let mut plans = vec![subgroup_plan(common()[0])];
        for invocations in [128, 256] {
            plans.extend(Plan::flexible(family(C::FLOAT16, C::FLOAT16, 16, invocations)));
        }
        for plan in plans {
            let (m, n) = (u64::from(plan.shape.m), u64::from(plan.shape.n));
            let values: Vec<f64> =
                (0..m * n).map(|e| expected(&plan.shape, plan.chains, e / n, e % n)).collect();
            for v in &values {
                assert!(v.abs() < 128.0 && (v * 16.0).fract() == 0.0, "{}: {v}", name(&plan).unwrap());
            }
            assert!(values.iter().any(|v| *v != values[0]), "not constant");
            // Every partial sum on the way (products are multiples of 1/16) stays below 128 too:
            // the chains' starts, two steps of the largest sum of |a * b|, summed over the chains.
            let (k, shape) = (u64::from(plan.shape.k), plan.shape);
            let largest = (0..m * n)
                .map(|e| {
                    (0..k)
                        .map(|x| (a_value(shape.a, e / n * k + x) * b_value(shape.b, x * n + e % n)).abs())
                        .sum::<f64>()
                })
                .fold(0.0, f64::max);
            let chains = plan.chains as f64;
            assert!(
                chains * ((chains - 1.0) + 2.0 * largest) < 128.0,
                "{}: partial sums",
                name(&plan).unwrap()
            );
        }
    }

    #[test]
    fn the_shaders_declare_only_capabilities_the_cases_require() {
        // Every OpCapability maps to a requirement (src/shader/capabilities.rs), including the
        // bf16 and workgroup-scope shaders that only devices with the extensions list.
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        let bf16 = CoopMatShape { a: BFLOAT16, b: BFLOAT16, ..common()[1] };
        let mut plans: Vec<Plan> = common().into_iter().chain([bf16]).map(subgroup_plan).collect();
        for (a, c) in [
            (C::FLOAT16, C::FLOAT16),
            (C::FLOAT16, C::FLOAT32),
            (BFLOAT16, C::FLOAT32),
            (C::SINT8, C::SINT32),
        ] {
            plans.extend(Plan::flexible(family(a, c, 16, 256)));
        }
        for plan in plans {
            let case = case(plan, 32, Data::Default).unwrap();
            let spirv = compiler.compile(&case).unwrap_or_else(|e| panic!("{}: {e}", case.name));
            let uncovered = crate::shader::capabilities::uncovered(&spirv, &case.requirements());
            assert!(uncovered.is_empty(), "{}: {uncovered:?}", case.name);
            // The capabilities that make it a cooperative-matrix shader are there.
            let capabilities: Vec<u32> = crate::shader::spirv::instructions(&spirv)
                .filter(|i| i.opcode == 17)
                .filter_map(|i| i.operands.first().copied())
                .collect();
            assert!(capabilities.contains(&6022), "{}: {capabilities:?}", case.name);
            assert_eq!(capabilities.contains(&5118), plan.shape.a == BFLOAT16, "{}", case.name);
            let features = case.requirements().features;
            assert_eq!(features.contains(&Feature::CooperativeMatrixWorkgroupScope), plan.workgroup());
        }
    }

    #[test]
    fn shapes_without_a_shader_make_no_case() {
        // Workgroup scope only through a flexible family (it says the workgroup size).
        let mut odd = common()[0];
        odd.scope = vk::ScopeKHR::WORKGROUP;
        assert!(case(subgroup_plan(odd), 32, Data::Default).is_none());
        odd = common()[0];
        odd.a = C::FLOAT64;
        assert!(case(subgroup_plan(odd), 32, Data::Default).is_none());
        // A subgroup-scope flexible family makes no workgroup case.
        let mut sub = family(C::FLOAT16, C::FLOAT32, 16, 32);
        sub.granularity.scope = vk::ScopeKHR::SUBGROUP;
        assert!(Plan::flexible(sub).into_iter().all(|p| case(p, 32, Data::Default).is_none()));
    }
}
