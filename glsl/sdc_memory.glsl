// sdc_memory.glsl: the corruption screen's memory pass (src/cases/sdc/memory.rs). Each invocation
// owns PER_INVOCATION uvec4s of a buffer that the grid covers whole, a grid apart (so a workgroup's
// loads are adjacent, and a grid fits the 65,535 workgroups every device allows). Word w holds a pattern of its own address,
// p(w) = mix32(w ^ seed) (address-in-address: a write that lands on the wrong word shows), or its
// inverse, alternately: a workgroup's pass count, kept in the generations buffer, says which the
// last pass wrote. Each pass reads its words, compares them with what the last pass wrote, logs any
// that differ (the word's index is the record's "result"), and writes the other one (moving
// inversions: every bit is written 0 and 1 in turn, so a bit stuck at either shows within two
// passes, and a write that never happened shows at the next). Pass 0 writes p and checks nothing.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef SM_ID
#extension GL_NV_shader_sm_builtins : require
#endif
// seed: mixed into every word's pattern.
#define FAMILY_PARAMS uint seed; uint pad0; uint pad1; uint pad2;
#include "common.glsl"

layout(set = 0, binding = 1, std430) buffer Data { uvec4 data[]; };
#define LOG_BINDING 2
#include "fault_log.glsl"
// One word per workgroup: the passes it has made.
layout(set = 0, binding = 3, std430) buffer Generations { uint generation[]; };

shared uint passes;

uint pattern(uint word) {
    return mix32(word ^ params.seed);
}

void main() {
    uint gid = global_index();
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (gl_LocalInvocationIndex == 0u) {
        passes = generation[group];
    }
    barrier();
    uint g = passes;
    uint grid = gl_NumWorkGroups.x * gl_NumWorkGroups.y * uint(LOCAL_SIZE_X);
    uint folded = 0u;
    for (uint k = 0u; k < PER_INVOCATION; ++k) {
        uint at = gid + k * grid;
        uvec4 p = uvec4(pattern(4u * at), pattern(4u * at + 1u), pattern(4u * at + 2u), pattern(4u * at + 3u));
        // Pass g wrote p where g is even, its inverse where odd; pass g expects what pass g - 1 wrote.
        uvec4 expected = (g & 1u) == 1u ? p : ~p;
        uvec4 written = (g & 1u) == 0u ? p : ~p;
        uvec4 observed = data[at];
        if (g != 0u && any(notEqual(observed, expected))) {
            [[unroll]] for (uint c = 0u; c < 4u; ++c) {
                if (observed[c] != expected[c]) {
                    log_fault(group, 4u * at + c, uvec2(expected[c], 0u), uvec2(observed[c], 0u));
                }
            }
        }
#ifdef INJECT
        // The test-only injector: word INJECT_WORD's bit INJECT_BIT is stuck at 0.
        if (at == INJECT_WORD / 4u) {
            written[INJECT_WORD % 4u] &= ~(1u << INJECT_BIT);
        }
#endif
        data[at] = written;
        folded ^= written.x ^ written.y ^ written.z ^ written.w;
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        generation[group] = g + 1u;
    }
    // A verify run checks the first invocations' words (the grid is larger than the results).
    if (params.write_enable != 0u && gid < uint(results.length())) {
        results[gid] = folded;
    }
}
