//! The instruction table's conversions, each a round trip (two operations per step) and an add
//! of a run-time constant: a round trip alone is idempotent, and compilers fold a chain of them
//! (NIR turns `float(int(x))` into `trunc(x)`, and `trunc(trunc(x))` into one). The integer
//! round trips add on both sides, `float(int(x) + 1) + 0.25`: RADV made `float(int(x)) + b` a
//! truncation and an add, and `float(int(x) + b)` a chain of integer adds (`int(float(i))` is
//! `i`); with an add between each pair of conversions, neither fold can reach.
//!
//! Every verify path stays where the conversion's rounding is far from a tie, so the replay is
//! exact (within unpackUnorm's division by 255); the float16_t ones take one step from a value
//! the conversion must round.

use super::ops::{float_op, floats, quarters_past, Consts, Needs, Op, ULP1};

const fn f(fa: f32, fb: f32) -> Consts {
    Consts { fa, fb, ua: 0, ub: 0 }
}

/// In [1, 1.07), a quarter of float16_t's ULP above one of its values: rounded to nearest or
/// toward zero, the conversion drops the quarter, and a driver that skips it shows.
fn quarter_ulp_above(i: u32) -> u32 {
    floats(1.0 + i as f32 / 1024.0 + 1.0 / 4096.0)
}

/// One step from [1, 2): to float16_t (its ULP there is 2^-10) and back, then the add.
fn to_half_and_add(x: f64, c: &Consts) -> f64 {
    (x * 1024.0).floor() / 1024.0 + f64::from(c.fb)
}

/// Under 0.8, and never within 0.01 / 255 of a rounding tie of `x * 255`.
fn unorm(i: u32) -> u32 {
    floats((i as f32 + 0.25) / 80.0)
}

/// Timing and verify constants: + 1.5 per step (the chain climbs, so no step repeats the last).
const CLIMB: Consts = f(0.0, 1.5);
/// + 1 on the integer and + 0.25 on the float per step: a quarter past an integer stays so.
const CLIMB_INT: Consts = Consts { fa: 0.0, fb: 0.25, ua: 0, ub: 1 };
/// + 1/255: one unorm step per chain step.
const UNORM_STEP: Consts = f(0.0, 1.0 / 255.0);

pub(super) fn ops() -> Vec<Op> {
    let ops = [
        float_op(
            "float -> int -> float (+ add)",
            "OP_CVT_INT_ADD",
            quarters_past,
            CLIMB_INT,
            CLIMB_INT,
            1,
            0.0,
            |x, c| x.trunc() + f64::from(c.ub) + f64::from(c.fb),
        ),
        float_op(
            "float -> uint -> float (+ add)",
            "OP_CVT_UINT_ADD",
            quarters_past,
            CLIMB_INT,
            CLIMB_INT,
            1,
            0.0,
            |x, c| x.trunc() + f64::from(c.ub) + f64::from(c.fb),
        ),
        // One step each: the rounding is what is checked.
        float_op(
            "float -> float16_t -> float (+ add)",
            "OP_CVT_HALF_ADD",
            quarter_ulp_above,
            CLIMB,
            CLIMB,
            0,
            0.0,
            to_half_and_add,
        )
        .needing(Needs::Float16),
        float_op(
            "packHalf2x16 and back (+ add)",
            "OP_CVT_PACKHALF_ADD",
            quarter_ulp_above,
            CLIMB,
            CLIMB,
            0,
            0.0,
            to_half_and_add,
        ),
        // unpackUnorm4x8 divides by 255: within 2.5 ULP, and the add's half ULP.
        float_op(
            "packUnorm4x8 and back (+ add)",
            "OP_CVT_PACKUNORM_ADD",
            unorm,
            UNORM_STEP,
            UNORM_STEP,
            1,
            3.0 * ULP1,
            |x, c| (x.clamp(0.0, 1.0) * 255.0).round() / 255.0 + f64::from(c.fb),
        ),
    ];
    ops.into_iter().map(|op| op.counting(2)).collect()
}
