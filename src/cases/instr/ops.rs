//! The operations of the instruction table: what one is (its chain step, seeds, run-time
//! constants, what the device must have) and how a verify run checks it (the Vulkan
//! specification's error bounds, on the seeds' path).

use super::{SEEDS, UNROLL};
use crate::caps::{Feature, Requirements};
use crate::registry::{Push, Resource, Value};
use ash::vk;

/// One ULP of a float in [1, 2).
pub(super) const ULP1: f64 = f32::EPSILON as f64;
/// One ULP of a float16_t in [1, 2).
pub(super) const HALF_ULP1: f64 = 1.0 / 1024.0;

/// The float type a chain holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Float {
    F32,
    F16,
    /// Two float16_t values in an f16vec2 (seeds `i` and `i + 1`); the invocation writes their sum.
    F16x2,
    /// A double, written rounded to float.
    F64,
}

/// One step of a chain as the CPU replays it (with the verify constants); what it takes says
/// what the chain holds.
#[derive(Clone, Copy)]
pub(super) enum Step {
    /// A float, replayed in f64.
    Float(Float, fn(f64, &Consts) -> f64),
    /// A word.
    Word(fn(u32, &Consts) -> u32),
    /// Two words in turn (`x, y -> y, x + y`).
    Pair(fn([u32; 2], &Consts) -> [u32; 2]),
    /// Two 64-bit words in turn; the invocation writes the second's halves XORed.
    Pair64(fn([u64; 2], &Consts) -> [u64; 2]),
    /// A word from the words of the invocation's group (its subgroup or workgroup): lane `l`'s
    /// next word from all the lanes' last ones.
    Lanes(fn(&[u32], usize, &Consts) -> u32),
}

/// The run-time constants `fa, fb, ua, ub` of one mode.
#[derive(Clone, Copy, Debug)]
pub(super) struct Consts {
    pub(super) fa: f32,
    pub(super) fb: f32,
    pub(super) ua: u32,
    pub(super) ub: u32,
}

pub(super) const NONE: Consts = Consts { fa: 0.0, fb: 0.0, ua: 0, ub: 0 };

/// What the device must have for an operation.
#[derive(Clone, Copy, Debug)]
pub(super) enum Needs {
    Nothing,
    Float16,
    Float64,
    Int64,
    /// Subgroup operations in compute shaders.
    Subgroup(vk::SubgroupFeatureFlags),
}

/// Which invocations one step reads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Scope {
    /// Its own.
    Invocation,
    /// Its subgroup's (shuffles, broadcasts, reductions).
    Subgroup,
    /// Its workgroup's (a barrier): latency only, in one workgroup of 256.
    Workgroup,
}

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
    /// Operations one step counts: 2 for an f16vec2 call and a conversion round trip, as CUDA's
    /// table counts them (results/instructions/).
    pub(super) per_step: u32,
    pub(super) needs: Needs,
    pub(super) scope: Scope,
    /// Whether the operation has a throughput case (not a barrier, nor a shared-memory atomic
    /// whose chains would contend).
    pub(super) throughput: bool,
    /// `fa` is one over the subgroup size in both modes (a float sum of the subgroup, scaled
    /// back: finite over any chain, and exact).
    pub(super) fa_per_lane: bool,
}

pub(super) fn floats(v: f32) -> u32 {
    v.to_bits()
}
pub(super) fn integers(i: u32) -> u32 {
    i
}
pub(super) fn unit_interval(i: u32) -> u32 {
    floats(i as f32 / 64.0)
}
pub(super) fn one_to_two(i: u32) -> u32 {
    floats(1.0 + i as f32 / 64.0)
}
pub(super) fn small_integers(i: u32) -> u32 {
    floats(i as f32)
}
pub(super) fn positive_integers(i: u32) -> u32 {
    floats(i as f32 + 1.0)
}
pub(super) fn above_two(i: u32) -> u32 {
    floats(i as f32 + 2.5)
}
pub(super) fn above_four(i: u32) -> u32 {
    floats(i as f32 + 4.0)
}
pub(super) fn eighths(i: u32) -> u32 {
    floats(i as f32 / 8.0)
}
pub(super) fn quarters_past(i: u32) -> u32 {
    floats(i as f32 + 1.25)
}
pub(super) fn scrambled(i: u32) -> u32 {
    i.wrapping_mul(0x9E37_79B9) ^ 0x5bd1_e995
}
pub(super) fn large(i: u32) -> u32 {
    0xF000_0000 | i.wrapping_mul(12_345)
}
pub(super) fn odd(i: u32) -> u32 {
    scrambled(i) | 1
}

/// A float operation on fp32.
#[allow(clippy::too_many_arguments)]
pub(super) const fn float_op(
    name: &'static str,
    define: &'static str,
    seed: fn(u32) -> u32,
    time: Consts,
    verify: Consts,
    verify_trips: u32,
    bound: f64,
    step_f: fn(f64, &Consts) -> f64,
) -> Op {
    Op {
        name,
        define,
        seed,
        time,
        verify,
        verify_trips,
        bound,
        step: Step::Float(Float::F32, step_f),
        per_step: 1,
        needs: Needs::Nothing,
        scope: Scope::Invocation,
        throughput: true,
        fa_per_lane: false,
    }
}

/// An integer operation, replayed exactly.
pub(super) const fn int_op(
    name: &'static str,
    define: &'static str,
    seed: fn(u32) -> u32,
    time: Consts,
    verify: Consts,
    step: Step,
) -> Op {
    Op {
        name,
        define,
        seed,
        time,
        verify,
        verify_trips: 1,
        bound: 0.0,
        step,
        per_step: 1,
        needs: Needs::Nothing,
        scope: Scope::Invocation,
        throughput: true,
        fa_per_lane: false,
    }
}

pub(super) const fn f(fa: f32, fb: f32) -> Consts {
    Consts { fa, fb, ua: 0, ub: 0 }
}
pub(super) const fn u(ua: u32, ub: u32) -> Consts {
    Consts { fa: 0.0, fb: 0.0, ua, ub }
}

/// Timing constants of the float chains: `x * 0.999 + 0.001` stays finite and normal.
pub(super) const FT: Consts = f(0.999, 0.001);

impl Op {
    /// The same operation on another float type (fp16, fp64).
    pub(super) const fn on(mut self, float: Float) -> Self {
        if let Step::Float(_, step) = self.step {
            self.step = Step::Float(float, step);
        }
        self
    }

    pub(super) const fn counting(mut self, per_step: u32) -> Self {
        self.per_step = per_step;
        self
    }

    pub(super) const fn needing(mut self, needs: Needs) -> Self {
        self.needs = needs;
        self
    }

    pub(super) const fn across(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    pub(super) const fn latency_only(mut self) -> Self {
        self.throughput = false;
        self
    }

    pub(super) const fn fa_per_lane(mut self) -> Self {
        self.fa_per_lane = true;
        self
    }

    /// Steps per chain in a verify run.
    pub(super) fn verify_steps(&self) -> u32 {
        1 + self.verify_trips * UNROLL
    }

    /// The push block after the header: trips, fa, fb, ua, ub. `lanes` is the subgroup size.
    pub(super) fn push(&self, time_trips: u32, lanes: u32) -> Push {
        let words = |trips: u32, c: &Consts| [trips, c.fa.to_bits(), c.fb.to_bits(), c.ua, c.ub];
        Push::per_mode(
            &words(time_trips, &self.consts(self.time, lanes)),
            &words(self.verify_trips, &self.consts(self.verify, lanes)),
        )
    }

    fn consts(&self, consts: Consts, lanes: u32) -> Consts {
        match self.fa_per_lane {
            true => Consts { fa: 1.0 / lanes as f32, ..consts },
            false => consts,
        }
    }

    /// What invocation `gid` of a verify run with `chains` chains writes: chain `gid % chains`.
    /// `group` is the number of invocations a step reads across (the subgroup or workgroup
    /// size; 1 for an operation on its own invocation's values).
    pub(super) fn reference(&self, gid: u32, chains: u32, group: u32) -> Value {
        let chain = gid % chains;
        let index = |g: u32| g.wrapping_mul(chains).wrapping_add(chain);
        let word = |i: u32| (self.seed)(i & (SEEDS - 1));
        let verify = self.consts(self.verify, group);
        let steps = self.verify_steps();
        match self.step {
            Step::Float(float, step) => {
                let run = |seed: u32| {
                    (0..steps).fold(f64::from(f32::from_bits(word(seed))), |x, _| step(x, &verify))
                };
                let (value, each) = match float {
                    Float::F16x2 => (run(index(gid)) + run(index(gid).wrapping_add(1)), 2.0),
                    _ => (run(index(gid)), 1.0),
                };
                let value = value as f32;
                if self.bound == 0.0 {
                    return Value::F32(value);
                }
                // The steps' errors, and the last rounding to f32.
                let bound = each * self.bound * f64::from(steps) + f64::from(value.abs()) * ULP1;
                Value::F32Within { value, bound: bound as f32 }
            }
            Step::Word(step) => Value::U32((0..steps).fold(word(index(gid)), |x, _| step(x, &verify))),
            Step::Pair(step) => {
                let start = [word(index(gid)), word(index(gid).wrapping_add(1))];
                Value::U32((0..steps).fold(start, |x, _| step(x, &verify))[1])
            }
            Step::Pair64(step) => {
                let wide = |i: u32| u64::from(word(i)) << 32 | u64::from(word(i.wrapping_add(7)));
                let start = [wide(index(gid)), wide(index(gid).wrapping_add(1))];
                let last = (0..steps).fold(start, |x, _| step(x, &verify))[1];
                Value::U32(last as u32 ^ (last >> 32) as u32)
            }
            Step::Lanes(step) => {
                // The group's lanes from its first invocation, each on the same chain.
                let first = gid - gid % group;
                let mut words: Vec<u32> = (first..first + group).map(|g| word(index(g))).collect();
                for _ in 0..steps {
                    words = (0..words.len()).map(|lane| step(&words, lane, &verify)).collect();
                }
                Value::U32(words[(gid - first) as usize])
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
    /// by one run-time constant (NVIDIA's folds 16 of them into one without NoContraction), and
    /// the conversions' adds (without it NVIDIA's drops the float16_t round trips, then folds
    /// the adds: 1913 "operations" per clock per SM on the H100).
    pub(super) fn precise(&self) -> Option<(&'static str, &'static str)> {
        let reassociable = ["OP_F32_ADD", "OP_F32_MUL", "OP_F32_FMA", "OP_F32_DIV", "OP_F32_RCP_ADD"]
            .iter()
            .chain(&["OP_F16_ADD", "OP_F16_FMA", "OP_F64_ADD", "OP_F64_FMA", "OP_F64_DIV"])
            .any(|d| *d == self.define);
        (reassociable || self.define.starts_with("OP_CVT_")).then_some(("PRECISE", "1"))
    }

    /// The GLSL's type define.
    pub(super) fn type_define(&self) -> (&'static str, &'static str) {
        let name = match self.step {
            Step::Float(Float::F32, _) => "TYPE_FLOAT",
            Step::Float(Float::F16, _) => "TYPE_HALF",
            Step::Float(Float::F16x2, _) => "TYPE_HALF2",
            Step::Float(Float::F64, _) => "TYPE_DOUBLE",
            Step::Word(_) | Step::Lanes(_) => "TYPE_UINT",
            Step::Pair(_) => "TYPE_UVEC2",
            Step::Pair64(_) => "TYPE_U64VEC2",
        };
        (name, "1")
    }

    /// The kind of operation the table groups it under (the cases' `class` label).
    pub(super) fn class(&self) -> &'static str {
        match (self.scope, self.step) {
            (Scope::Subgroup, _) => "subgroup",
            _ if self.scope == Scope::Workgroup || self.define.starts_with("OP_WG_") => "workgroup",
            _ if self.define.starts_with("OP_CVT_") => "conversion",
            (_, Step::Float(Float::F32, _)) => "fp32",
            (_, Step::Float(Float::F16 | Float::F16x2, _)) => "fp16",
            (_, Step::Float(Float::F64, _)) => "fp64",
            (_, Step::Pair64(_)) => "int64",
            _ => "int32",
        }
    }

    /// What the device must have.
    pub(super) fn requirements(&self) -> Requirements {
        let needs = Requirements::new();
        match self.needs {
            Needs::Nothing => needs,
            Needs::Float16 => needs.feature(Feature::ShaderFloat16),
            Needs::Float64 => needs.feature(Feature::ShaderFloat64),
            Needs::Int64 => needs.feature(Feature::ShaderInt64),
            Needs::Subgroup(operations) => needs.subgroup(operations),
        }
    }
}
