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

mod convert;
mod lanes;
mod ops;
mod scalar;
mod wide;

use crate::caps::{Ceiling, Feature};
use crate::registry::{self, CaseSpec, Env, Family, Glsl, Unit, Work};
use ops::{Op, Scope};

/// The operations, in table order.
fn ops() -> Vec<Op> {
    let mut ops = scalar::ops();
    ops.extend(wide::ops());
    ops.extend(convert::ops());
    ops.extend(lanes::ops());
    ops
}

const GLSL: Glsl = Glsl { file: "instr.glsl", source: include_str!("../../../glsl/instr.glsl") };

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

/// How many invocations one of `op`'s steps reads across, in workgroups of `invocations`.
fn group(op: &Op, invocations: u32, lanes: u32) -> u32 {
    match op.scope {
        Scope::Invocation => 1,
        Scope::Subgroup => lanes,
        Scope::Workgroup => invocations,
    }
}

/// `op`'s throughput case in workgroups of `invocations`, on a device of `lanes` per subgroup.
fn throughput(op: Op, invocations: u32, lanes: u32) -> CaseSpec {
    let steps = 1 + TRIPS * UNROLL;
    let (chains, unroll) = (CHAINS.to_string(), UNROLL.to_string());
    let name = format!("Instr {} throughput", op.name);
    let group = group(&op, invocations, lanes);
    // A step of one operation is at least one instruction: faster than issue, the compiler
    // shortened the chain. (A step of two, a vector or a round trip, may be one instruction.)
    let work = Work::new(f64::from(CHAINS * steps * op.per_step), Unit::Op);
    let work = if op.per_step == 1 { work.bounded_by(Ceiling::Issue) } else { work };
    // A subgroup operation's workgroup is one subgroup by choice, not a device's limit.
    let wanted = if op.scope == Scope::Subgroup { invocations } else { GROUP };
    let case = CaseSpec::new(name, GLSL, [invocations, 1, 1])
        .variant(op.name)
        .label("class", op.class())
        .label("measure", "throughput")
        .narrowed_from(wanted.into())
        .defines([(op.define, "1"), op.type_define(), ("CHAINS", &*chains), ("UNROLL", &*unroll)])
        .defines(op.precise())
        .requires(op.requirements())
        .resource(op.seeds())
        .push(op.push(TRIPS, lanes))
        .work([work])
        .group("instr throughput")
        .baseline(FMA);
    case.reference(move |gid| op.reference(gid, CHAINS, group))
}

/// `op`'s latency case: one chain in one workgroup of `width` invocations (one subgroup, or 256
/// for a barrier), timed by the shader clock too where the device has one (`clocked`).
fn latency(op: Op, width: u32, lanes: u32, clocked: bool) -> CaseSpec {
    let unroll = UNROLL.to_string();
    let group = group(&op, width, lanes);
    let per_step = f64::from(op.per_step);
    let case = CaseSpec::new(format!("Instr {} latency", op.name), GLSL, [width, 1, 1])
        .variant(op.name)
        .label("class", op.class())
        .label("measure", "latency")
        .defines([(op.define, "1"), op.type_define(), ("CHAINS", "1"), ("UNROLL", &*unroll)])
        .defines(op.precise())
        .requires(op.requirements())
        .resource(op.seeds())
        .push(op.push(1, lanes))
        .scale_by_push_word(0)
        // UNROLL steps per trip, each taken by the workgroup's invocations together, and counted
        // per invocation; the step before the loop adds one per dispatch (under 0.01% at 20 ms).
        .work([Work::new(f64::from(UNROLL) * per_step / f64::from(width), Unit::DependentOp)])
        .group("instr latency");
    // A barrier's workgroup is 256 where the device allows it.
    let case = if op.scope == Scope::Workgroup { case.narrowed_from(GROUP.into()) } else { case };
    let case = if clocked { case.chain_clock() } else { case };
    case.reference(move |gid| op.reference(gid, 1, group))
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let invocations = env.workgroup_width(GROUP);
    let lanes = env.device.map_or(32, |d| d.subgroup_size.max(1));
    let one_subgroup = env.workgroup_width(lanes.next_power_of_two());
    let clocked = env.device.is_some_and(|d| d.features.get(Feature::ShaderSubgroupClock));
    // A subgroup operation's throughput runs in workgroups of one subgroup, so the CPU's replay
    // knows which invocations share one: lavapipe runs a 256-wide workgroup in subgroups of 8
    // whatever size it reports (4 or 16).
    let mut cases: Vec<CaseSpec> = ops()
        .into_iter()
        .filter(|op| op.throughput)
        .map(|op| {
            let width = if op.scope == Scope::Subgroup { one_subgroup } else { invocations };
            throughput(op, width, lanes)
        })
        .collect();
    cases.extend(ops().into_iter().map(|op| {
        let width = if op.scope == Scope::Workgroup { invocations } else { one_subgroup };
        latency(op, width, lanes, clocked)
    }));
    cases
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "each shader operation's throughput and latency (an instruction table): fp32 arithmetic and \
                       transcendentals, integer arithmetic, division and bit operations, fp16, fp64, int64, \
                       conversions, subgroup operations, a barrier and a shared atomic",
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
    use crate::registry::Value;
    use crate::shader::spirv;

    /// The SPIR-V instruction that is the operation: a core opcode, or a GLSL.std.450 one.
    #[derive(Clone, Copy)]
    enum Opcode {
        Core(u32),
        Glsl(u32),
    }

    /// The operation's SPIR-V instruction, and how many of it one step holds.
    fn opcode(define: &str) -> (Opcode, u32) {
        use Opcode::{Core, Glsl};
        let opcode = match define {
            "OP_F32_ADD" | "OP_F16_ADD" | "OP_F64_ADD" => Core(129),
            "OP_F32_MUL" => Core(133),
            "OP_F32_FMA" | "OP_F16_FMA" | "OP_F64_FMA" => Glsl(50),
            "OP_F32_EXP2" | "OP_F16_EXP2" => Glsl(29),
            "OP_F32_LOG2" => Glsl(30),
            "OP_F32_EXP" => Glsl(27),
            "OP_F32_LOG" => Glsl(28),
            "OP_F32_SIN" => Glsl(13),
            "OP_F32_COS" => Glsl(14),
            "OP_F32_INVERSESQRT" | "OP_F16_INVERSESQRT" => Glsl(32),
            "OP_F32_SQRT" | "OP_F64_SQRT" => Glsl(31),
            "OP_F32_RCP_ADD" | "OP_F32_DIV" | "OP_F64_DIV" => Core(136),
            "OP_F32_POW" => Glsl(26),
            "OP_F32_ATAN" => Glsl(18),
            "OP_F32_FRACT" => Glsl(10),
            "OP_F32_MIN" => Glsl(37),
            "OP_F32_MAX" => Glsl(40),
            "OP_F32_CLAMP" => Glsl(43),
            "OP_U32_ADD" | "OP_U64_ADD" => Core(128),
            "OP_U32_MUL" | "OP_U32_MAD" | "OP_U64_MUL" => Core(132),
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
            "OP_CVT_INT_ADD" => Core(110),
            "OP_CVT_UINT_ADD" => Core(109),
            // To float16_t and back: two FConvert.
            "OP_CVT_HALF_ADD" => return (Core(115), 2),
            "OP_CVT_PACKHALF_ADD" => Glsl(58),
            "OP_CVT_PACKUNORM_ADD" => Glsl(55),
            "OP_SG_SHUFFLE" => Core(345),
            "OP_SG_SHUFFLE_XOR" => Core(346),
            "OP_SG_BROADCAST_ADD" => Core(337),
            "OP_SG_BROADCAST_FIRST_ADD" => Core(338),
            "OP_SG_BALLOT_ADD" => Core(339),
            "OP_SG_ALL_ADD" => Core(334),
            "OP_SG_ADD_UINT_ADD" | "OP_SG_INCLUSIVE_ADD" => Core(349),
            "OP_SG_ADD_FLOAT_FMA" => Core(350),
            "OP_SG_MIN_ADD" => Core(354),
            "OP_WG_BARRIER" => Core(224),
            "OP_WG_SHARED_ATOMIC_ADD" => Core(234),
            other => panic!("no opcode for {other}"),
        };
        (opcode, 1)
    }

    /// An operation's throughput case, or its latency case where it has no throughput case, and
    /// the chains the case runs.
    fn timed(op: Op) -> (CaseSpec, u32) {
        match op.throughput {
            true => (throughput(op, GROUP, 32), CHAINS),
            false => (latency(op, GROUP, 32, false), 1),
        }
    }

    #[test]
    fn every_chain_compiles_with_one_operation_per_step() {
        // The loop body holds chains x UNROLL steps and the step before it one per chain: as
        // many of the operation's own SPIR-V instruction survive spirv-opt (nothing folded).
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        for op in ops() {
            let name = op.name;
            let (opcode, each) = opcode(op.define);
            let (case, chains) = timed(op);
            let spirv = compiler.compile(&case).unwrap();
            let count = spirv::instructions(&spirv)
                .filter(|i| match opcode {
                    Opcode::Core(code) => i.opcode == code,
                    Opcode::Glsl(code) => i.opcode == spirv::OP_EXT_INST && i.operands.get(3) == Some(&code),
                })
                .count() as u32;
            // A few more where the index arithmetic or the written value uses the same
            // instruction (IAdd, IMul, FAdd: int64's seeds take 18 adds), or the shared
            // atomic's start waits at a barrier.
            let steps = chains * (UNROLL + 1) * each;
            assert!(
                (steps..steps + 24).contains(&count),
                "{name}: {count} of its instruction, {steps} steps"
            );
        }
    }

    #[test]
    fn every_float_step_is_precise() {
        // NoContraction (OpDecorate 71, decoration 42) on each step's instruction: without it
        // NVIDIA's driver folds `x + b` 16 times into one add (906 "adds" per clock per SM).
        let compiler = crate::shader::ShaderCompiler::new().unwrap();
        let reassociable =
            ["OP_F32_ADD", "OP_F32_MUL", "OP_F32_DIV", "OP_F16_ADD", "OP_F64_ADD", "OP_F64_DIV"];
        for op in ops().into_iter().filter(|o| reassociable.contains(&o.define)) {
            let name = op.name;
            let spirv = compiler.compile(&throughput(op, GROUP, 32)).unwrap();
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
        assert_eq!(find("fp32 add").reference(3, CHAINS, 1), Value::F32(27.0 + 17.0));
        // fp32 mul by 2, 17 times, from 28.
        assert_eq!(find("fp32 mul").reference(3, CHAINS, 1), Value::F32(28.0 * 131_072.0));
        // min(-x, 100) 17 times from 27 is -27; clamp the same.
        assert_eq!(find("fp32 min").reference(3, CHAINS, 1), Value::F32(-27.0));
        assert_eq!(find("fp32 clamp").reference(3, CHAINS, 1), Value::F32(-27.0));
        // Division by 3, 17 times, of a word at least 0xF0000000: still above zero.
        let Value::U32(quotient) = find("uint32 / (run-time)").reference(0, CHAINS, 1) else { panic!() };
        assert_eq!(quotient, 0xF000_0000 / 3u32.pow(17));
        assert_ne!(quotient, 0, "the chain must end away from zero, or a lost step would not show");
    }

    #[test]
    fn a_chain_rounded_each_step_meets_the_bounded_references() {
        // Rust's f32 functions err by an ULP or so, far inside the specification: each bounded
        // chain run in its own type (rounded to f32, or to float16_t, each step), as a
        // conformant GPU might, must match its reference. (These chains check the operation's
        // values; that every step ran is the compiled code's to show: the SPIR-V test above and
        // the driver's statistics.)
        for op in ops().into_iter().filter(|o| o.bound > 0.0) {
            let reference = op.reference(5, CHAINS, 1);
            let ops::Step::Float(float, step) = op.step else { panic!("{}: a bound on words", op.name) };
            let round = |x: f64| match float {
                ops::Float::F16 | ops::Float::F16x2 => half(x as f32),
                ops::Float::F32 | ops::Float::F64 => x as f32,
            };
            let chain = |seed_index: u32| {
                let seed = f32::from_bits((op.seed)(seed_index & (SEEDS - 1)));
                (0..op.verify_steps()).fold(seed, |x, _| round(step(f64::from(x), &op.verify)))
            };
            let value = match float {
                ops::Float::F16x2 => chain(5 * CHAINS + 5) + chain(5 * CHAINS + 6),
                _ => chain(5 * CHAINS + 5),
            };
            let Value::F32Within { bound, .. } = reference else { panic!("{}", op.name) };
            assert!(bound > 0.0 && bound < 0.05, "{}: bound {bound}", op.name);
            assert!(reference.matches(value.to_bits()), "{}: {value} against {reference}", op.name);
        }
    }

    /// `x` rounded to float16_t's 11 significant bits, to nearest with ties to even (normal
    /// values only: the verify paths stay in [2^-14, 2^15)).
    fn half(x: f32) -> f32 {
        assert!((6.2e-5..32768.0).contains(&x.abs()), "{x} is not a normal float16_t");
        let bits = x.to_bits();
        f32::from_bits(bits.wrapping_add(0xFFF + ((bits >> 13) & 1)) & !0x1FFF)
    }

    #[test]
    fn subgroup_references_replay_the_lanes() {
        let ops = ops();
        let find = |name: &str| ops.iter().find(|o| o.name == name).unwrap();
        let word = |op: &Op, gid: u32| (op.seed)(gid & (SEEDS - 1));
        // 17 shuffles from lane l ^ 1: the neighbour's seed, in a subgroup of any size.
        for lanes in [4, 32] {
            let shuffle = find("subgroupShuffle");
            assert_eq!(shuffle.reference(6, 1, lanes), Value::U32(word(shuffle, 7)));
        }
        // Inclusive adds over 4 lanes: lane 0 keeps its seed; lane 1 adds lane 0's 17 times.
        let scan = find("subgroupInclusiveAdd uint");
        assert_eq!(scan.reference(4, 1, 4), Value::U32(word(scan, 4)));
        let expected = word(scan, 5).wrapping_add(word(scan, 4).wrapping_mul(17));
        assert_eq!(scan.reference(5, 1, 4), Value::U32(expected));
        // The float mean over 4 lanes of 0..3, then + lane: step n leaves lane l 1.5 + 1.5 (n - 1) + l.
        let mean = find("subgroupAdd float (+ fma)");
        assert_eq!(mean.reference(2, 1, 4), Value::U32((1.5f32 * 17.0 + 2.0).to_bits()));
        // The barrier's exchange across a workgroup of 256, and the atomic's x + 64.
        let barrier = find("barrier() with shared memory");
        assert_eq!(barrier.reference(200, 1, 256), Value::U32(word(barrier, 201)));
        let atomic = find("shared atomicAdd");
        assert_eq!(atomic.reference(9, 1, 1), Value::U32(9 + 17 * 64));
    }

    #[test]
    fn push_blocks_carry_trips_first() {
        let op = ops().into_iter().find(|o| o.name == "fp32 sin").unwrap();
        let push = op.push(TRIPS, 32);
        assert_eq!(u32::from_ne_bytes(push.time[0..4].try_into().unwrap()), TRIPS);
        assert_eq!(u32::from_ne_bytes(push.verify[0..4].try_into().unwrap()), 1);
        assert_eq!(push.time.len(), 20);
    }
}
