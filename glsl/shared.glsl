// shared.glsl: shared-memory loads (src/cases/shared.rs). The workgroup fills 16 KiB of shared
// memory with the floats k mod 61 (or other DATA), then each invocation sums LOADS loads of element
// (t * stride + i) & mask (mask: the element count - 1, from the push block, so the compiler
// cannot fold the addresses). Stride 1 reads consecutive elements across a subgroup
// (conflict-free); stride s puts gcd(s, banks) lanes on each bank it touches (a gcd-way conflict).
// KIND 3 is a pointer chase: the workgroup copies a random cycle of word indexes into shared
// memory, then invocation 0 follows it, `count` repeats of CHAIN dependent loads.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define FAMILY_PARAMS uint stride; uint mask; uint count; uint unused;
#include "common.glsl"

const uint WORDS = 4096u;  // 16 KiB

#if KIND == 3
layout(set = 0, binding = 1, std430) readonly buffer Chain { uint chain[]; };
shared uint next[WORDS];
shared uint reached;
const uint CHAIN = 256u;

void main() {
    // The whole workgroup fills shared memory (one invocation alone would add 4096 dependent
    // global loads to every timed dispatch); then one invocation chases.
    uint t = gl_LocalInvocationIndex;
    for (uint w = t; w < WORDS; w += uint(LOCAL_SIZE_X)) {
        next[w] = chain[w];
    }
    barrier();
    if (t == 0u) {
        uint at = 0u;
        for (uint r = 0u; r < params.count; r++) {
            [[unroll]] for (uint i = 0u; i < CHAIN; i++) {
                at = next[at];
            }
        }
        reached = at;
    }
    barrier();
    write_result(global_index(), reached);
}
#else
#if KIND == 0
#define VALUE float
#define COMPONENTS 1u
#define TOTAL(v) (v)
#elif KIND == 1
#define VALUE vec2
#define COMPONENTS 2u
#define TOTAL(v) ((v).x + (v).y)
#else
#define VALUE vec4
#define COMPONENTS 4u
#define TOTAL(v) ((v).x + (v).y + (v).z + (v).w)
#endif
const uint ELEMENTS = WORDS / COMPONENTS;
shared VALUE data[ELEMENTS];
const uint LOADS = 512u;

// DATA (src/registry/data.rs): 0 the floats k mod 61, 1 zeros, 2 the word CONSTANT_WORD, 3 random words.
#ifndef DATA
#define DATA 0
#endif
#include "mix.glsl"

float value(uint k) {
#if DATA == 1
    return 0.0;
#elif DATA == 2
    return uintBitsToFloat(CONSTANT_WORD);
#elif DATA == 3
    return uintBitsToFloat(random_word(k));
#else
    return float(k % 61u);
#endif
}

void main() {
    uint t = gl_LocalInvocationIndex;
    for (uint e = t; e < ELEMENTS; e += uint(LOCAL_SIZE_X)) {
        VALUE v;
#if KIND == 0
        v = value(e);
#else
        for (uint c = 0u; c < COMPONENTS; c++) {
            v[c] = value(e * COMPONENTS + c);
        }
#endif
        data[e] = v;
    }
    barrier();
    VALUE a = VALUE(0.0), b = VALUE(0.0);
    uint base = t * params.stride;
    for (uint i = 0u; i < LOADS; i += 2u) {
        a += data[(base + i) & params.mask];
        b += data[(base + i + 1u) & params.mask];
    }
    write_result(global_index(), floatBitsToUint(TOTAL(a + b)));
}
#endif
