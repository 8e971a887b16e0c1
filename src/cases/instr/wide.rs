//! The instruction table's fp16 (float16_t and f16vec2), fp64 and int64 operations, where the
//! device has the type: the fp32 chains' forms on the other types.

use super::ops::{
    float_op, int_op, odd, one_to_two, scrambled, small_integers, unit_interval, Consts, Float, Needs, Op,
    Step, FT, HALF_ULP1, ULP1,
};

const fn f(fa: f32, fb: f32) -> Consts {
    Consts { fa, fb, ua: 0, ub: 0 }
}

fn add(x: f64, c: &Consts) -> f64 {
    x + f64::from(c.fb)
}
fn fma(x: f64, c: &Consts) -> f64 {
    x * f64::from(c.fa) + f64::from(c.fb)
}
fn exp2(x: f64, _: &Consts) -> f64 {
    (-x.abs()).exp2()
}
fn inversesqrt(x: f64, _: &Consts) -> f64 {
    1.0 / x.abs().sqrt()
}

/// fp16 on one type: add and fma exact (integers under 2048), exp2 within 1 + 2|x| ULP (the
/// Vulkan specification's 16-bit bound; |x| <= 1 and results under 1: 3 ULPs of [1, 2)),
/// inversesqrt within 1 ULP (the path stays in [0.7, 1.2]). exp2 takes one step: 17 steps' sum
/// of bounds would be 5% of the value.
fn half(float: Float, names: [&'static str; 4]) -> [Op; 4] {
    let ops = [
        float_op(names[0], "OP_F16_ADD", small_integers, FT, f(1.0, 1.0), 1, 0.0, add),
        float_op(names[1], "OP_F16_FMA", small_integers, FT, f(1.0, 1.0), 1, 0.0, fma),
        float_op(names[2], "OP_F16_EXP2", unit_interval, FT, f(0.0, 0.0), 0, 3.0 * HALF_ULP1, exp2),
        float_op(names[3], "OP_F16_INVERSESQRT", one_to_two, FT, f(0.0, 0.0), 1, HALF_ULP1, inversesqrt),
    ];
    let per_step = if float == Float::F16x2 { 2 } else { 1 };
    ops.map(|op| op.on(float).needing(Needs::Float16).counting(per_step))
}

pub(super) fn ops() -> Vec<Op> {
    let mut ops: Vec<Op> = half(Float::F16, ["fp16 add", "fp16 fma", "fp16 exp2", "fp16 inversesqrt"]).into();
    ops.extend(half(Float::F16x2, ["f16vec2 add", "f16vec2 fma", "f16vec2 exp2", "f16vec2 inversesqrt"]));
    // fp64: add and fma exact; a/b and sqrt within fp32's bounds (the specification asks double
    // instructions for at least single precision), written rounded to float.
    let double = [
        float_op("fp64 add", "OP_F64_ADD", small_integers, FT, f(1.0, 1.0), 1, 0.0, add),
        float_op("fp64 fma", "OP_F64_FMA", small_integers, FT, f(1.0, 1.0), 1, 0.0, fma),
        float_op("fp64 a/b", "OP_F64_DIV", one_to_two, f(1.0, 0.0), f(2.0, 0.0), 1, 10.0 * ULP1, |x, c| {
            f64::from(c.fa) / x
        }),
        float_op("fp64 sqrt", "OP_F64_SQRT", one_to_two, FT, f(0.0, 0.0), 1, 5.0 * ULP1, |x, _| {
            x.abs().sqrt()
        }),
    ];
    ops.extend(double.map(|op| op.on(Float::F64).needing(Needs::Float64)));
    // int64: two values in turn, as int32's add and mul (a constant's powers would fold).
    let none = Consts { fa: 0.0, fb: 0.0, ua: 0, ub: 0 };
    let long = [
        int_op(
            "int64 add",
            "OP_U64_ADD",
            scrambled,
            none,
            none,
            Step::Pair64(|[x, y], _| [y, x.wrapping_add(y)]),
        ),
        int_op("int64 mul", "OP_U64_MUL", odd, none, none, Step::Pair64(|[x, y], _| [y, x.wrapping_mul(y)])),
    ];
    ops.extend(long.map(|op| op.needing(Needs::Int64)));
    ops
}
