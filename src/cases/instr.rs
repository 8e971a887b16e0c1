//! The instruction table: each shader operation's throughput and latency (issue 38).
//!
//! Two cases per operation, one shader (glsl/instr.glsl): `throughput` runs 8 independent chains
//! of `x = op(x)` per invocation in workgroups of 256, and its ratio against `fp32 fma` is the
//! operation's cost in FMAs; `latency` runs one chain in one subgroup, lengthened by a push word,
//! so its rate is one operation at a time: nanoseconds and, with the clock, clocks per operation.
//! The design, and why some operations are paired with a cheap one, is in
//! docs/design/instructions.md; CUDA's figures on the H100 in results/instructions/.
//!
//! Verify runs take 0 or 1 trips of the loop (1 or 17 steps per chain) and compare each chain
//! with the CPU's: exactly where the operation is exact, else within the error the Vulkan
//! specification allows the operation ("Precision and Operation of SPIR-V Instructions"), summed
//! over the steps of a chain whose step never magnifies an error (|f'| <= 1 on the seeds' path).

use crate::registry::{self, CaseSpec, Env, Family, Glsl, Push, Resource, Unit, Value, Work};

const GLSL: Glsl = Glsl { file: "instr.glsl", source: include_str!("../../glsl/instr.glsl") };

/// Independent chains per invocation in throughput cases (8 cover the H100's fp64 and MUFU
/// latencies at 2048 invocations per SM: results/instructions/).
const CHAINS: u32 = 8;
/// Steps per loop trip, unrolled.
const UNROLL: u32 = 16;
/// Loop trips of a timed throughput case: 1 + 64 x 16 = 1025 steps per chain.
const TRIPS: u32 = 64;
/// Invocations per throughput workgroup, where the device allows them.
const GROUP: u32 = 256;
/// Seeds in the seeds buffer (the GLSL masks the index with 63).
const SEEDS: u32 = 64;
/// The case every throughput case's ratio is against: its inverse is the cost in FMAs.
const FMA: &str = "Instr fp32 fma throughput";

/// One ULP of a float in [1, 2).
const ULP1: f64 = f32::EPSILON as f64;

/// What a chain holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    F32,
    U32,
    /// Two words in turn (`x, y -> y, x + y`).
    U32Pair,
}

/// The run-time constants `fa, fb, ua, ub` of one mode.
#[derive(Clone, Copy, Debug)]
struct Consts {
    fa: f32,
    fb: f32,
    ua: u32,
    ub: u32,
}

const NONE: Consts = Consts { fa: 0.0, fb: 0.0, ua: 0, ub: 0 };

/// One operation: its case name, define, chain type, seeds, constants, and how a verify run checks it.
struct Op {
    /// As the cases name it (`fp32 sin`).
    name: &'static str,
    /// The GLSL's `OP_` define.
    define: &'static str,
    ty: Ty,
    /// Seed `i` (0..63) as a word.
    seed: fn(u32) -> u32,
    time: Consts,
    verify: Consts,
    /// Loop trips of a verify run: 1 (17 steps) where the chain stays checkable, 0 (1 step)
    /// where one step magnifies the last one's error (log2 and log: |f'| > 1 below 1.44).
    verify_trips: u32,
    /// The allowed error of one step on the verify seeds' path, absolute (0: exact).
    bound: f64,
    /// One step in f64 (floats) with the verify constants.
    step_f: fn(f64, &Consts) -> f64,
    /// One step on words (integers).
    step_u: fn([u32; 2], &Consts) -> [u32; 2],
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

fn no_f(x: f64, _: &Consts) -> f64 {
    x
}
fn no_u(x: [u32; 2], _: &Consts) -> [u32; 2] {
    x
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
    Op { name, define, ty: Ty::F32, seed, time, verify, verify_trips, bound, step_f, step_u: no_u }
}

/// An integer operation, replayed exactly.
const fn int_op(
    name: &'static str,
    define: &'static str,
    seed: fn(u32) -> u32,
    time: Consts,
    verify: Consts,
    step_u: fn([u32; 2], &Consts) -> [u32; 2],
) -> Op {
    Op { name, define, ty: Ty::U32, seed, time, verify, verify_trips: 1, bound: 0.0, step_f: no_f, step_u }
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
fn ops() -> Vec<Op> {
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
        Op {
            name: "int32 add",
            define: "OP_U32_ADD",
            ty: Ty::U32Pair,
            seed: scrambled,
            time: NONE,
            verify: NONE,
            verify_trips: 1,
            bound: 0.0,
            step_f: no_f,
            step_u: |[x, y], _| [y, x.wrapping_add(y)],
        },
        Op {
            name: "int32 mul",
            define: "OP_U32_MUL",
            ty: Ty::U32Pair,
            seed: odd,
            time: NONE,
            verify: NONE,
            verify_trips: 1,
            bound: 0.0,
            step_f: no_f,
            step_u: |[x, y], _| [y, x.wrapping_mul(y)],
        },
        int_op("int32 mad", "OP_U32_MAD", scrambled, u(1_664_525, 1_013_904_223), u(3, 1), |[x, _], c| {
            [x.wrapping_mul(c.ua).wrapping_add(c.ub), 0]
        }),
        int_op("uint32 / (run-time)", "OP_U32_DIV", large, u(0, 1), u(0, 3), |[x, _], c| [x / c.ub, 0]),
        int_op(
            "uint32 % (run-time, + xor)",
            "OP_U32_MOD_XOR",
            large,
            u(u32::MAX, 1),
            u(1_000_003, 0x5A5A_5A5A),
            |[x, _], c| [(x ^ c.ub) % c.ua, 0],
        ),
        int_op("int32 <<", "OP_U32_SHL", odd, u(0, 1), u(0, 1), |[x, _], c| [x << c.ub, 0]),
        int_op("int32 >>", "OP_U32_SHR", large, u(0, 1), u(0, 1), |[x, _], c| [x >> c.ub, 0]),
        int_op("bitCount", "OP_U32_BITCOUNT", scrambled, NONE, NONE, |[x, _], _| [x.count_ones(), 0]),
        int_op("findMSB", "OP_U32_FINDMSB", scrambled, NONE, NONE, |[x, _], _| {
            [x.checked_ilog2().unwrap_or(u32::MAX), 0]
        }),
        int_op("findLSB", "OP_U32_FINDLSB", scrambled, NONE, NONE, |[x, _], _| {
            [if x == 0 { u32::MAX } else { x.trailing_zeros() }, 0]
        }),
        int_op(
            "bitfieldReverse (+ xor)",
            "OP_U32_BITFIELDREVERSE_XOR",
            scrambled,
            u(0, 0x1234_5678),
            u(0, 0x1234_5678),
            |[x, _], c| [x.reverse_bits() ^ c.ub, 0],
        ),
        int_op("bitfieldExtract", "OP_U32_BITFIELDEXTRACT", scrambled, u(0, 3), u(0, 3), |[x, _], c| {
            [(x >> c.ub) & 0x00FF_FFFF, 0]
        }),
        int_op(
            "bitfieldInsert",
            "OP_U32_BITFIELDINSERT",
            scrambled,
            u(0xDEAD_BEEF, 5),
            u(0xDEAD_BEEF, 5),
            |[x, _], c| {
                let mask = 0xFFu32 << c.ub;
                [(c.ua & !mask) | ((x << c.ub) & mask), 0]
            },
        ),
        int_op("uint min (+ sub)", "OP_U32_MIN_SUB", integers, u(1000, 700), u(1000, 700), |[x, _], c| {
            [c.ua.wrapping_sub(x).min(c.ub), 0]
        }),
        int_op("uint max (+ sub)", "OP_U32_MAX_SUB", integers, u(1000, 300), u(1000, 300), |[x, _], c| {
            [c.ua.wrapping_sub(x).max(c.ub), 0]
        }),
    ]
}

impl Op {
    /// Steps per chain in a verify run.
    fn verify_steps(&self) -> u32 {
        1 + self.verify_trips * UNROLL
    }

    /// The push block after the header: trips, fa, fb, ua, ub.
    fn push(&self, time_trips: u32) -> Push {
        let words = |trips: u32, c: &Consts| [trips, c.fa.to_bits(), c.fb.to_bits(), c.ua, c.ub];
        Push::per_mode(&words(time_trips, &self.time), &words(self.verify_trips, &self.verify))
    }

    /// What invocation `gid` of a verify run with `chains` chains writes: chain `gid % chains`.
    fn reference(&self, gid: u32, chains: u32) -> Value {
        let index = gid.wrapping_mul(chains).wrapping_add(gid % chains);
        let word = |i: u32| (self.seed)(i & (SEEDS - 1));
        match self.ty {
            Ty::F32 => {
                let mut x = f64::from(f32::from_bits(word(index)));
                for _ in 0..self.verify_steps() {
                    x = (self.step_f)(x, &self.verify);
                }
                let value = x as f32;
                if self.bound == 0.0 {
                    return Value::F32(value);
                }
                // The steps' errors, and the last rounding to f32.
                let bound = self.bound * f64::from(self.verify_steps()) + f64::from(value.abs()) * ULP1;
                Value::F32Within { value, bound: bound as f32 }
            }
            Ty::U32 | Ty::U32Pair => {
                let mut x = [word(index), word(index.wrapping_add(1))];
                for _ in 0..self.verify_steps() {
                    x = (self.step_u)(x, &self.verify);
                }
                Value::U32(if self.ty == Ty::U32Pair { x[1] } else { x[0] })
            }
        }
    }

    fn seeds(&self) -> Resource {
        let seed = self.seed;
        Resource::storage_buffer(u64::from(SEEDS) * 4, move |bytes| {
            for (i, chunk) in bytes.chunks_exact_mut(4).enumerate() {
                chunk.copy_from_slice(&seed(i as u32).to_ne_bytes());
            }
        })
    }

    /// `PRECISE` where a driver could reassociate the chain: a float add, multiply or division
    /// by one run-time constant (NVIDIA's folds 16 of them into one without NoContraction).
    fn precise(&self) -> Option<(&'static str, &'static str)> {
        ["OP_F32_ADD", "OP_F32_MUL", "OP_F32_FMA", "OP_F32_DIV", "OP_F32_RCP_ADD"]
            .contains(&self.define)
            .then_some(("PRECISE", "1"))
    }

    fn type_define(&self) -> (&'static str, &'static str) {
        match self.ty {
            Ty::F32 => ("TYPE_FLOAT", "1"),
            Ty::U32 => ("TYPE_UINT", "1"),
            Ty::U32Pair => ("TYPE_UVEC2", "1"),
        }
    }
}

/// `op`'s throughput case in workgroups of `invocations`.
fn throughput(op: Op, invocations: u32) -> CaseSpec {
    let steps = 1 + TRIPS * UNROLL;
    let (chains, unroll) = (CHAINS.to_string(), UNROLL.to_string());
    let name = format!("Instr {} throughput", op.name);
    let case = CaseSpec::new(name, GLSL, [invocations, 1, 1])
        .narrowed_from(GROUP.into())
        .defines([(op.define, "1"), op.type_define(), ("CHAINS", &*chains), ("UNROLL", &*unroll)])
        .defines(op.precise())
        .resource(op.seeds())
        .push(op.push(TRIPS))
        .work([Work::new(f64::from(CHAINS * steps), Unit::Op)])
        .group("instr throughput")
        .baseline(FMA);
    case.reference(move |gid| op.reference(gid, CHAINS))
}

/// `op`'s latency case: one chain in one subgroup of `width` invocations.
fn latency(op: Op, width: u32) -> CaseSpec {
    let unroll = UNROLL.to_string();
    CaseSpec::new(format!("Instr {} latency", op.name), GLSL, [width, 1, 1])
        .defines([(op.define, "1"), op.type_define(), ("CHAINS", "1"), ("UNROLL", &*unroll)])
        .defines(op.precise())
        .resource(op.seeds())
        .push(op.push(1))
        .scale_by_push_word(0)
        // UNROLL steps per trip, each taken by the subgroup's invocations together, and counted
        // per invocation; the step before the loop adds one per dispatch (under 0.01% at 20 ms).
        .work([Work::new(f64::from(UNROLL) / f64::from(width), Unit::DependentOp)])
        .group("instr latency")
        .reference(move |gid| op.reference(gid, 1))
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let group = env.workgroup_width(GROUP);
    let subgroup = env.device.map_or(32, |d| d.subgroup_size.max(1));
    let width = env.workgroup_width(subgroup.next_power_of_two());
    let mut cases: Vec<CaseSpec> = ops().into_iter().map(|op| throughput(op, group)).collect();
    cases.extend(ops().into_iter().map(|op| latency(op, width)));
    cases
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "each shader operation's throughput and latency: fp32 arithmetic and transcendentals, \
                       integer arithmetic, division and bit operations (an instruction table)",
            invocation: "throughput: 8 independent chains of 1025 steps `x = op(x)`; latency: one chain in one \
                         subgroup, as long as the target takes",
            rate: "operations per second (each call as written counts one) and, with the clock and the compute \
                   units, per clock per unit; latency as ns and clocks per operation; a throughput's ratio is \
                   its inverse cost in fp32 FMAs",
        },
        name: "instr",
        order: 950,
        axes: &[],
        ratio_note: Some("\"Instr fp32 fma throughput\""),
        levels: false,
        device_cases: false,
        quick: &[FMA, "Instr fp32 sin throughput", "Instr uint32 / (run-time) throughput", "Instr fp32 fma latency"],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader::spirv;

    /// The SPIR-V instruction that is the operation: a core opcode, or a GLSL.std.450 one.
    #[derive(Clone, Copy)]
    enum Opcode {
        Core(u32),
        Glsl(u32),
    }

    fn opcode(define: &str) -> Opcode {
        use Opcode::{Core, Glsl};
        match define {
            "OP_F32_ADD" => Core(129),
            "OP_F32_MUL" => Core(133),
            "OP_F32_FMA" => Glsl(50),
            "OP_F32_EXP2" => Glsl(29),
            "OP_F32_LOG2" => Glsl(30),
            "OP_F32_EXP" => Glsl(27),
            "OP_F32_LOG" => Glsl(28),
            "OP_F32_SIN" => Glsl(13),
            "OP_F32_COS" => Glsl(14),
            "OP_F32_INVERSESQRT" => Glsl(32),
            "OP_F32_SQRT" => Glsl(31),
            "OP_F32_RCP_ADD" => Core(136),
            "OP_F32_DIV" => Core(136),
            "OP_F32_POW" => Glsl(26),
            "OP_F32_ATAN" => Glsl(18),
            "OP_F32_FRACT" => Glsl(10),
            "OP_F32_MIN" => Glsl(37),
            "OP_F32_MAX" => Glsl(40),
            "OP_F32_CLAMP" => Glsl(43),
            "OP_U32_ADD" => Core(128),
            "OP_U32_MUL" => Core(132),
            "OP_U32_MAD" => Core(132),
            "OP_U32_DIV" => Core(134),
            "OP_U32_MOD_XOR" => Core(137),
            "OP_U32_SHL" => Core(196),
            "OP_U32_SHR" => Core(194),
            "OP_U32_BITCOUNT" => Core(205),
            "OP_U32_FINDMSB" => Glsl(75),
            "OP_U32_FINDLSB" => Glsl(73),
            "OP_U32_BITFIELDREVERSE_XOR" => Core(204),
            "OP_U32_BITFIELDEXTRACT" => Core(203),
            "OP_U32_BITFIELDINSERT" => Core(201),
            "OP_U32_MIN_SUB" => Glsl(38),
            "OP_U32_MAX_SUB" => Glsl(41),
            other => panic!("no opcode for {other}"),
        }
    }

    #[test]
    fn every_chain_compiles_with_one_operation_per_step() {
        // The loop body holds CHAINS x UNROLL steps and the step before it CHAINS more: as many
        // of the operation's own SPIR-V instruction survive spirv-opt (nothing folded).
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        for op in ops() {
            let name = op.name;
            let opcode = opcode(op.define);
            let spirv = compiler.compile(&throughput(op, GROUP)).unwrap();
            let count = spirv::instructions(&spirv)
                .filter(|i| match opcode {
                    Opcode::Core(code) => i.opcode == code,
                    Opcode::Glsl(code) => i.opcode == spirv::OP_EXT_INST && i.operands.get(3) == Some(&code),
                })
                .count() as u32;
            // A few more where the index arithmetic uses the same instruction (IAdd, IMul).
            let steps = CHAINS * (UNROLL + 1);
            assert!(
                (steps..steps + 16).contains(&count),
                "{name}: {count} of its instruction, {steps} steps"
            );
        }
    }

    #[test]
    fn every_float_step_is_precise() {
        // NoContraction (OpDecorate 71, decoration 42) on each step's instruction: without it
        // NVIDIA's driver folds `x + b` 16 times into one add (906 "adds" per clock per SM).
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        for op in ops().into_iter().filter(|o| ["OP_F32_ADD", "OP_F32_MUL", "OP_F32_DIV"].contains(&o.define))
        {
            let name = op.name;
            let spirv = compiler.compile(&throughput(op, GROUP)).unwrap();
            let decorated = spirv::instructions(&spirv)
                .filter(|i| i.opcode == 71 && i.operands.get(1) == Some(&42))
                .count();
            assert!(
                decorated as u32 >= CHAINS * (UNROLL + 1),
                "{name}: {decorated} NoContraction decorations"
            );
        }
    }

    #[test]
    fn exact_references_replay_the_chain() {
        let ops = ops();
        let find = |name: &str| ops.iter().find(|o| o.name == name).unwrap();
        // fp32 add: seed + 17 from the seed of chain gid % 8 (gid 3: seed index 27).
        assert_eq!(find("fp32 add").reference(3, CHAINS), Value::F32(27.0 + 17.0));
        // fp32 mul by 2, 17 times, from 28.
        assert_eq!(find("fp32 mul").reference(3, CHAINS), Value::F32(28.0 * 131_072.0));
        // min(-x, 100) 17 times from 27 is -27; clamp the same.
        assert_eq!(find("fp32 min").reference(3, CHAINS), Value::F32(-27.0));
        assert_eq!(find("fp32 clamp").reference(3, CHAINS), Value::F32(-27.0));
        // Division by 3, 17 times, of a word at least 0xF0000000: still above zero.
        let Value::U32(quotient) = find("uint32 / (run-time)").reference(0, CHAINS) else { panic!() };
        assert_eq!(quotient, 0xF000_0000 / 3u32.pow(17));
        assert_ne!(quotient, 0, "the chain must end away from zero, or a lost step would not show");
    }

    #[test]
    fn an_f32_chain_within_the_specification_meets_the_bounded_references() {
        // Rust's f32 functions err by an ULP or so, far inside the specification: each bounded
        // chain run in f32, as a conformant GPU might, must match its reference. (These chains
        // check the operation's values; that every step ran is the compiled code's to show:
        // the SPIR-V test above and the driver's statistics.)
        for op in ops().into_iter().filter(|o| o.bound > 0.0) {
            let reference = op.reference(5, CHAINS);
            let seed = f32::from_bits((op.seed)((5 * CHAINS + 5) & (SEEDS - 1)));
            let chain =
                |steps: u32| (0..steps).fold(seed, |x, _| (op.step_f)(f64::from(x), &op.verify) as f32);
            let Value::F32Within { bound, .. } = reference else { panic!("{}", op.name) };
            assert!(bound > 0.0 && bound < 0.01, "{}: bound {bound}", op.name);
            assert!(reference.matches(chain(op.verify_steps()).to_bits()), "{}: {reference}", op.name);
        }
    }

    #[test]
    fn push_blocks_carry_trips_first() {
        let op = ops().into_iter().find(|o| o.name == "fp32 sin").unwrap();
        let push = op.push(TRIPS);
        assert_eq!(u32::from_ne_bytes(push.time[0..4].try_into().unwrap()), TRIPS);
        assert_eq!(u32::from_ne_bytes(push.verify[0..4].try_into().unwrap()), 1);
        assert_eq!(push.time.len(), 20);
    }
}
