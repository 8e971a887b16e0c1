//! The fp32 and int32 operations of the instruction table, in table order.

use super::ops::*;

/// Timing constants of the float chains: `x * 0.999 + 0.001` stays finite and normal.
const FT: Consts = f(0.999, 0.001);

/// The operations, in table order. Bounds: the Vulkan specification's, on the verify path (see
/// each comment); ULP1 is one unit in the last place in [1, 2).
pub(super) fn ops() -> Vec<Op> {
    vec![
        // Exact: integers in f32, and x * 2 from at most 64 (17 steps: at most 2^23).
        float_op("fp32 add", "OP_F32_ADD", small_integers, FT, f(1.0, 1.0), 1, 0.0, |x, c| {
            x + f64::from(c.fb)
        }),
        float_op("fp32 mul", "OP_F32_MUL", positive_integers, FT, f(2.0, 0.0), 1, 0.0, |x, c| {
            x * f64::from(c.fa)
        }),
        float_op("fp32 fma", "OP_F32_FMA", small_integers, FT, f(1.0, 1.0), 1, 0.0, |x, c| {
            x * f64::from(c.fa) + f64::from(c.fb)
        }),
        // exp2, exp: 3 + 2|x| ULP, |x| <= 1 on the path, results at most 1: 5 ULP1; |f'| <= 1.
        float_op("fp32 exp2", "OP_F32_EXP2", unit_interval, FT, NONE, 1, 5.0 * ULP1, |x, _| {
            (-x.abs()).exp2()
        }),
        // log2, log: 3 ULP outside [0.5, 2]; results under 8: 3 ULPs of [4, 8), one step only.
        float_op("fp32 log2", "OP_F32_LOG2", above_two, FT, NONE, 0, 12.0 * ULP1, |x, _| x.abs().log2()),
        float_op("fp32 exp", "OP_F32_EXP", unit_interval, FT, NONE, 1, 5.0 * ULP1, |x, _| (-x.abs()).exp()),
        float_op("fp32 log", "OP_F32_LOG", above_two, FT, NONE, 0, 12.0 * ULP1, |x, _| x.abs().ln()),
        // sin, cos: 2^-11 absolute in [-pi, pi]; the path stays in [-1, 1].
        float_op("fp32 sin", "OP_F32_SIN", unit_interval, FT, NONE, 1, 1.0 / 2048.0, |x, _| x.sin()),
        float_op("fp32 cos", "OP_F32_COS", unit_interval, FT, NONE, 1, 1.0 / 2048.0, |x, _| x.cos()),
        // inversesqrt: 2 ULP; from [1, 2) the path stays in [0.7, 1.2], |f'| <= 0.85.
        float_op("fp32 inversesqrt", "OP_F32_INVERSESQRT", one_to_two, FT, NONE, 1, 2.0 * ULP1, |x, _| {
            1.0 / x.abs().sqrt()
        }),
        // sqrt: as 1.0 / inversesqrt(x): 2 + 2.5 ULP, rounded up to 5; the path stays in [1, 1.5).
        float_op("fp32 sqrt", "OP_F32_SQRT", one_to_two, FT, NONE, 1, 5.0 * ULP1, |x, _| x.abs().sqrt()),
        // 1/x: 2.5 ULP of a result in [0.5, 1], and the add's half ULP of one in [1, 2]: under 2 ULP1.
        float_op("fp32 1/x (+ add)", "OP_F32_RCP_ADD", one_to_two, FT, f(0.0, 1.0), 1, 2.0 * ULP1, |x, c| {
            1.0 / x + f64::from(c.fb)
        }),
        // a/b: 2.5 ULP of a result in (1, 2]: 5 ULP1; |f'| = 2 / x^2 can double an error once.
        float_op("fp32 a/b", "OP_F32_DIV", one_to_two, f(1.0, 0.0), f(2.0, 0.0), 1, 10.0 * ULP1, |x, c| {
            f64::from(c.fa) / x
        }),
        // pow(x, 0.5) as exp2(0.5 log2 x) for x in [4, 68): log2's 3 ULP (under 2^-20) scaled by
        // 0.5 ln 2 and the result (under 8.3), plus exp2's 3 + 2 * 3.04 ULP of the result (2^-20).
        float_op("fp32 pow", "OP_F32_POW", above_four, FT, f(0.5, 0.0), 0, 160.0 * ULP1, |x, c| {
            x.abs().powf(f64::from(c.fa))
        }),
        // atan: 4096 ULP of a result under pi/2 (ULP 2^-23); |f'| <= 1.
        float_op("fp32 atan", "OP_F32_ATAN", eighths, FT, NONE, 1, 4096.0 * ULP1, |x, _| x.atan()),
        // fract, min, max, clamp: exact.
        float_op("fp32 fract", "OP_F32_FRACT", quarters_past, FT, NONE, 1, 0.0, |x, _| x - x.floor()),
        float_op("fp32 min", "OP_F32_MIN", small_integers, f(100.0, 0.0), f(100.0, 0.0), 1, 0.0, |x, c| {
            (-x).min(f64::from(c.fa))
        }),
        float_op("fp32 max", "OP_F32_MAX", small_integers, f(0.0, -100.0), f(0.0, -100.0), 1, 0.0, |x, c| {
            (-x).max(f64::from(c.fb))
        }),
        float_op(
            "fp32 clamp",
            "OP_F32_CLAMP",
            small_integers,
            f(100.0, -100.0),
            f(100.0, -100.0),
            1,
            0.0,
            |x, c| (-x).max(f64::from(c.fb)).min(f64::from(c.fa)),
        ),
        int_op(
            "int32 add",
            "OP_U32_ADD",
            scrambled,
            NONE,
            NONE,
            Step::Pair(|[x, y], _| [y, x.wrapping_add(y)]),
        ),
        int_op("int32 mul", "OP_U32_MUL", odd, NONE, NONE, Step::Pair(|[x, y], _| [y, x.wrapping_mul(y)])),
        int_op(
            "int32 mad",
            "OP_U32_MAD",
            scrambled,
            u(1_664_525, 1_013_904_223),
            u(3, 1),
            Step::Word(|x, c| x.wrapping_mul(c.ua).wrapping_add(c.ub)),
        ),
        int_op("uint32 / (run-time)", "OP_U32_DIV", large, u(0, 1), u(0, 3), Step::Word(|x, c| x / c.ub)),
        int_op(
            "uint32 % (run-time, + xor)",
            "OP_U32_MOD_XOR",
            large,
            u(u32::MAX, 1),
            u(1_000_003, 0x5A5A_5A5A),
            Step::Word(|x, c| (x ^ c.ub) % c.ua),
        ),
        int_op("int32 <<", "OP_U32_SHL", odd, u(0, 1), u(0, 1), Step::Word(|x, c| x << c.ub)),
        int_op("int32 >>", "OP_U32_SHR", large, u(0, 1), u(0, 1), Step::Word(|x, c| x >> c.ub)),
        int_op("bitCount", "OP_U32_BITCOUNT", scrambled, NONE, NONE, Step::Word(|x, _| x.count_ones())),
        int_op(
            "findMSB",
            "OP_U32_FINDMSB",
            scrambled,
            NONE,
            NONE,
            Step::Word(|x, _| x.checked_ilog2().unwrap_or(u32::MAX)),
        ),
        int_op(
            "findLSB",
            "OP_U32_FINDLSB",
            scrambled,
            NONE,
            NONE,
            Step::Word(|x, _| if x == 0 { u32::MAX } else { x.trailing_zeros() }),
        ),
        int_op(
            "bitfieldReverse (+ xor)",
            "OP_U32_BITFIELDREVERSE_XOR",
            scrambled,
            u(0, 0x1234_5678),
            u(0, 0x1234_5678),
            Step::Word(|x, c| x.reverse_bits() ^ c.ub),
        ),
        int_op(
            "bitfieldExtract",
            "OP_U32_BITFIELDEXTRACT",
            scrambled,
            u(0, 3),
            u(0, 3),
            Step::Word(|x, c| (x >> c.ub) & 0x00FF_FFFF),
        ),
        int_op(
            "bitfieldInsert",
            "OP_U32_BITFIELDINSERT",
            scrambled,
            u(0xDEAD_BEEF, 5),
            u(0xDEAD_BEEF, 5),
            Step::Word(|x, c| {
                let mask = 0xFFu32 << c.ub;
                (c.ua & !mask) | ((x << c.ub) & mask)
            }),
        ),
        int_op(
            "uint min (+ sub)",
            "OP_U32_MIN_SUB",
            integers,
            u(1000, 700),
            u(1000, 700),
            Step::Word(|x, c| c.ua.wrapping_sub(x).min(c.ub)),
        ),
        int_op(
            "uint max (+ sub)",
            "OP_U32_MAX_SUB",
            integers,
            u(1000, 300),
            u(1000, 300),
            Step::Word(|x, c| c.ua.wrapping_sub(x).max(c.ub)),
        ),
    ]
}
