//! The corruption screen's cooperative matrices (tensor cores): chains of multiply-adds whose
//! every sum is exact, checked element by element against scalar arithmetic
//! (glsl/sdc_coopmat.glsl).
//!
//! A and B hold small exact values ([`crate::cases::matrix`]: quarters for f16, small integers
//! for s8), so every product and sum fits its accumulator without rounding. Each chain runs pairs
//! of multiply-adds with B and -B, which return the accumulator to its start, then one more with
//! B: it ends at its start plus A B, bit for bit on any GPU; the CPU computes A B (exact in f64)
//! into a buffer, and the shader compares every element with it. Each workgroup takes one of [`VARIANTS`] inputs, so a fault
//! that depends on the data shows in some. A device without cooperative matrices of a shape skips
//! its case and says which.

use ash::vk;

use super::{not_understood, Flip, GROUP_UNITS};
use crate::caps::{Ceiling, CoopMatShape, Feature};
use crate::cases::matrix::{self, a_value, b_value, component, encode, C};
use crate::record::faults::{LOG_BYTES, RECORDS};
use crate::registry::{CaseSpec, Glsl, Push, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "sdc_coopmat.glsl", source: include_str!("../../../glsl/sdc_coopmat.glsl") };

/// Invocations per workgroup (a multiple of every subgroup size that has these matrices).
const GROUP: u32 = 128;
/// Pairs of multiply-adds per chain in a timed dispatch, and in a verify run.
const ITERATIONS: u32 = 512;
const VERIFY_ITERATIONS: u32 = 1;
/// Accumulators per subgroup.
const CHAINS: u32 = 4;
/// Inputs the workgroups take in turn.
const VARIANTS: u32 = 16;

/// The shapes screened: the common 16 x 16 ones whose B can be negated.
fn shapes() -> [CoopMatShape; 3] {
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
    [shape(C::FLOAT16, C::FLOAT32, 16), shape(C::FLOAT16, C::FLOAT16, 16), shape(C::SINT8, C::SINT32, 32)]
}

/// Element `e` of variant `v`'s A (row-major), and of its B.
fn a_of(shape: &CoopMatShape, v: u32, e: u64) -> f64 {
    a_value(shape.a, u64::from(v) * u64::from(shape.m * shape.k) + e)
}
fn b_of(shape: &CoopMatShape, v: u32, e: u64) -> f64 {
    b_value(shape.a, u64::from(v) * u64::from(shape.k * shape.n) + e)
}

/// Element `e` of chain `k`'s end in variant `v`: k + (A B)[e], exact.
fn end(shape: &CoopMatShape, v: u32, k: u32, e: u64) -> f64 {
    let (kk, n) = (u64::from(shape.k), u64::from(shape.n));
    let (row, column) = (e / n, e % n);
    f64::from(k) + (0..kk).map(|x| a_of(shape, v, row * kk + x) * b_of(shape, v, x * n + column)).sum::<f64>()
}

/// What invocation `gid` writes in a verify run: element `gid mod M N` of its chains' ends,
/// summed (exact: at most 22, in sixteenths, for f16).
fn reference(shape: CoopMatShape, gid: u32) -> Value {
    let (group, t) = (gid / GROUP, gid % GROUP);
    let e = u64::from(t) % u64::from(shape.m * shape.n);
    let (_, _, bytes) = component(shape.c).unwrap_or(("", "", 4));
    let mut word = [0u8; 4];
    let sum = (0..CHAINS).map(|k| end(&shape, group % VARIANTS, k, e)).sum();
    encode(shape.c, sum, &mut word[..bytes as usize]);
    Value::U32(u32::from_ne_bytes(word))
}

/// The shader's name for an accumulator of `c` (glsl/sdc_coopmat.glsl: its bits and flips).
fn accumulator(c: C) -> &'static str {
    match c {
        C::FLOAT16 => "ACC_F16",
        C::FLOAT32 => "ACC_F32",
        _ => "ACC_S32",
    }
}

/// The cooperative-matrix chains of `shape` on a device of subgroups of `subgroup`; `sm_id` where
/// the device names each unit; `inject`: the test-only injector's flip (`matrix=U,bit=B`).
pub(super) fn case(
    shape: CoopMatShape,
    subgroup: u32,
    sm_id: bool,
    inject: Option<&Result<Flip, String>>,
    checked: bool,
) -> Option<CaseSpec> {
    let (at, a_name, a_bytes) = component(shape.a)?;
    let (ct, c_name, c_bytes) = component(shape.c)?;
    let (m, n, k) = (u64::from(shape.m), u64::from(shape.n), u64::from(shape.k));
    let a = Resource::storage_buffer(u64::from(VARIANTS) * m * k * a_bytes, move |bytes| {
        for (e, chunk) in bytes.chunks_exact_mut(a_bytes as usize).enumerate() {
            let (v, e) = ((e as u64 / (m * k)) as u32, e as u64 % (m * k));
            encode(shape.a, a_of(&shape, v, e), chunk);
        }
    });
    // Each variant's B, then its negation.
    let b = Resource::storage_buffer(u64::from(VARIANTS) * 2 * k * n * a_bytes, move |bytes| {
        for (e, chunk) in bytes.chunks_exact_mut(a_bytes as usize).enumerate() {
            let (v, e) = ((e as u64 / (2 * k * n)) as u32, e as u64 % (2 * k * n));
            let sign = if e < k * n { 1.0 } else { -1.0 };
            encode(shape.a, sign * b_of(&shape, v, e % (k * n)), chunk);
        }
    });
    // Each variant's A B, exact.
    let products = Resource::storage_buffer(u64::from(VARIANTS) * m * n * c_bytes, move |bytes| {
        for (e, chunk) in bytes.chunks_exact_mut(c_bytes as usize).enumerate() {
            let (v, e) = ((e as u64 / (m * n)) as u32, e as u64 % (m * n));
            encode(shape.c, end(&shape, v, 0, e), chunk);
        }
    });
    let mut requires = matrix::requirements(matrix::Scope::Subgroup(shape), shape.a, shape.c);
    if sm_id {
        requires = requires.feature(Feature::ShaderSmBuiltins);
    }
    let defines = [
        (accumulator(shape.c), "1".to_owned()),
        ("AT", at.to_owned()),
        ("CT", ct.to_owned()),
        ("M", m.to_string()),
        ("N", n.to_string()),
        ("K", k.to_string()),
        ("CHAINS", format!("{CHAINS}u")),
        ("VARIANTS", format!("{VARIANTS}u")),
        ("SUBGROUPS", (GROUP / subgroup.max(1)).to_string()),
        ("RECORDS", RECORDS.to_string()),
    ];
    // Two multiply-adds a pair, of 2 M N K operations each, shared by a subgroup's invocations.
    let per_invocation =
        (2 * ITERATIONS + 1) as f64 * f64::from(CHAINS) * (2 * m * n * k) as f64 / f64::from(subgroup.max(1));
    let (unit, ceiling) = match shape.a {
        C::FLOAT16 => (Unit::Flop, Ceiling::TensorFp16),
        _ => (Unit::IntOp, Ceiling::TensorInt8),
    };
    let name = format!("SDC CoopMat {a_name}*{a_name}+{c_name} {m}x{n}x{k} chains, exact sums");
    let case = CaseSpec::new(name, GLSL, [GROUP, 1, 1])
        .defines(defines.iter().map(|(key, value)| (*key, value.as_str())))
        .defines(sm_id.then_some(("SM_ID", "1")))
        .defines((!checked).then_some(("UNCHECKED", "1")))
        .resource(Resource::zeroed_storage_buffer(LOG_BYTES).read_write())
        .resource(a)
        .resource(b)
        .resource(products)
        .push(Push::per_mode(&[ITERATIONS, 0, 0, 0], &[VERIFY_ITERATIONS, 0, 0, 0]))
        .work([Work::new(per_invocation, unit).bounded_by(ceiling)])
        .requires(requires)
        // Every element of every chain's end, shared by a subgroup's invocations.
        .logs_faults(0, (u64::from(CHAINS) * m * n).div_ceil(u64::from(subgroup.max(1))))
        .reference(move |gid| reference(shape, gid));
    let case = if checked { case } else { case.note("checking compiled out (PERFTEST_SDC_CHECK=off)") };
    Some(match inject {
        None => case,
        Some(Err(why)) => not_understood(case, why),
        Some(Ok(Flip { unit, bit })) => {
            let bit = (*bit).min(u32::try_from(8 * component(shape.c)?.2).ok()? - 1);
            let target = if sm_id {
                format!("unit {unit}")
            } else {
                format!(
                    "the workgroups whose index modulo {GROUP_UNITS} is {unit} (no unit ids on this device)"
                )
            };
            let (unit, bit_text) = (format!("{unit}u"), bit.to_string());
            case.defines([("INJECT", "1"), ("INJECT_UNIT", unit.as_str()), ("INJECT_BIT", bit_text.as_str())])
                .injected(format!("bit {bit} of the first chain's first element flipped on {target}"))
        }
    })
}

/// The screened shapes, each a case (a device without one skips it, saying why).
pub(super) fn cases<'a>(
    subgroup: u32,
    sm_id: bool,
    inject: Option<&'a Result<Flip, String>>,
    checked: bool,
) -> impl Iterator<Item = CaseSpec> + 'a {
    shapes().into_iter().filter_map(move |shape| case(shape, subgroup, sm_id, inject, checked))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sum_is_exact_in_its_accumulator_and_the_variants_differ() {
        for shape in shapes() {
            let mn = u64::from(shape.m * shape.n);
            for v in 0..VARIANTS {
                for e in 0..mn {
                    let x = end(&shape, v, CHAINS - 1, e);
                    // A half holds every multiple of 1/16 below 128; fp32 and int32 far more.
                    assert!((x * 16.0).fract() == 0.0 && x.abs() < 128.0, "{shape:?} {v} {e}: {x}");
                }
            }
            let differ = (0..mn).filter(|&e| end(&shape, 0, 0, e) != end(&shape, 1, 0, e)).count();
            assert!(differ as u64 > mn / 2, "{shape:?}: variants 0 and 1 differ in {differ} of {mn}");
        }
        // The f16 ends 0 + 1 + 2 + 3 + 4 (A B)[e] as a half's bits, in the low half of the word.
        let shape = shapes()[1];
        let Value::U32(word) = reference(shape, GROUP - 1) else { panic!() };
        let e = u64::from(GROUP - 1);
        let sum = 6.0 + 4.0 * (end(&shape, 0, 0, e));
        assert_eq!(word, u32::from(crate::cases::data::half_bits(sum as f32)));
    }

    #[test]
    fn the_cases_need_cooperative_matrices_and_say_what_is_injected() {
        let cases: Vec<CaseSpec> = cases(32, true, Some(&Ok(Flip { unit: 5, bit: 30 })), true).collect();
        assert_eq!(cases.len(), 3);
        for case in &cases {
            case.validate().unwrap();
            assert!(case.requirements().features.contains(&Feature::CooperativeMatrix), "{}", case.name);
            assert!(case.defines.iter().any(|(k, v)| k == "SUBGROUPS" && v == "4"));
        }
        // A half's bit 30 does not exist: the injector flips its top bit.
        assert!(
            cases[1].injected.as_deref().is_some_and(|i| i.starts_with("bit 15 ")),
            "{:?}",
            cases[1].injected
        );
        assert_eq!(cases[0].name, "SDC CoopMat f16*f16+f32 16x16x16 chains, exact sums");
    }
}
