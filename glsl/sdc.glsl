// sdc.glsl: the corruption screen's chains (src/cases/sdc.rs). Each invocation runs CHAINS
// multiply-add chains of ITERATIONS steps whose every result bit is known, then compares each
// chain's end with its known bits and logs any that differ: the unit that ran it, the workgroup,
// the invocation, the chain, the expected and the observed bits. Timed work checks itself.
//
// The chains keep every perturbation: int32 is x -> a x + b with a odd (a bijection modulo 2^32);
// the floats are x -> fma(x, a, b) with -a a little above 1 and every value within one binade
// [8, 16), so two values a unit in the last place apart end more than one apart after each step
// and round apart (docs/corruption.md has the argument).
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef SM_ID
#extension GL_NV_shader_sm_builtins : require
#endif
#ifdef SDC_FP16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
// a, b: the multiply-add's constants, as bits (a double's low and high words).
#define FAMILY_PARAMS uvec2 a; uvec2 b;
#include "common.glsl"

// [0, 64): the chains' start values; [64, 128): their known ends, as bits.
layout(set = 0, binding = 1, std430) readonly buffer Table { uvec2 table[]; };
#define LOG_BINDING 2
#include "fault_log.glsl"

#if defined(SDC_INT32)
    #define T uint
    #define OF_BITS(v) ((v).x)
    #define BITS(x) uvec2((x), 0u)
    #define MAD(x, a, b) ((x) * (a) + (b))
    #define FLIP(x, bit) ((x) ^ (1u << (bit)))
#elif defined(SDC_FP32)
    #define T float
    #define OF_BITS(v) uintBitsToFloat((v).x)
    #define BITS(x) uvec2(floatBitsToUint(x), 0u)
    #define MAD(x, a, b) fma(x, a, b)
    #define FLIP(x, bit) uintBitsToFloat(floatBitsToUint(x) ^ (1u << (bit)))
#elif defined(SDC_FP64)
    #define T double
    #define OF_BITS(v) packDouble2x32(v)
    #define BITS(x) unpackDouble2x32(x)
    #define MAD(x, a, b) fma(x, a, b)
    #define FLIP(x, bit) packDouble2x32(unpackDouble2x32(x) ^ ((bit) < 32u ? uvec2(1u << (bit), 0u) : uvec2(0u, 1u << ((bit) - 32u))))
#elif defined(SDC_FP16)
    // Two halves, two independent chains.
    #define T f16vec2
    #define OF_BITS(v) unpackFloat2x16((v).x)
    #define BITS(x) uvec2(packFloat2x16(x), 0u)
    #define MAD(x, a, b) fma(x, a, b)
    #define FLIP(x, bit) unpackFloat2x16(packFloat2x16(x) ^ (1u << (bit)))
#else
    #error define one of SDC_INT32, SDC_FP32, SDC_FP64, SDC_FP16
#endif

// INJECT (the test-only injector, PERFTEST_INJECT_FAULT): on unit INJECT_UNIT (the workgroups
// whose index modulo 128 is INJECT_UNIT where the device names no unit), an invocation flips bit
// INJECT_BIT of one chain halfway with the chance INJECT_THRESHOLD / 2^32, drawn from its ticket
// (the invocations of that unit, counted) and INJECT_SEED. The log keeps the first flip's ticket,
// so a study can tell when in the case it came.

void main() {
    uint gid = global_index();
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    T a = OF_BITS(params.a);
    T b = OF_BITS(params.b);
    T x[CHAINS];
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
        x[k] = OF_BITS(table[(gid * CHAINS + k) & 63u]);
    }
    for (uint i = 0u; i < ITERATIONS / 2u / UNROLL; ++i) {
        [[unroll]] for (uint j = 0u; j < UNROLL; ++j) {
            [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
                x[k] = MAD(x[k], a, b);
            }
        }
    }
#ifdef INJECT
    if (on_unit(group, INJECT_UNIT)) {
        uint ticket = atomicAdd(faults.ticket, 1u);
        uint h = mix32(ticket ^ mix32(INJECT_SEED));
        if (h < INJECT_THRESHOLD) {
            // The earliest flip's ticket, inverted (the log starts at zero).
            atomicMax(faults.first_flip, ~ticket);
            uint chain = mix32(h) % CHAINS;
            [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
                if (k == chain) {
                    x[k] = FLIP(x[k], INJECT_BIT);
                }
            }
        }
    }
#endif
    for (uint i = 0u; i < ITERATIONS / 2u / UNROLL; ++i) {
        [[unroll]] for (uint j = 0u; j < UNROLL; ++j) {
            [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
                x[k] = MAD(x[k], a, b);
            }
        }
    }
    uint total = 0u;
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
        uvec2 observed = BITS(x[k]);
#ifndef UNCHECKED
        uvec2 expected = table[64u + ((gid * CHAINS + k) & 63u)];
        if (observed != expected) {
            log_fault(group, k, expected, observed);
        }
#endif
        total += observed.x ^ observed.y;
    }
    write_result(gid, total);
}
