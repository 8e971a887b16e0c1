// sdc_shared.glsl: the corruption screen's shared-memory pass (src/cases/sdc/shared.rs). Each
// workgroup runs ROUNDS rounds over a 16 KiB tile: every invocation writes its words (a pattern
// of the word's index and the workgroup, inverted every other round, so each bit is written 0 and
// 1 in turn), then, after a barrier, reads the words another invocation wrote (half a workgroup
// away), compares each with the pattern, and logs any that differ (the record's "result" is the
// word's index in the tile). A verify run's result folds the words each invocation read.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef SM_ID
#extension GL_NV_shader_sm_builtins : require
#endif
// seed: mixed into every workgroup's patterns.
#define FAMILY_PARAMS uint seed; uint pad0; uint pad1; uint pad2;
#include "common.glsl"

#define LOG_BINDING 1
#include "fault_log.glsl"

const uint WORDS = 4096u;
const uint PER = WORDS / uint(LOCAL_SIZE_X);
shared uint tile[WORDS];

// Word w's pattern in round r of a workgroup salted `salt`.
uint pattern(uint w, uint salt, uint r) {
    return mix32(w ^ salt) ^ ((r & 1u) == 1u ? 0xFFFFFFFFu : 0u);
}

void main() {
    uint t = gl_LocalInvocationIndex;
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint salt = mix32(group ^ params.seed);
#if defined(INJECT) && defined(INJECT_UNIT)
    bool target = on_unit(group, INJECT_UNIT);
#elif defined(INJECT)
    bool target = true;
#endif
    uint folded = 0u;
    for (uint r = 0u; r < ROUNDS; ++r) {
        [[unroll]] for (uint k = 0u; k < PER; ++k) {
            uint w = t + k * uint(LOCAL_SIZE_X);
            uint value = pattern(w, salt, r);
#ifdef INJECT
            // The test-only injector: bit INJECT_BIT of word INJECT_WORD stuck at 0 on its unit.
            if (target && w == INJECT_WORD) {
                value &= ~(1u << INJECT_BIT);
            }
#endif
            tile[w] = value;
        }
        barrier();
        [[unroll]] for (uint k = 0u; k < PER; ++k) {
            uint j = (t + uint(LOCAL_SIZE_X) / 2u + k * uint(LOCAL_SIZE_X)) & (WORDS - 1u);
            uint observed = tile[j];
            uint expected = pattern(j, salt, r);
            if (observed != expected) {
                log_fault(group, j, uvec2(expected, 0u), uvec2(observed, 0u));
            }
            // FNV-1's step: a round's words and the next round's inverses do not cancel.
            folded = (folded * 16777619u) ^ observed;
        }
        barrier();
    }
    write_result(global_index(), folded);
}
