//! ALU throughput: fp32, packed fp16, fp64 FMA and int32 multiply-add, as independent chains.
//!
//! One chain of dependent FMAs measures latency; `CHAINS` independent chains per
//! invocation and thousands of invocations per SM measure throughput. Timing runs
//! use `x = x * 0.999 + 0.01`, which stays finite and normal; verify runs use
//! `a = 1, b = 1`, so each chain ends at `seed + ITERATIONS` exactly (even in fp16),
//! which proves that every step ran: the compiler cannot know `a` and `b`.

use crate::caps::{Ceiling, Feature, Requirements};
use crate::registry::{self, CaseSpec, Env, Family, Glsl, Push, Resource, Unit, Value, Work};

/// Independent chains per invocation: 8 leave fp64 at 91% on an H100 (DFMA latency); 16 reach 99%.
const CHAINS: u32 = 16;
/// Multiply-adds per chain.
const ITERATIONS: u32 = 1024;
/// Chain steps per unrolled loop trip.
const UNROLL: u32 = 64;
/// Seeds in the seeds buffer (glsl/alu.glsl masks the index with 63).
const SEEDS: usize = 64;

const GLSL: Glsl = Glsl { file: "alu.glsl", source: include_str!("../../glsl/alu.glsl") };

/// Operations per invocation: CHAINS x ITERATIONS multiply-adds of two operations each.
const OPS: f64 = (CHAINS * ITERATIONS * 2) as f64;

/// The arithmetic types, and the attempts at full-rate fp16 (NOTES.md, issue 14).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Fp32,
    Fp16x2,
    Fp64,
    Int32,
    /// f16vec4 FMAs.
    Fp16x4,
    /// f16vec2 FMAs in twice as many chains.
    Fp16x2Chains32,
    /// f16vec2: every other chain a multiply and an add the compiler may not fuse.
    Fp16x2Mixed,
    /// fp32 declared mediump (RelaxedPrecision).
    Fp32Mediump,
}

impl Kind {
    const ALL: [Kind; 8] = [
        Kind::Fp32,
        Kind::Fp16x2,
        Kind::Fp64,
        Kind::Int32,
        Kind::Fp16x4,
        Kind::Fp16x2Chains32,
        Kind::Fp16x2Mixed,
        Kind::Fp32Mediump,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::Fp32 => "ALU fp32 FMA",
            Kind::Fp16x2 => "ALU fp16 FMA (f16vec2)",
            Kind::Fp64 => "ALU fp64 FMA",
            Kind::Int32 => "ALU int32 multiply-add",
            Kind::Fp16x4 => "ALU fp16 FMA (f16vec4)",
            Kind::Fp16x2Chains32 => "ALU fp16 FMA (f16vec2, 32 chains)",
            Kind::Fp16x2Mixed => "ALU fp16 FMA and mul+add (f16vec2)",
            Kind::Fp32Mediump => "ALU fp32 FMA (mediump)",
        }
    }

    fn define(self) -> &'static str {
        match self {
            Kind::Fp32 | Kind::Fp32Mediump => "ALU_FP32",
            Kind::Fp16x2 | Kind::Fp16x4 | Kind::Fp16x2Chains32 | Kind::Fp16x2Mixed => "ALU_FP16",
            Kind::Fp64 => "ALU_FP64",
            Kind::Int32 => "ALU_INT32",
        }
    }

    /// Halves per fp16 vector (1 for the other types).
    fn lanes(self) -> u32 {
        match self {
            Kind::Fp16x2 | Kind::Fp16x2Chains32 | Kind::Fp16x2Mixed => 2,
            Kind::Fp16x4 => 4,
            _ => 1,
        }
    }

    fn chains(self) -> u32 {
        if self == Kind::Fp16x2Chains32 {
            2 * CHAINS
        } else {
            CHAINS
        }
    }
}

/// Seed `i`: the integers 0..63 in a scrambled order.
fn seed(i: u32) -> f32 {
    ((i as usize * 37) % SEEDS) as f32
}

fn fill_seeds(bytes: &mut [u8]) {
    for (i, chunk) in bytes.chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&seed(i as u32).to_ne_bytes());
    }
}

/// The multiply-add constants `a` and `b` (params.a, params.b) of timing and verify runs.
fn constants(kind: Kind) -> Push {
    let (time, verify) = match kind {
        // An LCG step: wraps, never settles; both constants are exact in f32. Verify: x -> 3x + 1.
        Kind::Int32 => ([1_664_525.0f32, 12_345.0], [3.0f32, 1.0]),
        // Converges to b / (1 - a) = 10: finite, normal, never the NaN sentinel. Verify: x -> x + 1.
        _ => ([0.999, 0.01], [1.0, 1.0]),
    };
    Push::per_mode(&time.map(f32::to_bits), &verify.map(f32::to_bits))
}

/// What invocation `gid` of a verify run writes.
fn reference(kind: Kind, gid: u32) -> Value {
    let seed_at = |i: u32| seed(i & 63);
    match kind {
        Kind::Int32 => {
            let total = (0..CHAINS).fold(0u32, |total, k| {
                let mut x = seed_at(gid * CHAINS + k) as u32;
                for _ in 0..ITERATIONS {
                    x = x.wrapping_mul(3).wrapping_add(1);
                }
                total.wrapping_add(x)
            });
            Value::U32(total)
        }
        Kind::Fp16x2 | Kind::Fp16x4 | Kind::Fp16x2Chains32 | Kind::Fp16x2Mixed => {
            // Each lane ends at seed + ITERATIONS: at most 1087, exact in fp16; lanes summed in order.
            let (lanes, chains) = (kind.lanes(), kind.chains());
            let total: f32 = (0..chains)
                .map(|k| {
                    let i = gid * chains + k;
                    (0..lanes).map(|l| seed_at(lanes * i + l) + ITERATIONS as f32).fold(0.0, |s, v| s + v)
                })
                .sum();
            Value::F32(total)
        }
        Kind::Fp32 | Kind::Fp64 | Kind::Fp32Mediump => {
            let total: f32 = (0..CHAINS).map(|k| seed_at(gid * CHAINS + k) + ITERATIONS as f32).sum();
            Value::F32(total)
        }
    }
}

fn case(kind: Kind) -> CaseSpec {
    let (chains, iterations, unroll) =
        (format!("{}u", kind.chains()), format!("{ITERATIONS}u"), format!("{UNROLL}u"));
    let lanes = kind.lanes().to_string();
    // Every chain step is an FMA's two operations per lane (a mul+add counts the same).
    let ops = OPS * f64::from(kind.lanes()) * f64::from(kind.chains() / CHAINS);
    let fp16 = Requirements::new().feature(Feature::ShaderFloat16);
    let (unit, requires, ceiling) = match kind {
        Kind::Fp32 => (Unit::Flop, Requirements::new(), Ceiling::Fp32Fma),
        // mediump may run as fp16: the fp16 peak is the bound (the fp32 one could be passed honestly).
        Kind::Fp32Mediump => (Unit::Flop, Requirements::new(), Ceiling::Fp16Fma),
        Kind::Fp16x2 | Kind::Fp16x4 | Kind::Fp16x2Chains32 | Kind::Fp16x2Mixed => {
            (Unit::Flop, fp16, Ceiling::Fp16Fma)
        }
        Kind::Fp64 => (Unit::Flop, Requirements::new().feature(Feature::ShaderFloat64), Ceiling::Fp64Fma),
        Kind::Int32 => (Unit::IntOp, Requirements::new(), Ceiling::Int32Mad),
    };
    CaseSpec::new(kind.name(), GLSL, [256, 1, 1])
        .defines([
            (kind.define(), "1"),
            ("CHAINS", &*chains),
            ("ITERATIONS", &*iterations),
            ("UNROLL", &*unroll),
            ("LANES", &*lanes),
        ])
        .defines((kind == Kind::Fp32Mediump).then_some(("MEDIUMP", "1")))
        .defines((kind == Kind::Fp16x2Mixed).then_some(("MIXED", "1")))
        .resource(Resource::storage_buffer((SEEDS * 4) as u64, fill_seeds))
        .push(constants(kind))
        .work([Work::new(ops, unit).bounded_by(ceiling)])
        .requires(requires)
        .reference(move |gid| reference(kind, gid))
}

fn expand(_env: &Env) -> Vec<CaseSpec> {
    Kind::ALL.map(case).to_vec()
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "peak arithmetic throughput: fp32, packed fp16 (f16vec2), fp64 FMA and int32 multiply-add",
            invocation: "16 independent chains of 1024 multiply-adds with run-time constants, so the compiler can \
                         neither fold nor merge them",
            rate: "FLOPS (an FMA is two operations; an f16vec2 FMA four) or IOPS",
        },
        name: "alu",
        order: 900,
        axes: &[],
        ratio_note: None,
        levels: false,
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader::spirv;

    #[test]
    fn the_compiled_loop_body_keeps_every_multiply_add() {
        // spirv-opt must neither fold nor merge the chains: the unrolled body holds CHAINS x UNROLL
        // of them (OpExtInst Fma for floats; OpIMul then OpIAdd for int32).
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        for kind in Kind::ALL {
            let spirv = compiler.compile(&case(kind)).unwrap();
            let count = spirv::instructions(&spirv)
                .filter(|i| match kind {
                    Kind::Int32 => i.opcode == spirv::OP_IMUL,
                    // Half the mixed chains multiply (OpFMul) instead of an FMA.
                    Kind::Fp16x2Mixed => {
                        (i.opcode == spirv::OP_EXT_INST && i.operands.get(3) == Some(&spirv::GLSL_FMA))
                            || i.opcode == spirv::OP_FMUL
                    }
                    _ => i.opcode == spirv::OP_EXT_INST && i.operands.get(3) == Some(&spirv::GLSL_FMA),
                })
                .count();
            // A few more for int32: the seed index computation multiplies too.
            let body = (kind.chains() * UNROLL) as usize;
            assert!(
                (body..body + 8).contains(&count),
                "{}: {count} multiply-adds in the SPIR-V",
                kind.name()
            );
        }
    }

    #[test]
    fn fp16_verify_values_stay_exact_in_half_precision() {
        // The largest chain value in a verify run must be an integer that fp16 represents.
        let largest = (0..SEEDS as u32).map(seed).fold(0.0, f32::max) + ITERATIONS as f32;
        assert!(largest <= 2048.0, "{largest} is not exact in fp16");
    }

    #[test]
    fn timing_and_verify_constants_differ_only_where_they_must() {
        let push = constants(Kind::Fp32);
        assert_eq!(push.verify, Push::words(&[1.0f32.to_bits(), 1.0f32.to_bits()]).verify);
        let a = f32::from_ne_bytes(push.time[0..4].try_into().unwrap());
        assert!(a < 1.0, "timing chains must converge, not grow");
        assert_eq!(ITERATIONS % UNROLL, 0);
    }

    #[test]
    fn reference_counts_every_step() {
        // gid 0 uses seeds 0..15 for fp32: sum(seed) + 16 * 1024.
        let seeds: f32 = (0..CHAINS).map(seed).sum();
        assert_eq!(reference(Kind::Fp32, 0), Value::F32(seeds + (CHAINS * ITERATIONS) as f32));
    }

    #[test]
    fn int32_reference_matches_the_closed_form() {
        // x -> 3x + 1, n times, is 3^n x + (3^n - 1) / 2; computed modulo 2^33 so the halving is exact.
        let modulus = 1u64 << 33;
        let pow = (0..ITERATIONS).fold(1u64, |p, _| p * 3 % modulus);
        let offset = ((pow + modulus - 1) % modulus / 2) as u32;
        let chain = |s: u32| (pow as u32).wrapping_mul(s).wrapping_add(offset);
        let gid = 5;
        let expected =
            (0..CHAINS).map(|k| chain(seed((gid * CHAINS + k) & 63) as u32)).fold(0u32, u32::wrapping_add);
        assert_eq!(reference(Kind::Int32, gid), Value::U32(expected));
    }
}
