// units.glsl: every compute unit's own rate (src/cases/units.rs). A fixed grid of workgroups,
// each doing the same work: fp32 FMAs, loads from a buffer the L1 holds, or loads from shared
// memory. Invocation 0 of each workgroup records which unit ran it (gl_SMIDNV) and that unit's
// clock (the subgroup clock) just after the workgroup's first barrier and just after its last,
// into the records buffer: 8 words per workgroup (unit, start low and high, end low and high,
// 1, 0, 0). The runner turns the last timed dispatch's records into a rate per unit.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_NV_shader_sm_builtins : require
#extension GL_ARB_shader_clock : require
// trips: loop trips (a verify run takes 1); fa, fb: the FMA's constants; mask: the loads' word
// mask (the L1 buffer's and the shared tile's size in words, less one).
#define FAMILY_PARAMS uint trips; float fa; float fb; uint mask;
#include "common.glsl"

layout(set = 0, binding = 1, std430) writeonly buffer Records { uint records[]; };
#if defined(KIND_L1)
layout(set = 0, binding = 2, std430) readonly buffer Data { uint data[]; };
#endif
#if defined(KIND_SHARED)
// 16 KiB: each word holds its index.
shared uint tile[4096];
#endif

#define FOUR(S) S S S S
#define SIXTEEN(S) FOUR(S) FOUR(S) FOUR(S) FOUR(S)

void main() {
    uint gid = global_index();
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
#if defined(KIND_SHARED)
    for (uint i = gl_LocalInvocationIndex; i < 4096u; i += gl_WorkGroupSize.x) {
        tile[i] = i;
    }
#endif
    barrier();
    uvec2 started = clock2x32ARB();
#if defined(KIND_FMA)
    // 8 independent chains of fma(x, fa, fb); written out so each step keeps NoContraction.
    precise float x0 = float(gid & 15u), x1 = x0 + 1.0, x2 = x0 + 2.0, x3 = x0 + 3.0;
    precise float x4 = x0 + 4.0, x5 = x0 + 5.0, x6 = x0 + 6.0, x7 = x0 + 7.0;
    #define STEP x0 = fma(x0, params.fa, params.fb); x1 = fma(x1, params.fa, params.fb); \
        x2 = fma(x2, params.fa, params.fb); x3 = fma(x3, params.fa, params.fb); \
        x4 = fma(x4, params.fa, params.fb); x5 = fma(x5, params.fa, params.fb); \
        x6 = fma(x6, params.fa, params.fb); x7 = fma(x7, params.fa, params.fb);
    for (uint t = 0u; t < params.trips; ++t) {
        SIXTEEN(STEP)
    }
    uint result = floatBitsToUint(((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)));
#else
    // Loads of one word each, 8 a step, each a different word: the invocation's index plus the
    // step's offsets, masked, summed.
    uint sum = 0u;
    uint at = gl_LocalInvocationIndex + (gid & 31u);
    #if defined(KIND_L1)
        #define LOAD(k) sum += data[(at + (k) * 257u) & params.mask];
    #else
        #define LOAD(k) sum += tile[(at + (k) * 257u) & params.mask];
    #endif
    #define STEP LOAD(0u) LOAD(1u) LOAD(2u) LOAD(3u) LOAD(4u) LOAD(5u) LOAD(6u) LOAD(7u) at += 8u * 257u;
    for (uint t = 0u; t < params.trips; ++t) {
        SIXTEEN(STEP)
    }
    uint result = sum;
#endif
    barrier();
    uvec2 ended = clock2x32ARB();
    if (gl_LocalInvocationIndex == 0u) {
        uint at = group * 8u;
        records[at] = gl_SMIDNV;
        records[at + 1u] = started.x;
        records[at + 2u] = started.y;
        records[at + 3u] = ended.x;
        records[at + 4u] = ended.y;
        records[at + 5u] = 1u;
    }
    write_result(gid, result);
}
