// sdc_copy.glsl: the corruption screen's copies (src/cases/sdc/copy.rs). Before each dispatch the
// runner copies the words buffer into another of its size and back, COPIES times in all
// (vkCmdCopyBuffer on the run's queue); then each invocation compares its PER_INVOCATION uvec4s
// with the pattern the CPU wrote, p(w) = mix32(w ^ seed) (address-in-address: a word copied to the
// wrong place shows), logs each word that differs and writes the pattern back, so that one flip
// is counted once: at the check after the copies that made it. A copy moves words as they are,
// so a flip in any of the copies reaches this buffer.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef SM_ID
#extension GL_NV_shader_sm_builtins : require
#endif
// seed: mixed into every word's pattern.
#define FAMILY_PARAMS uint seed; uint pad0; uint pad1; uint pad2;
#include "common.glsl"

layout(set = 0, binding = 1, std430) buffer Words { uvec4 data[]; };
#define LOG_BINDING 2
#include "fault_log.glsl"

void main() {
    uint gid = global_index();
#ifdef UNCHECKED
    // PERFTEST_SDC_CHECK=off: the copies alone (a verify run still reports the words it finds).
    if (params.write_enable == 0u) {
        return;
    }
#endif
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint grid = gl_NumWorkGroups.x * gl_NumWorkGroups.y * uint(LOCAL_SIZE_X);
    uint folded = 0u;
    for (uint k = 0u; k < PER_INVOCATION; ++k) {
        uint at = gid + k * grid;
        uvec4 expected = uvec4(mix32(4u * at ^ params.seed), mix32((4u * at + 1u) ^ params.seed),
                               mix32((4u * at + 2u) ^ params.seed), mix32((4u * at + 3u) ^ params.seed));
        uvec4 observed = data[at];
        if (any(notEqual(observed, expected))) {
            [[unroll]] for (uint c = 0u; c < 4u; ++c) {
                if (observed[c] != expected[c]) {
                    log_fault_at(group, uvec2(4u * at + c, 0u), uvec2(expected[c], 0u), uvec2(observed[c], 0u));
                }
            }
            data[at] = expected;
        }
#ifdef INJECT
        // The test-only injector: bit INJECT_BIT of word INJECT_WORD flipped after each check, for
        // the next copies to carry (as a copy that flipped it would).
        if (at == INJECT_WORD / 4u) {
            uvec4 flipped = expected;
            flipped[INJECT_WORD % 4u] ^= 1u << INJECT_BIT;
            data[at] = flipped;
        }
#endif
        folded ^= observed.x ^ observed.y ^ observed.z ^ observed.w;
    }
    // A verify run checks the first invocations' words, as they came through the copies.
    if (params.write_enable != 0u && gid < uint(results.length())) {
        results[gid] = folded;
    }
}
