// instr.glsl: one shader operation's throughput or latency (src/cases/instr/). CHAINS chains of
// `x = STEP(x)` per invocation: one step, then `trips` times UNROLL steps. Throughput cases run
// 8 chains in workgroups of 256; latency cases one chain in one subgroup, `trips` scaled to the
// target. A verify run's trips (0 or 1) keep the chain where the CPU can bound its error
// (docs/design/instructions.md). Each invocation writes chain `gid % CHAINS`: a choice made at
// run time, so every chain stays live, and across invocations every chain is checked.
//
// A step is the operation with only a free source modifier (-x, abs(x)) around it, or paired
// with a cheap operation named in the case where the operation alone would fold (idempotent,
// associative or its own inverse).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if defined(TYPE_HALF) || defined(TYPE_HALF2) || defined(OP_CVT_HALF_ADD)
    #extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
#if defined(TYPE_U64VEC2)
    #extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
#ifdef SHADER_CLOCK
    #extension GL_ARB_shader_clock : require
#endif
#if defined(OP_SG_SHUFFLE) || defined(OP_SG_SHUFFLE_XOR)
    #extension GL_KHR_shader_subgroup_shuffle : require
#elif defined(OP_SG_BROADCAST_ADD) || defined(OP_SG_BROADCAST_FIRST_ADD) || defined(OP_SG_BALLOT_ADD)
    #extension GL_KHR_shader_subgroup_ballot : require
#elif defined(OP_SG_ALL_ADD)
    #extension GL_KHR_shader_subgroup_vote : require
#elif defined(OP_SG_ADD_UINT_ADD) || defined(OP_SG_ADD_FLOAT_FMA) || defined(OP_SG_INCLUSIVE_ADD) || defined(OP_SG_MIN_ADD)
    #extension GL_KHR_shader_subgroup_arithmetic : require
#endif
// fa, fb, ua, ub: run-time constants the compiler cannot fold; their values per mode are in
// src/cases/instr/ops.rs.
#define FAMILY_PARAMS uint trips; float fa; float fb; uint ua; uint ub;
#include "common.glsl"

// 64 seeds, as raw words (floats or integers, as the operation needs).
layout(set = 0, binding = 1, std430) readonly buffer Seeds { uint seeds[]; };

#if defined(TYPE_U64VEC2)
    // Two 64-bit words in turn, each from two seeds; written as the second's halves XORed.
    #define W64(i) ((uint64_t(seeds[(i) & 63u]) << 32) | uint64_t(seeds[((i) + 7u) & 63u]))
    #define T u64vec2
    #define SEED(i) u64vec2(W64(i), W64((i) + 1u))
    #define BITS(v) (uint((v).y) ^ uint((v).y >> 32))
#elif defined(TYPE_HALF)
    #define T float16_t
    #define SEED(i) float16_t(uintBitsToFloat(seeds[(i) & 63u]))
    #define BITS(x) floatBitsToUint(float(x))
#elif defined(TYPE_HALF2)
    // Seeds i and i + 1; written as the two values' sum (exact in fp32 on the verify paths).
    #define T f16vec2
    #define SEED(i) f16vec2(uintBitsToFloat(seeds[(i) & 63u]), uintBitsToFloat(seeds[((i) + 1u) & 63u]))
    #define BITS(v) floatBitsToUint(float((v).x) + float((v).y))
#elif defined(TYPE_DOUBLE)
    #define T double
    #define SEED(i) double(uintBitsToFloat(seeds[(i) & 63u]))
    #define BITS(x) floatBitsToUint(float(x))
#elif defined(TYPE_UVEC2)
    // Two words in turn (x, y -> y, x + y): integer adds that no reassociation can merge.
    #define T uvec2
    #define SEED(i) uvec2(seeds[(i) & 63u], seeds[((i) + 1u) & 63u])
    #define BITS(x) (x).y
#elif defined(TYPE_UINT)
    #define T uint
    #define SEED(i) seeds[(i) & 63u]
    #define BITS(x) (x)
#else
    #define T float
    #define SEED(i) uintBitsToFloat(seeds[(i) & 63u])
    #define BITS(x) floatBitsToUint(x)
#endif

#define fa params.fa
#define fb params.fb
#define ua params.ua
#define ub params.ub

#if defined(OP_F32_ADD)
    #define STEP(x) ((x) + fb)
#elif defined(OP_F32_MUL)
    #define STEP(x) ((x) * fa)
#elif defined(OP_F32_FMA)
    #define STEP(x) fma(x, fa, fb)
#elif defined(OP_F32_EXP2)
    #define STEP(x) exp2(-abs(x))
#elif defined(OP_F32_LOG2)
    #define STEP(x) log2(abs(x))
#elif defined(OP_F32_EXP)
    #define STEP(x) exp(-abs(x))
#elif defined(OP_F32_LOG)
    #define STEP(x) log(abs(x))
#elif defined(OP_F32_SIN)
    #define STEP(x) sin(x)
#elif defined(OP_F32_COS)
    #define STEP(x) cos(x)
#elif defined(OP_F32_INVERSESQRT)
    #define STEP(x) inversesqrt(abs(x))
#elif defined(OP_F32_SQRT)
    #define STEP(x) sqrt(abs(x))
#elif defined(OP_F32_RCP_ADD)
    #define STEP(x) (1.0 / (x) + fb)
#elif defined(OP_F32_DIV)
    #define STEP(x) (fa / (x))
#elif defined(OP_F32_POW)
    #define STEP(x) pow(abs(x), fa)
#elif defined(OP_F32_ATAN)
    #define STEP(x) atan(x)
#elif defined(OP_F32_FRACT)
    #define STEP(x) fract(x)
#elif defined(OP_F32_MIN)
    #define STEP(x) min(-(x), fa)
#elif defined(OP_F32_MAX)
    #define STEP(x) max(-(x), fb)
#elif defined(OP_F32_CLAMP)
    #define STEP(x) clamp(-(x), fb, fa)
#elif defined(OP_U32_ADD)
    #define STEP(v) uvec2((v).y, (v).x + (v).y)
#elif defined(OP_U32_MUL)
    // Two words in turn (x, y -> y, x * y): a run-time constant's powers would fold 16 steps
    // into one (llvmpipe does).
    #define STEP(v) uvec2((v).y, (v).x * (v).y)
#elif defined(OP_U32_MAD)
    #define STEP(x) ((x) * ua + ub)
#elif defined(OP_U32_DIV)
    #define STEP(x) ((x) / ub)
#elif defined(OP_U32_MOD_XOR)
    #define STEP(x) (((x) ^ ub) % ua)
#elif defined(OP_U32_SHL)
    #define STEP(x) ((x) << ub)
#elif defined(OP_U32_SHR)
    #define STEP(x) ((x) >> ub)
#elif defined(OP_U32_BITCOUNT)
    #define STEP(x) uint(bitCount(x))
#elif defined(OP_U32_FINDMSB)
    #define STEP(x) uint(findMSB(x))
#elif defined(OP_U32_FINDLSB)
    #define STEP(x) uint(findLSB(x))
#elif defined(OP_U32_BITFIELDREVERSE_XOR)
    #define STEP(x) (bitfieldReverse(x) ^ ub)
#elif defined(OP_U32_BITFIELDEXTRACT)
    #define STEP(x) bitfieldExtract(x, int(ub), 24)
#elif defined(OP_U32_BITFIELDINSERT)
    #define STEP(x) bitfieldInsert(ua, x, int(ub), 8)
#elif defined(OP_U32_MIN_SUB)
    #define STEP(x) min(ua - (x), ub)
#elif defined(OP_U32_MAX_SUB)
    #define STEP(x) max(ua - (x), ub)
#elif defined(OP_F16_ADD) || defined(OP_F64_ADD)
    #define STEP(x) ((x) + T(fb))
#elif defined(OP_F16_FMA) || defined(OP_F64_FMA)
    #define STEP(x) fma(x, T(fa), T(fb))
#elif defined(OP_F16_EXP2)
    #define STEP(x) exp2(-abs(x))
#elif defined(OP_F16_INVERSESQRT)
    #define STEP(x) inversesqrt(abs(x))
#elif defined(OP_F64_DIV)
    #define STEP(x) (T(fa) / (x))
#elif defined(OP_F64_SQRT)
    #define STEP(x) sqrt(abs(x))
#elif defined(OP_U64_ADD)
    #define STEP(v) u64vec2((v).y, (v).x + (v).y)
#elif defined(OP_U64_MUL)
    #define STEP(v) u64vec2((v).y, (v).x * (v).y)
// Conversions: a round trip and an add (src/cases/instr/convert.rs says why). The integer round
// trips add on both sides: `float(int(x))` may become `trunc(x)`, and `int(float(i))` may become
// `i`, but not with an add between them.
#elif defined(OP_CVT_INT_ADD)
    #define STEP(x) (float(int(x) + int(ub)) + fb)
#elif defined(OP_CVT_UINT_ADD)
    #define STEP(x) (float(uint(x) + ub) + fb)
#elif defined(OP_CVT_HALF_ADD)
    #define STEP(x) (float(float16_t(x)) + fb)
#elif defined(OP_CVT_PACKHALF_ADD)
    #define STEP(v) (unpackHalf2x16(packHalf2x16(vec2(v, fb))).x + fb)
#elif defined(OP_CVT_PACKUNORM_ADD)
    #define STEP(v) (unpackUnorm4x8(packUnorm4x8(vec4(v))).x + fb)
// Subgroups: a step that leaves every lane one value adds the lane's index (lanes.rs says why).
#elif defined(OP_SG_SHUFFLE)
    #define STEP(x) subgroupShuffle(x, gl_SubgroupInvocationID ^ ua)
#elif defined(OP_SG_SHUFFLE_XOR)
    #define STEP(x) subgroupShuffleXor(x, ub)
#elif defined(OP_SG_BROADCAST_ADD)
    #define STEP(x) (subgroupBroadcast(x, 3u) + gl_SubgroupInvocationID)
#elif defined(OP_SG_BROADCAST_FIRST_ADD)
    #define STEP(x) (subgroupBroadcastFirst(x) + gl_SubgroupInvocationID)
#elif defined(OP_SG_BALLOT_ADD)
    #define STEP(v) (subgroupBallot((v) != 0u).x + gl_SubgroupInvocationID)
#elif defined(OP_SG_ALL_ADD)
    #define STEP(x) (uint(subgroupAll((x) != 0u)) + gl_SubgroupInvocationID)
#elif defined(OP_SG_ADD_UINT_ADD)
    #define STEP(x) (subgroupAdd(x) + gl_SubgroupInvocationID)
#elif defined(OP_SG_ADD_FLOAT_FMA)
    // A float chain in a uint: fa is one over the subgroup size, so the chain stays finite.
    #define STEP(x) floatBitsToUint(fma(subgroupAdd(uintBitsToFloat(x)), fa, float(gl_SubgroupInvocationID)))
#elif defined(OP_SG_INCLUSIVE_ADD)
    #define STEP(x) subgroupInclusiveAdd(x)
#elif defined(OP_SG_MIN_ADD)
    #define STEP(x) (subgroupMin(x) + gl_SubgroupInvocationID)
// Workgroup: latency only, one chain.
#elif defined(OP_WG_BARRIER)
    // Two halves of shared memory in turn: no store of the next step can reach a word that
    // another invocation has yet to load in this one.
    shared uint exchanged[2 * 256];
    uint half_at = 0u;
    uint wg_step(uint x) {
        exchanged[half_at + gl_LocalInvocationID.x] = x;
        barrier();
        x = exchanged[half_at + (gl_LocalInvocationID.x ^ ub)];
        half_at ^= 256u;
        return x;
    }
    #define STEP(x) wg_step(x)
#elif defined(OP_WG_SHARED_ATOMIC_ADD)
    // Word i starts at i + ua; each invocation's chain stays on its own word (ua = 64).
    shared uint counters[64];
    #define STEP(x) atomicAdd(counters[(x) & 63u], ua)
#else
    #error define one OP_ (src/cases/instr/ops.rs)
#endif

// One step of every chain, and UNROLL (16) of them, written out rather than as [[unroll]] loops:
// spirv-opt's unroller does not carry `precise` (NoContraction) to the copies it makes, and
// without it a driver may fold 16 adds of one constant into one (NVIDIA's does).
#define S(k) x[k] = STEP(x[k]);
#if CHAINS == 8
    #define ALL S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7)
#elif CHAINS == 1
    #define ALL S(0)
#else
    #error CHAINS is 1 or 8
#endif
#if UNROLL != 16
    #error UNROLL is 16
#endif
#define FOUR ALL ALL ALL ALL
#define SIXTEEN FOUR FOUR FOUR FOUR

void main() {
    uint gid = global_index();
#if defined(OP_WG_SHARED_ATOMIC_ADD)
    for (uint i = gl_LocalInvocationID.x; i < 64u; i += gl_WorkGroupSize.x) {
        counters[i] = i + ua;
    }
    barrier();
#endif
    // precise (NoContraction) where a driver could reassociate the chain (adds, multiplies,
    // divisions by one constant): elsewhere it costs a free modifier its freedom (NVIDIA then
    // negates with an add: min(-x, a) at 10.4 clocks instead of 4.5).
#ifdef PRECISE
    precise T x[CHAINS];
#else
    T x[CHAINS];
#endif
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
        x[k] = SEED(gid * CHAINS + k);
    }
    // One step before the loop: a verify run of 0 trips checks exactly one.
    ALL
#ifdef SHADER_CLOCK
    // A latency case on a device with a shader clock: the subgroup clock around the loop, so
    // the runner reads clocks per step as the shader counted them (CaseSpec::chain_clock).
    uvec2 started = clock2x32ARB();
#endif
    for (uint t = 0u; t < params.trips; ++t) {
        SIXTEEN
    }
#ifdef SHADER_CLOCK
    uvec2 ended = clock2x32ARB();
    if (params.write_enable == 0u && gl_LocalInvocationIndex == 0u) {
        // Timing runs only (a verify run's words are results): the span's low word, then its
        // high word with the borrow.
        results[0] = ended.x - started.x;
        results[1] = ended.y - started.y - uint(ended.x < started.x);
    }
#endif
    // Chain gid % CHAINS, chosen by selects: an indexed register array could be moved to memory.
    T chosen = x[0];
    [[unroll]] for (uint k = 1u; k < CHAINS; ++k) {
        chosen = gid % CHAINS == k ? x[k] : chosen;
    }
    write_result(gid, BITS(chosen));
}
