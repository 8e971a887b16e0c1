//! ALU throughput: fp32, packed fp16, fp64 FMA and int32 multiply-add, as independent chains.
//!
//! One chain of dependent FMAs measures latency; `CHAINS` independent chains per
//! invocation and thousands of invocations per SM measure throughput. Timing runs
//! use `x = x * 0.999 + 0.01`, which stays finite and normal; verify runs use
//! `a = 1, b = 1`, so each chain ends at `seed + ITERATIONS` exactly (even in fp16),
//! which proves that every step ran: the compiler cannot know `a` and `b`. bfloat16 has only 8
//! significant bits: its chains prove at least 449 of the 1024 steps (see `reference`).

use crate::caps::{Ceiling, Feature, FloatControl, Requirements};
use crate::registry::data::{random_word, Data};
use crate::registry::{self, CaseSpec, Env, Family, Glsl, Push, Resource, Unit, Value, Work};

/// Independent chains per invocation: 8 leave fp64 at 91% on an H100 (DFMA latency); 16 reach 99%.
const CHAINS: u32 = 16;
/// Multiply-adds per chain.
const ITERATIONS: u32 = 1024;
/// Chain steps per unrolled loop trip.
const UNROLL: u32 = 64;
/// Seeds in the seeds buffer (glsl/alu.glsl masks the index with SEED_MASK, 63).
const SEEDS: usize = 64;
/// Seeds on other data than the default: 4,096 invocations' worth, so that neighbouring warps'
/// chains differ too (with 64, invocations 4 apart hold the same chains, and a lane's FMA unit
/// taking one warp's chain after another's saw the same operands: on an H200 that made random
/// data's FMAs cost 10% less in a CUDA kernel whose warps ran in another order).
const DATA_SEEDS: usize = 65_536;
/// Invocations per workgroup, where the device allows them (fewer elsewhere).
const GROUP: u32 = 256;

const GLSL: Glsl = Glsl { file: "alu.glsl", source: include_str!("../../glsl/alu.glsl") };

/// Operations per invocation: CHAINS x ITERATIONS multiply-adds of two operations each.
const OPS: f64 = (CHAINS * ITERATIONS * 2) as f64;

/// The arithmetic types, and the attempts at full-rate fp16 (results/tensor/README.md).
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
    /// f16vec2 FMAs under the 16-bit float-controls execution modes.
    Fp16x2FloatControls,
    /// uint16_t multiply-add.
    Int16,
    /// uint64_t multiply-add.
    Int64,
    /// A packed 4x8-bit dot product with accumulate, signed or unsigned.
    Dot8 {
        signed: bool,
    },
    /// A bfloat16 multiply-add written as a dot product of bf16vec2 (bfloat16 has no other
    /// arithmetic in SPIR-V).
    Bf16Dot,
}

impl Kind {
    const ALL: [Kind; 14] = [
        Kind::Fp32,
        Kind::Fp16x2,
        Kind::Fp64,
        Kind::Int32,
        Kind::Fp16x4,
        Kind::Fp16x2Chains32,
        Kind::Fp16x2Mixed,
        Kind::Fp32Mediump,
        Kind::Fp16x2FloatControls,
        Kind::Int16,
        Kind::Int64,
        Kind::Dot8 { signed: true },
        Kind::Dot8 { signed: false },
        Kind::Bf16Dot,
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
            Kind::Fp16x2FloatControls => "ALU fp16 FMA (f16vec2, float controls)",
            Kind::Int16 => "ALU int16 multiply-add",
            Kind::Int64 => "ALU int64 multiply-add",
            Kind::Dot8 { signed: true } => "ALU int8 dot4 (dotPacked4x8, signed)",
            Kind::Dot8 { signed: false } => "ALU int8 dot4 (dotPacked4x8, unsigned)",
            Kind::Bf16Dot => "ALU bf16 multiply-add (bf16vec2 dot)",
        }
    }

    fn define(self) -> &'static str {
        match self {
            Kind::Fp32 | Kind::Fp32Mediump => "ALU_FP32",
            Kind::Fp16x2
            | Kind::Fp16x4
            | Kind::Fp16x2Chains32
            | Kind::Fp16x2Mixed
            | Kind::Fp16x2FloatControls => "ALU_FP16",
            Kind::Fp64 => "ALU_FP64",
            Kind::Int32 => "ALU_INT32",
            Kind::Int16 => "ALU_INT16",
            Kind::Int64 => "ALU_INT64",
            Kind::Dot8 { .. } => "ALU_DOT8",
            Kind::Bf16Dot => "ALU_BF16",
        }
    }

    /// Halves per fp16 vector (1 for the other types).
    fn lanes(self) -> u32 {
        match self {
            Kind::Fp16x2 | Kind::Fp16x2Chains32 | Kind::Fp16x2Mixed | Kind::Fp16x2FloatControls => 2,
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

/// The step below 1 of the chains' multiplier on other data than the default: 2^-24 in fp32,
/// 2^-11 in fp16.
fn epsilon(half: bool) -> f32 {
    2f32.powi(if half { -11 } else { -24 })
}

/// The chains' multiplier on other data than the default: 1 - [`epsilon`], every mantissa bit
/// set, so that the chains neither settle nor grow: each step takes about one unit in the last
/// place off the magnitude.
fn multiplier(half: bool) -> f32 {
    1.0 - epsilon(half)
}

/// `x` with its significand rounded to `fraction` bits after the point, to nearest with ties to
/// even (a normal result: the chains stay in fp16's and bfloat16's normal ranges).
fn round_significand(x: f64, fraction: u32) -> f64 {
    let drop = 52 - fraction;
    let bits = x.to_bits();
    let rounded = bits.wrapping_add((1u64 << (drop - 1)) - 1 + ((bits >> drop) & 1)) & !((1u64 << drop) - 1);
    f64::from_bits(rounded)
}

/// `x` rounded to fp16's 11 significant bits.
fn round_half(x: f64) -> f32 {
    round_significand(x, 10) as f32
}

/// One step `fma(x, a, b)` of a chain, rounded once as fp32 or fp16 computes it.
fn step(half: bool, x: f32, a: f32, b: f32) -> f32 {
    // The product of two fp32 values and a sum of like magnitude are exact in f64.
    let exact = f64::from(x) * f64::from(a) + f64::from(b);
    if half {
        round_half(exact)
    } else {
        exact as f32
    }
}

/// The constant data: a value `c` with dense bits (-5/3 rounded) and the addend `b = c *`
/// [`epsilon`] (exact) that keeps `fma(c, a, b) = c - c * epsilon + c * epsilon = c` exactly, a
/// being the [`multiplier`].
fn fixed_point(half: bool) -> (f32, f32) {
    let c = if half { round_half(-5.0 / 3.0) } else { -5.0f32 / 3.0 };
    (c, c * epsilon(half))
}

/// Seed `i` of `data` (fp16 seeds are exact in fp16): on random data a random sign, magnitude in
/// [1, 256) and mantissa.
fn data_seed(data: Data, half: bool, i: u32) -> f32 {
    match data {
        Data::Default => seed(i),
        Data::Zeros => 0.0,
        Data::Constant => fixed_point(half).0,
        Data::Random => {
            let w = random_word(i);
            let mantissa = w & if half { 0x007F_E000 } else { 0x007F_FFFF };
            f32::from_bits((w & 0x8000_0000) | ((127 + (w >> 23 & 7)) << 23) | mantissa)
        }
    }
}

fn fill_seeds(data: Data, half: bool) -> impl Fn(&mut [u8]) + Send + Sync + 'static {
    move |bytes: &mut [u8]| {
        for (i, chunk) in bytes.chunks_exact_mut(4).enumerate() {
            chunk.copy_from_slice(&data_seed(data, half, i as u32).to_ne_bytes());
        }
    }
}

/// The multiply-add constants `a` and `b` (params.a, params.b) of timing and verify runs on
/// `data`: on other data than the default, zeros, or the [`multiplier`] and the [`fixed_point`]'s
/// addend or zero; verify runs add 1 each step from the data's seeds.
fn constants(kind: Kind, data: Data) -> Push {
    let half = kind.lanes() > 1;
    let time = match data {
        Data::Default => return default_constants(kind),
        Data::Zeros => [0.0, 0.0],
        Data::Constant => [multiplier(half), fixed_point(half).1],
        Data::Random => [multiplier(half), 0.0],
    };
    Push::per_mode(&time.map(f32::to_bits), &[1.0f32, 1.0].map(f32::to_bits))
}

/// [`constants`] on the default data.
fn default_constants(kind: Kind) -> Push {
    // The narrow and wide integers and the dot products read the words' raw bits.
    let raw = match kind {
        // 16- and 64-bit LCG steps; verify: x -> 3x + 1.
        Kind::Int16 => Some(([25_173u32, 13_849], [3, 1])),
        Kind::Int64 => Some(([1_664_525, 1_013_904_223], [3, 1])),
        // Mixed-sign bytes; verify: byte 0 of x times 0xFF (-1 signed, 255 unsigned, so a
        // wrong signedness fails), the other bytes times 1, plus 1.
        Kind::Dot8 { .. } => Some(([0x03FD_07F9, 0x1_2345], [0x0101_01FF, 1])),
        _ => None,
    };
    if let Some((time, verify)) = raw {
        return Push::per_mode(&time, &verify);
    }
    let (time, verify) = match kind {
        // An LCG step: wraps, never settles; both constants are exact in f32. Verify: x -> 3x + 1.
        Kind::Int32 => ([1_664_525.0f32, 12_345.0], [3.0f32, 1.0]),
        // Converges to b / (1 - a) = 10: finite, normal, never the NaN sentinel (bfloat16 rounds
        // a to 1 and x + 0.01 to x from its negative seeds: the chains stay put, finite).
        // Verify: x -> x + 1.
        _ => ([0.999, 0.01], [1.0, 1.0]),
    };
    Push::per_mode(&time.map(f32::to_bits), &verify.map(f32::to_bits))
}

/// What bfloat16 chains subtract from their seeds (passed as the BF16_SEED_OFFSET define of
/// glsl/alu.glsl), so a verify chain climbs through 449 or more exact integers before it stops
/// at 256.
const BF16_SEED_OFFSET: f32 = 256.0;

/// `x` rounded to bfloat16's 8 significant bits, to nearest with ties to even.
fn bf16_round(x: f32) -> f32 {
    round_significand(f64::from(x), 7) as f32
}

/// What invocation `gid` of a verify run on other data than the default writes (fp32 and f16vec2
/// chains): each chain adds 1 a step to its seed, rounded as the GPU rounds; the sum of the chains
/// within its rounding.
fn data_reference(kind: Kind, data: Data, gid: u32) -> Value {
    let (lanes, half) = (kind.lanes(), kind.lanes() > 1);
    let ends = (0..CHAINS * lanes).map(|j| {
        let seed = data_seed(data, half, (gid * CHAINS * lanes + j) & (DATA_SEEDS as u32 - 1));
        (0..ITERATIONS).fold(seed, |x, _| step(half, x, 1.0, 1.0))
    });
    let (sum, magnitude) = ends.fold((0f64, 0f64), |(s, m), x| (s + f64::from(x), m + f64::from(x).abs()));
    Value::F32Within { value: sum as f32, bound: (magnitude * 2f64.powi(-18)) as f32 }
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
        Kind::Fp16x2
        | Kind::Fp16x4
        | Kind::Fp16x2Chains32
        | Kind::Fp16x2Mixed
        | Kind::Fp16x2FloatControls => {
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
        Kind::Int16 => Value::U32((0..CHAINS).fold(0u32, |total, k| {
            let x = (0..ITERATIONS)
                .fold(seed_at(gid * CHAINS + k) as u16, |x, _| x.wrapping_mul(3).wrapping_add(1));
            total.wrapping_add(u32::from(x))
        })),
        Kind::Int64 => Value::U32((0..CHAINS).fold(0u32, |total, k| {
            let x = (0..ITERATIONS)
                .fold(seed_at(gid * CHAINS + k) as u64, |x, _| x.wrapping_mul(3).wrapping_add(1));
            total.wrapping_add(x as u32 ^ (x >> 32) as u32)
        })),
        Kind::Dot8 { signed } => Value::U32((0..CHAINS).fold(0u32, |total, k| {
            let byte = |b: u8| if signed { i64::from(b as i8) } else { i64::from(b) };
            let weights = 0x0101_01FFu32.to_le_bytes();
            let step = |x: u32| -> u32 {
                let dot: i64 = x.to_le_bytes().iter().zip(weights).map(|(&b, w)| byte(b) * byte(w)).sum();
                (dot as u32).wrapping_add(1)
            };
            let x = (0..ITERATIONS).fold(seed_at(gid * CHAINS + k) as u32, |x, _| step(x));
            total.wrapping_add(x)
        })),
        Kind::Bf16Dot => {
            // x -> x * 1 + 1 * 1, rounded to bfloat16 (8 significant bits) each step, from seed -
            // 256: every integer from -256 to 256 is exact, and 257 rounds back to 256 (to even,
            // or by truncation). Every chain ends at 256, which takes at least 449 of the 1024
            // steps (512 minus the largest seed, 63).
            let step = |x: f32| bf16_round(x + 1.0);
            let start = |k: u32| seed_at(gid * CHAINS + k) - BF16_SEED_OFFSET;
            let total: f32 = (0..CHAINS).map(|k| (0..ITERATIONS).fold(start(k), |x, _| step(x))).sum();
            Value::F32(total)
        }
        Kind::Fp32 | Kind::Fp64 | Kind::Fp32Mediump => {
            let total: f32 = (0..CHAINS).map(|k| seed_at(gid * CHAINS + k) + ITERATIONS as f32).sum();
            Value::F32(total)
        }
    }
}

/// The case of `kind` on `data` in workgroups of `invocations` (its reference depends on the
/// invocation's global index only).
fn case(kind: Kind, data: Data, invocations: u32) -> CaseSpec {
    let (chains, iterations, unroll) =
        (format!("{}u", kind.chains()), format!("{ITERATIONS}u"), format!("{UNROLL}u"));
    let lanes = kind.lanes().to_string();
    // `{:?}` keeps the decimal point: a GLSL float literal.
    let bf16_offset = format!("{BF16_SEED_OFFSET:?}");
    // Every chain step is an FMA's two operations per lane (a mul+add counts the same).
    let ops = OPS * f64::from(kind.lanes()) * f64::from(kind.chains() / CHAINS);
    // A dot product with accumulate is 4 multiplies and 4 adds.
    let ops = if matches!(kind, Kind::Dot8 { .. }) { ops * 4.0 } else { ops };
    let fp16 = Requirements::new().feature(Feature::ShaderFloat16);
    let int = |feature| Requirements::new().feature(feature);
    let (unit, requires, ceiling) = match kind {
        Kind::Fp32 => (Unit::Flop, Requirements::new(), Some(Ceiling::Fp32Fma)),
        // mediump may run as fp16: the fp16 peak is the bound (the fp32 one could be passed honestly).
        Kind::Fp32Mediump => (Unit::Flop, Requirements::new(), Some(Ceiling::Fp16Fma)),
        Kind::Fp16x2 | Kind::Fp16x4 | Kind::Fp16x2Chains32 | Kind::Fp16x2Mixed => {
            (Unit::Flop, fp16, Some(Ceiling::Fp16Fma))
        }
        Kind::Fp16x2FloatControls => (
            Unit::Flop,
            fp16.float16_control(FloatControl::DenormFlushToZero16)
                .float16_control(FloatControl::SignedZeroInfNanPreserve16)
                .float16_control(FloatControl::RoundingModeRte16),
            Some(Ceiling::Fp16Fma),
        ),
        Kind::Fp64 => (Unit::Flop, int(Feature::ShaderFloat64), Some(Ceiling::Fp64Fma)),
        Kind::Int32 => (Unit::IntOp, Requirements::new(), Some(Ceiling::Int32Mad)),
        // Narrower and wider integers run on the int32 lanes: their rate is the bound.
        Kind::Int16 => (Unit::IntOp, int(Feature::ShaderInt16), Some(Ceiling::Int32Mad)),
        Kind::Int64 => (Unit::IntOp, int(Feature::ShaderInt64), Some(Ceiling::Int32Mad)),
        // No sourced peak for packed dot products: "peak unknown".
        Kind::Dot8 { .. } => (Unit::IntOp, int(Feature::ShaderIntegerDotProduct), None),
        // bfloat16 runs on the fp16 lanes: their rate is the bound. glslang declares Float16 in
        // bfloat16 shaders too.
        Kind::Bf16Dot => (
            Unit::Flop,
            fp16.feature(Feature::ShaderBfloat16Type).feature(Feature::ShaderBfloat16DotProduct),
            Some(Ceiling::Fp16Fma),
        ),
    };
    let work = Work::new(ops, unit);
    let seeds = if data == Data::Default { SEEDS } else { DATA_SEEDS };
    let seed_mask = format!("{}u", seeds - 1);
    CaseSpec::new(kind.name(), GLSL, [invocations, 1, 1])
        .narrowed_from(GROUP.into())
        .defines([
            (kind.define(), "1"),
            ("CHAINS", &*chains),
            ("ITERATIONS", &*iterations),
            ("UNROLL", &*unroll),
            ("LANES", &*lanes),
        ])
        .defines((kind == Kind::Fp32Mediump).then_some(("MEDIUMP", "1")))
        .defines((kind == Kind::Fp16x2Mixed).then_some(("MIXED", "1")))
        .defines((kind == Kind::Fp16x2FloatControls).then_some(("FLOAT_CONTROLS", "1")))
        .defines((kind == Kind::Bf16Dot).then_some(("BF16_SEED_OFFSET", bf16_offset.as_str())))
        .defines(match kind {
            Kind::Dot8 { signed } => Some(("SIGNED", if signed { "1" } else { "0" })),
            _ => None,
        })
        .defines((data != Data::Default).then_some(("SEED_MASK", seed_mask.as_str())))
        .resource(Resource::storage_buffer((seeds * 4) as u64, fill_seeds(data, kind.lanes() > 1)))
        .push(constants(kind, data))
        .work([ceiling.map_or(work, |c| work.bounded_by(c))])
        .requires(requires)
        .reference(move |gid| match data {
            Data::Default => reference(kind, gid),
            _ => data_reference(kind, data, gid),
        })
}

/// The kinds the energy table reads, which take the `data` axis.
const ON_DATA: [Kind; 2] = [Kind::Fp32, Kind::Fp16x2];

fn expand(env: &Env) -> Vec<CaseSpec> {
    let n = env.workgroup_width(GROUP);
    Kind::ALL
        .into_iter()
        .flat_map(|kind| match ON_DATA.contains(&kind) {
            true => Data::ALL.map(|data| case(kind, data, n).data(data)).to_vec(),
            false => vec![case(kind, Data::Default, n)],
        })
        .collect()
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "peak arithmetic throughput: fp32, packed fp16 (f16vec2), fp64 FMA and int32 multiply-add; \
                       the attempts at full-rate fp16; int16 and int64 multiply-add; packed int8 dot products; \
                       bfloat16 multiply-adds (as dot products)",
            invocation: "16 independent chains of 1024 multiply-adds with run-time constants, so the compiler can \
                         neither fold nor merge them",
            rate: "FLOPS (an FMA is two operations per lane: four for f16vec2, eight for f16vec4) or IOPS (a \
                   4x8-bit dot product with accumulate is eight)",
        },
        name: "alu",
        order: 900,
        axes: &[],
        ratio_note: None,
        levels: false,
        device_cases: false,
        quick: &["ALU fp32 FMA", "ALU fp16 FMA (f16vec2)", "ALU fp64 FMA", "ALU int32 multiply-add"],
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
        use rayon::prelude::*;
        // On every core: each unrolled body takes seconds to compile.
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        Kind::ALL.par_iter().for_each(|&kind| {
            let spirv = compiler.compile(&case(kind, Data::Default, GROUP)).unwrap();
            let count = spirv::instructions(&spirv)
                .filter(|i| match kind {
                    Kind::Int32 | Kind::Int16 | Kind::Int64 => i.opcode == spirv::OP_IMUL,
                    // OpSDotKHR, OpUDotKHR (SPV_KHR_integer_dot_product).
                    Kind::Dot8 { .. } => i.opcode == 4450 || i.opcode == 4451,
                    // OpDot.
                    Kind::Bf16Dot => i.opcode == 148,
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
        });
    }

    /// The operands of gid 0's chains in a timing run on `data`, step by step (16 chains, or 32
    /// f16vec2 lanes).
    fn timed_operands(kind: Kind, data: Data) -> Vec<Vec<f32>> {
        let push = constants(kind, data);
        let word = |i: usize| f32::from_ne_bytes(push.time[4 * i..4 * i + 4].try_into().unwrap());
        let (a, b, half) = (word(0), word(1), kind.lanes() > 1);
        let mut x: Vec<f32> = (0..CHAINS * kind.lanes()).map(|j| data_seed(data, half, j)).collect();
        let mut steps = vec![x.clone()];
        for _ in 0..ITERATIONS {
            x = x.iter().map(|&v| step(half, v, a, b)).collect();
            steps.push(x.clone());
        }
        steps
    }

    #[test]
    fn the_data_toggles_the_bits_its_name_says() {
        for (kind, least) in [(Kind::Fp32, 12.0), (Kind::Fp16x2, 5.0)] {
            // A lane's FMA unit takes one chain, then the next: the bits that differ between
            // neighbouring chains' operands toggle.
            let toggles = |data: Data| {
                let steps = timed_operands(kind, data);
                let pairs = steps
                    .iter()
                    .flat_map(|x| x.windows(2).map(|p| (p[0].to_bits() ^ p[1].to_bits()).count_ones()));
                let (sum, n) = pairs.fold((0u64, 0u64), |(s, n), d| (s + u64::from(d), n + 1));
                (sum as f64 / n as f64, steps)
            };
            let (zeros, steps) = toggles(Data::Zeros);
            assert_eq!(zeros, 0.0);
            assert!(steps.iter().flatten().all(|&v| v == 0.0));
            let (constant, steps) = toggles(Data::Constant);
            let c = fixed_point(kind.lanes() > 1).0;
            assert_eq!(constant, 0.0);
            assert!(steps.iter().flatten().all(|&v| v == c), "{c} is no fixed point");
            assert!(c.to_bits().count_ones() >= 10, "{c} has sparse bits");
            // Invocations a warp apart (32) hold other chains.
            let seeds = |gid: u32| (0..CHAINS).map(move |k| data_seed(Data::Random, false, gid * CHAINS + k));
            assert!(seeds(0).zip(seeds(32)).all(|(a, b)| a != b));
            let (random, steps) = toggles(Data::Random);
            assert!(random >= least, "{}: {random} bits toggle", kind.name());
            assert!(steps.last().unwrap().iter().all(|v| v.is_normal()));
            // The default (converging chains) lies between.
            let (default, _) = toggles(Data::Default);
            assert!(default > 0.0 && default < random, "{}: default {default}, random {random}", kind.name());
        }
    }

    #[test]
    fn data_verify_runs_count_every_step() {
        // A chain one step short is 1 below: beyond the bound.
        for kind in ON_DATA {
            for data in [Data::Zeros, Data::Constant, Data::Random] {
                let Value::F32Within { value, bound } = data_reference(kind, data, 1) else { panic!() };
                assert!(bound < 0.5 && value.is_finite(), "{}: {value} within {bound}", kind.name());
            }
        }
        let Value::F32Within { value, .. } = data_reference(Kind::Fp32, Data::Zeros, 0) else { panic!() };
        assert_eq!(value, (CHAINS * ITERATIONS) as f32);
    }

    #[test]
    fn fp16_verify_values_stay_exact_in_half_precision() {
        // The largest chain value in a verify run must be an integer that fp16 represents.
        let largest = (0..SEEDS as u32).map(seed).fold(0.0, f32::max) + ITERATIONS as f32;
        assert!(largest <= 2048.0, "{largest} is not exact in fp16");
    }

    #[test]
    fn timing_and_verify_constants_differ_only_where_they_must() {
        let push = constants(Kind::Fp32, Data::Default);
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
    fn bfloat16_rounds_to_nearest_even() {
        assert_eq!(bf16_round(255.0), 255.0);
        assert_eq!(bf16_round(257.0), 256.0);
        assert_eq!(bf16_round(259.0), 260.0);
        assert_eq!(bf16_round(1.0 + 1.0 / 512.0), 1.0);
        // Each chain climbs by 1 from seed - 256 to 256 and stays: 16 chains.
        assert_eq!(reference(Kind::Bf16Dot, 3), Value::F32(16.0 * 256.0));
        // The shader subtracts the same offset.
        let case = case(Kind::Bf16Dot, Data::Default, GROUP);
        let define = case.defines.iter().find(|(k, _)| k == "BF16_SEED_OFFSET").map(|(_, v)| v.as_str());
        assert_eq!(define, Some("256.0"));
        // 448 steps from the largest seed fall short of 256.
        let short = (0..448).fold(63.0 - BF16_SEED_OFFSET, |x, _| bf16_round(x + 1.0));
        assert_eq!(short, 255.0);
    }

    #[test]
    fn signed_and_unsigned_dot_products_verify_differently() {
        assert_ne!(reference(Kind::Dot8 { signed: true }, 0), reference(Kind::Dot8 { signed: false }, 0));
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
