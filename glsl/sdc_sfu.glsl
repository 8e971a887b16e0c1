// sdc_sfu.glsl: the corruption screen's transcendental chains (src/cases/sdc/sfu.rs). Each
// invocation runs CHAINS chains of STEPS steps; a step turns the chain's state s into x in [1, 2)
// (its top 23 bits as the fraction), takes sin(x), exp2(x), log2(x) or inversesqrt(x) in turn,
// and folds the result's bits into the next state: s' = s * K ^ bits(f(x)). A flip anywhere
// reaches the end (K odd: multiplying is a bijection; a different f(x) differs in s'). No CPU
// reproduces these bits (the operations are approximations of the hardware's own), so the first
// pass keeps each invocation's folded ends as its answer, and later passes compare theirs with
// it, logging any that differ; the first pass also adds a fingerprint of all of them, which
// GPUs of one model and driver share bit for bit (perftest fleet compares it). A verify run
// writes the four operations of each invocation's first x, summed, for the CPU to check.
#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef SM_ID
#extension GL_NV_shader_sm_builtins : require
#endif
// seed: mixed into every chain's start.
#define FAMILY_PARAMS uint seed; uint pad0; uint pad1; uint pad2;
#include "common.glsl"

layout(set = 0, binding = 1, std430) buffer Answers { uint answer[]; };
#define LOG_BINDING 2
#include "fault_log.glsl"
// One word per workgroup: the passes it has made.
layout(set = 0, binding = 3, std430) buffer Generations { uint generation[]; };

shared uint passes;

const uint K = 0x9E3779B1u;

float x_of(uint s) {
    return uintBitsToFloat(0x3F800000u | (s >> 9u));
}

void main() {
    uint gid = global_index();
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (gl_LocalInvocationIndex == 0u) {
        passes = generation[group];
    }
    barrier();
    uint g = passes;
    uint folded = 0u;
    for (uint c = 0u; c < CHAINS; ++c) {
        uint s = mix32(gid * CHAINS + c + params.seed);
        for (uint k = 0u; k < STEPS; ++k) {
            s = s * K ^ floatBitsToUint(sin(x_of(s)));
            s = s * K ^ floatBitsToUint(exp2(x_of(s)));
            s = s * K ^ floatBitsToUint(log2(x_of(s)));
            s = s * K ^ floatBitsToUint(inversesqrt(x_of(s)));
        }
        folded = folded * K ^ s;
    }
    if (g == 0u) {
        answer[gid] = folded;
        // The fingerprint: every invocation's answer, mixed with its index, summed (in any order).
        atomicAdd(faults.pad[0], mix32(folded ^ mix32(gid)));
    } else if (folded != answer[gid]) {
        log_fault(group, gid, uvec2(answer[gid], 0u), uvec2(folded, 0u));
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        generation[group] = g + 1u;
    }
    if (params.write_enable != 0u && gid < uint(results.length())) {
        float x = x_of(mix32(gid * CHAINS + params.seed));
        results[gid] = floatBitsToUint(sin(x) + exp2(x) + log2(x) + inversesqrt(x));
    }
}
