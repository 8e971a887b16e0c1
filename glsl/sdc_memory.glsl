// sdc_memory.glsl: the corruption screen's memory pass (src/cases/sdc/memory.rs), over BUFFERS
// buffers reached through a table of their device addresses (one may be larger than a binding
// reaches, and together most of a GPU's memory). Each invocation owns PER_INVOCATION uvec4s of each
// buffer, a grid apart (so a workgroup's loads are adjacent, and a grid fits the 65,535 workgroups
// every device allows). Word w of buffer b holds a pattern of its own address,
// p(b, w) = mix32(w ^ seed ^ mix32(b)) (address-in-address: a write that lands on the wrong word,
// or in the wrong buffer, shows), or its inverse, alternately: a workgroup's pass count, kept in
// the generations buffer, says which the last pass wrote. Each pass reads its words, compares them
// with what the last pass wrote, logs any that differ (the word's index across the buffers is the
// record's "result"), and writes the other one (moving inversions: every bit is written 0 and 1 in
// turn, so a bit stuck at either shows within two passes, and a write that never happened shows
// at the next). Pass 0 writes p and checks nothing.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_buffer_reference : require
#ifdef SM_ID
#extension GL_NV_shader_sm_builtins : require
#endif
// seed: mixed into every word's pattern.
#define FAMILY_PARAMS uint seed; uint pad0; uint pad1; uint pad2;
#include "common.glsl"

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Words { uvec4 data[]; };
layout(set = 0, binding = 1, std430) readonly buffer Table { Words buffers[]; };
#define LOG_BINDING 2
#include "fault_log.glsl"
// One word per workgroup: the passes it has made.
layout(set = 0, binding = 3, std430) buffer Generations { uint generation[]; };

shared uint passes;

uint pattern(uint word, uint key) {
    return mix32(word ^ key);
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
    // Words of one buffer.
    uint buffer_words = 4u * grid * uint(PER_INVOCATION);
    uint folded = 0u;
    for (uint b = 0u; b < uint(BUFFERS); ++b) {
        Words words = buffers[b];
        uint key = params.seed ^ mix32(b);
        for (uint k = 0u; k < PER_INVOCATION; ++k) {
            uint at = gid + k * grid;
            uvec4 p = uvec4(pattern(4u * at, key), pattern(4u * at + 1u, key), pattern(4u * at + 2u, key),
                            pattern(4u * at + 3u, key));
            // Pass g wrote p where g is even, its inverse where odd; pass g expects what pass g - 1 wrote.
            uvec4 expected = (g & 1u) == 1u ? p : ~p;
            uvec4 written = (g & 1u) == 0u ? p : ~p;
            uvec4 observed = words.data[at];
            if (g != 0u && any(notEqual(observed, expected))) {
                [[unroll]] for (uint c = 0u; c < 4u; ++c) {
                    if (observed[c] != expected[c]) {
                        // The word's index across the buffers: b * buffer_words + its own, in 64 bits.
                        uvec2 word;
                        umulExtended(b, buffer_words, word.y, word.x);
                        uint carry;
                        word.x = uaddCarry(word.x, 4u * at + c, carry);
                        word.y += carry;
                        log_fault_at(group, word, uvec2(expected[c], 0u), uvec2(observed[c], 0u));
                    }
                }
            }
#ifdef INJECT
            // The test-only injector: word INJECT_WORD of buffer INJECT_BUFFER has bit INJECT_BIT stuck at 0.
            if (b == INJECT_BUFFER && at == INJECT_WORD / 4u) {
                written[INJECT_WORD % 4u] &= ~(1u << INJECT_BIT);
            }
#endif
            words.data[at] = written;
            folded ^= written.x ^ written.y ^ written.z ^ written.w;
        }
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
