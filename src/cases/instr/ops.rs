//! The operations of the instruction table: each one's chain step, seeds, run-time constants,
//! and how a verify run checks it (the Vulkan specification's error bounds, on the seeds' path).

use super::{SEEDS, UNROLL};
use crate::registry::{Push, Resource, Value};

/// One ULP of a float in [1, 2).
const ULP1: f64 = f32::EPSILON as f64;

/// One step of a chain as the CPU replays it (with the verify constants); what it takes says
/// what the chain holds.
#[derive(Clone, Copy)]
pub(super) enum Step {
    /// A float, in f64.
    Float(fn(f64, &Consts) -> f64),
    /// A word.
    Word(fn(u32, &Consts) -> u32),
    /// Two words in turn (`x, y -> y, x + y`).
    Pair(fn([u32; 2], &Consts) -> [u32; 2]),
}

/// The run-time constants `fa, fb, ua, ub` of one mode.
#[derive(Clone, Copy, Debug)]
pub(super) struct Consts {
    pub(super) fa: f32,
    pub(super) fb: f32,
    pub(super) ua: u32,
    pub(super) ub: u32,
}

const NONE: Consts = Consts { fa: 0.0, fb: 0.0, ua: 0, ub: 0 };

/// One operation: its case name, define, chain type, seeds, constants, and how a verify run checks it.
pub(super) struct Op {
    /// As the cases name it (`fp32 sin`).
    pub(super) name: &'static str,
    /// The GLSL's `OP_` define.
    pub(super) define: &'static str,
    /// Seed `i` (0..63) as a word.
    pub(super) seed: fn(u32) -> u32,
    pub(super) time: Consts,
    pub(super) verify: Consts,
    /// Loop trips of a verify run: 1 (17 steps) where the chain stays checkable, 0 (1 step)
    /// where one step magnifies the last one's error (log2 and log: |f'| > 1 below 1.44).
    pub(super) verify_trips: u32,
    /// The allowed error of one step on the verify seeds' path, absolute (0: exact).
    pub(super) bound: f64,
    pub(super) step: Step,
}

fn floats(v: f32) -> u32 {
    v.to_bits()
}
fn integers(i: u32) -> u32 {
    i
}
fn unit_interval(i: u32) -> u32 {
    floats(i as f32 / 64.0)
}
fn one_to_two(i: u32) -> u32 {
    floats(1.0 + i as f32 / 64.0)
}
fn small_integers(i: u32) -> u32 {
    floats(i as f32)
}
fn positive_integers(i: u32) -> u32 {
    floats(i as f32 + 1.0)
}
fn above_two(i: u32) -> u32 {
    floats(i as f32 + 2.5)
}
fn above_four(i: u32) -> u32 {
    floats(i as f32 + 4.0)
}
fn eighths(i: u32) -> u32 {
    floats(i as f32 / 8.0)
}
fn quarters_past(i: u32) -> u32 {
    floats(i as f32 + 1.25)
}
fn scrambled(i: u32) -> u32 {
    i.wrapping_mul(0x9E37_79B9) ^ 0x5bd1_e995
}
fn large(i: u32) -> u32 {
    0xF000_0000 | i.wrapping_mul(12_345)
}
fn odd(i: u32) -> u32 {
    scrambled(i) | 1
}

/// A float operation.
#[allow(clippy::too_many_arguments)]
const fn float_op(
    name: &'static str,
    define: &'static str,
    seed: fn(u32) -> u32,
    time: Consts,
    verify: Consts,
    verify_trips: u32,
    bound: f64,
    step_f: fn(f64, &Consts) -> f64,
) -> Op {
    Op { name, define, seed, time, verify, verify_trips, bound, step: Step::Float(step_f) }
}

/// An integer operation, replayed exactly.
const fn int_op(
    name: &'static str,
    define: &'static str,
    seed: fn(u32) -> u32,
    time: Consts,
    verify: Consts,
    step: Step,
) -> Op {
    Op { name, define, seed, time, verify, verify_trips: 1, bound: 0.0, step }
}

const fn f(fa: f32, fb: f32) -> Consts {
    Consts { fa, fb, ua: 0, ub: 0 }
}
const fn u(ua: u32, ub: u32) -> Consts {
    Consts { fa: 0.0, fb: 0.0, ua, ub }
}

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

impl Op {
    /// Steps per chain in a verify run.
    pub(super) fn verify_steps(&self) -> u32 {
        1 + self.verify_trips * UNROLL
    }

    /// The push block after the header: trips, fa, fb, ua, ub.
    pub(super) fn push(&self, time_trips: u32) -> Push {
        let words = |trips: u32, c: &Consts| [trips, c.fa.to_bits(), c.fb.to_bits(), c.ua, c.ub];
        Push::per_mode(&words(time_trips, &self.time), &words(self.verify_trips, &self.verify))
    }

    /// What invocation `gid` of a verify run with `chains` chains writes: chain `gid % chains`.
    pub(super) fn reference(&self, gid: u32, chains: u32) -> Value {
        let index = gid.wrapping_mul(chains).wrapping_add(gid % chains);
        let word = |i: u32| (self.seed)(i & (SEEDS - 1));
        match self.step {
            Step::Float(step) => {
                let mut x = f64::from(f32::from_bits(word(index)));
                for _ in 0..self.verify_steps() {
                    x = step(x, &self.verify);
                }
                let value = x as f32;
                if self.bound == 0.0 {
                    return Value::F32(value);
                }
                // The steps' errors, and the last rounding to f32.
                let bound = self.bound * f64::from(self.verify_steps()) + f64::from(value.abs()) * ULP1;
                Value::F32Within { value, bound: bound as f32 }
            }
            Step::Word(step) => {
                Value::U32((0..self.verify_steps()).fold(word(index), |x, _| step(x, &self.verify)))
            }
            Step::Pair(step) => {
                let start = [word(index), word(index.wrapping_add(1))];
                Value::U32((0..self.verify_steps()).fold(start, |x, _| step(x, &self.verify))[1])
            }
        }
    }

    pub(super) fn seeds(&self) -> Resource {
        let seed = self.seed;
        Resource::storage_buffer(u64::from(SEEDS) * 4, move |bytes| {
            for (i, chunk) in bytes.chunks_exact_mut(4).enumerate() {
                chunk.copy_from_slice(&seed(i as u32).to_ne_bytes());
            }
        })
    }

    /// `PRECISE` where a driver could reassociate the chain: a float add, multiply or division
    /// by one run-time constant (NVIDIA's folds 16 of them into one without NoContraction).
    pub(super) fn precise(&self) -> Option<(&'static str, &'static str)> {
        ["OP_F32_ADD", "OP_F32_MUL", "OP_F32_FMA", "OP_F32_DIV", "OP_F32_RCP_ADD"]
            .contains(&self.define)
            .then_some(("PRECISE", "1"))
    }

    pub(super) fn type_define(&self) -> (&'static str, &'static str) {
        match self.step {
            Step::Float(_) => ("TYPE_FLOAT", "1"),
            Step::Word(_) => ("TYPE_UINT", "1"),
            Step::Pair(_) => ("TYPE_UVEC2", "1"),
        }
    }
}
