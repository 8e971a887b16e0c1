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

mod ops;

use crate::registry::{self, CaseSpec, Env, Family, Glsl, Unit, Work};
use ops::{ops, Op};

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
    use crate::registry::Value;
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
            let ops::Step::Float(step) = op.step else { panic!("{}: a bound on words", op.name) };
            let chain = |steps: u32| (0..steps).fold(seed, |x, _| step(f64::from(x), &op.verify) as f32);
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
