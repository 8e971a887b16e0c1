//! The instruction table's conversions, each a round trip (two operations per step) and an add
//! of a run-time constant: a round trip alone is idempotent, and compilers fold a chain of them
//! (NIR turns `float(int(x))` into `trunc(x)`, and `trunc(trunc(x))` into one).
//!
//! Every verify path stays where the conversion is exact or its rounding is far from a tie, so
//! the replay is exact (within unpackUnorm's division by 255).

use super::ops::{float_op, floats, quarters_past, Consts, Needs, Op, ULP1};

const fn f(fa: f32, fb: f32) -> Consts {
    Consts { fa, fb, ua: 0, ub: 0 }
}

/// Eighths under 8: exact in float16_t, and after 17 steps of + 1.5 (under 34) still.
fn eighths(i: u32) -> u32 {
    floats(i as f32 / 8.0)
}

/// Under 0.8, and never within 0.01 / 255 of a rounding tie of `x * 255`.
fn unorm(i: u32) -> u32 {
    floats((i as f32 + 0.25) / 80.0)
}

/// Timing and verify constants: + 1.5 per step (the chain climbs, so no step repeats the last).
const CLIMB: Consts = f(0.0, 1.5);
/// + 1/255: one unorm step per chain step.
const UNORM_STEP: Consts = f(0.0, 1.0 / 255.0);

pub(super) fn ops() -> Vec<Op> {
    let ops = [
        float_op(
            "float -> int -> float (+ add)",
            "OP_CVT_INT_ADD",
            quarters_past,
            CLIMB,
            CLIMB,
            1,
            0.0,
            |x, c| x.trunc() + f64::from(c.fb),
        ),
        float_op(
            "float -> uint -> float (+ add)",
            "OP_CVT_UINT_ADD",
            quarters_past,
            CLIMB,
            CLIMB,
            1,
            0.0,
            |x, c| x.trunc() + f64::from(c.fb),
        ),
        float_op(
            "float -> float16_t -> float (+ add)",
            "OP_CVT_HALF_ADD",
            eighths,
            CLIMB,
            CLIMB,
            1,
            0.0,
            |x, c| x + f64::from(c.fb),
        )
        .needing(Needs::Float16),
        float_op(
            "packHalf2x16 and back (+ add)",
            "OP_CVT_PACKHALF_ADD",
            eighths,
            CLIMB,
            CLIMB,
            1,
            0.0,
            |x, c| x + f64::from(c.fb),
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
