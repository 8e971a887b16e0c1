//! ALU throughput: fp32, packed fp16, fp64 FMA and int32 multiply-add, as independent chains.
//!
//! One chain of dependent FMAs measures latency; `CHAINS` independent chains per
//! invocation and thousands of invocations per SM measure throughput. Timing runs
//! use `x = x * 0.999 + 0.01`, which stays finite and normal; verify runs use
//! `a = 1, b = 1`, so each chain ends at `seed + ITERATIONS` exactly (even in fp16),
//! which proves that every step ran: the compiler cannot know `a` and `b`.

use crate::registry::{Case, Family, Glsl, Mode, Params, Requirement, Resource, Unit, Value, Work};

/// Independent chains per invocation: 8 leave fp64 at 91% on an H100 (DFMA latency); 16 reach 99%.
const CHAINS: u32 = 16;
/// Multiply-adds per chain.
const ITERATIONS: u32 = 1024;
/// Seeds in the seeds buffer (glsl/alu.glsl masks the index with 63).
const SEEDS: usize = 64;

const FP32: u32 = 0;
const FP16X2: u32 = 1;
const FP64: u32 = 2;
const INT32: u32 = 3;

/// Operations per invocation: CHAINS x ITERATIONS multiply-adds of two operations each.
const OPS: f64 = (CHAINS * ITERATIONS * 2) as f64;

macro_rules! defines {
    ($ty:literal) => {
        &[($ty, "1"), ("CHAINS", "16u"), ("ITERATIONS", "1024u"), ("UNROLL", "64u")]
    };
}

static CASES: [Case; 4] = [
    Case {
        name: "ALU fp32 FMA",
        defines: defines!("ALU_FP32"),
        work: &[Work { per_invocation: OPS, unit: Unit::Flop }],
        requires: &[],
        variant: FP32,
    },
    Case {
        name: "ALU fp16 FMA (f16vec2)",
        defines: defines!("ALU_FP16"),
        work: &[Work { per_invocation: 2.0 * OPS, unit: Unit::Flop }],
        requires: &[Requirement::ShaderFloat16],
        variant: FP16X2,
    },
    Case {
        name: "ALU fp64 FMA",
        defines: defines!("ALU_FP64"),
        work: &[Work { per_invocation: OPS, unit: Unit::Flop }],
        requires: &[Requirement::ShaderFloat64],
        variant: FP64,
    },
    Case {
        name: "ALU int32 multiply-add",
        defines: defines!("ALU_INT32"),
        work: &[Work { per_invocation: OPS, unit: Unit::IntOp }],
        requires: &[],
        variant: INT32,
    },
];

/// Seed `i`: the integers 0..63 in a scrambled order.
fn seed(i: u32) -> f32 {
    ((i as usize * 37) % SEEDS) as f32
}

fn fill_seeds(bytes: &mut [u8]) {
    for (i, chunk) in bytes.chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&seed(i as u32).to_ne_bytes());
    }
}

fn params(case: &Case, mode: Mode) -> Params {
    let (a, b) = match (mode, case.variant) {
        (Mode::Verify, INT32) => (3.0, 1.0),
        (Mode::Verify, _) => (1.0, 1.0),
        // An LCG step: wraps, never settles; both constants are exact in f32.
        (Mode::Time, INT32) => (1_664_525.0, 12_345.0),
        // Converges to b / (1 - a) = 10: finite, normal, never the NaN sentinel.
        (Mode::Time, _) => (0.999, 0.01),
    };
    Params {
        write_enable: u32::from(mode == Mode::Verify),
        sentinel: u32::MAX,
        f: [a, b, 0.0, 0.0],
        ..Params::default()
    }
}

/// What invocation `gid` of a verify run writes.
fn reference(case: &Case, gid: u32) -> Value {
    let seed_at = |i: u32| seed(i & 63);
    match case.variant {
        INT32 => {
            let total = (0..CHAINS).fold(0u32, |total, k| {
                let mut x = seed_at(gid * CHAINS + k) as u32;
                for _ in 0..ITERATIONS {
                    x = x.wrapping_mul(3).wrapping_add(1);
                }
                total.wrapping_add(x)
            });
            Value::U32(total)
        }
        FP16X2 => {
            // Each lane ends at seed + ITERATIONS: at most 1087, exact in fp16.
            let total: f32 = (0..CHAINS)
                .map(|k| {
                    let i = gid * CHAINS + k;
                    (seed_at(2 * i) + ITERATIONS as f32) + (seed_at(2 * i + 1) + ITERATIONS as f32)
                })
                .sum();
            Value::F32(total)
        }
        _ => {
            let total: f32 = (0..CHAINS).map(|k| seed_at(gid * CHAINS + k) + ITERATIONS as f32).sum();
            Value::F32(total)
        }
    }
}

inventory::submit! {
    Family {
        name: "alu",
        order: 900,
        glsl: Glsl { file: "alu.glsl", source: include_str!("../../glsl/alu.glsl") },
        local_size: [256, 1, 1],
        resources: &[Resource::StorageBuffer { bytes: (SEEDS * 4) as u64, fill: fill_seeds }],
        cases: &CASES,
        params,
        reference,
        baseline: None,
        sweep: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shader_defines_match_the_reference_constants() {
        for case in &CASES {
            let get = |name: &str| {
                let (_, value) = case.defines.iter().find(|(n, _)| *n == name).unwrap();
                value.trim_end_matches('u').parse::<u32>().unwrap()
            };
            assert_eq!(get("CHAINS"), CHAINS, "{}", case.name);
            assert_eq!(get("ITERATIONS"), ITERATIONS, "{}", case.name);
            assert_eq!(ITERATIONS % get("UNROLL"), 0, "{}", case.name);
        }
    }

    /// Counts the instructions with `opcode` (and, for OpExtInst, GLSL.std.450 number `ext`).
    fn count_ops(spirv: &[u32], opcode: u32, ext: Option<u32>) -> usize {
        let mut count = 0;
        let mut at = 5; // after the header
        while at < spirv.len() {
            let (words, op) = ((spirv[at] >> 16) as usize, spirv[at] & 0xFFFF);
            if op == opcode && ext.is_none_or(|e| spirv.get(at + 4) == Some(&e)) {
                count += 1;
            }
            at += words.max(1);
        }
        count
    }

    #[test]
    fn the_compiled_loop_body_keeps_every_multiply_add() {
        // spirv-opt must neither fold nor merge the chains: the unrolled body holds CHAINS x UNROLL
        // of them (OpExtInst Fma = 12/50; OpIMul = 132 then OpIAdd = 128 for int32).
        const OP_EXT_INST: u32 = 12;
        const FMA: u32 = 50;
        const OP_IMUL: u32 = 132;
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        let family =
            crate::registry::templates().into_iter().find(|s| s.family.name == "alu").unwrap().family;
        for case in &CASES {
            let spirv = compiler.compile(family, case).unwrap();
            let count = match case.variant {
                INT32 => count_ops(&spirv, OP_IMUL, None),
                _ => count_ops(&spirv, OP_EXT_INST, Some(FMA)),
            };
            // A few more for int32: the seed index computation multiplies too.
            let body = (CHAINS * 64) as usize;
            assert!((body..body + 8).contains(&count), "{}: {count} multiply-adds in the SPIR-V", case.name);
        }
    }

    #[test]
    fn fp16_verify_values_stay_exact_in_half_precision() {
        // The largest chain value in a verify run must be an integer that fp16 represents.
        let largest = (0..SEEDS as u32).map(seed).fold(0.0, f32::max) + ITERATIONS as f32;
        assert!(largest <= 2048.0, "{largest} is not exact in fp16");
    }

    #[test]
    fn timing_and_verify_parameters_differ_only_where_they_must() {
        let fp32 = &CASES[0];
        let time = params(fp32, Mode::Time);
        let verify = params(fp32, Mode::Verify);
        assert_eq!((time.write_enable, verify.write_enable), (0, 1));
        assert_eq!(verify.f[..2], [1.0, 1.0]);
        assert!(time.f[0] < 1.0, "timing chains must converge, not grow");
    }

    #[test]
    fn reference_counts_every_step() {
        // gid 0 uses seeds 0..7 for fp32: sum(seed) + 8 * 1024.
        let seeds: f32 = (0..CHAINS).map(seed).sum();
        assert_eq!(reference(&CASES[0], 0), Value::F32(seeds + (CHAINS * ITERATIONS) as f32));
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
        assert_eq!(reference(&CASES[3], gid), Value::U32(expected));
    }
}
