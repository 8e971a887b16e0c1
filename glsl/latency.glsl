// latency.glsl: a pointer chase (src/cases/latency.rs). One invocation follows the chain in
// the set: every 128-byte line holds where the next line to visit is, in one random cycle
// through all of them, so each load must wait for the one before. `count` repeats of CHAIN
// loads; the result is the word index reached. Timed runs resume where the previous dispatch
// stopped (`state`), so a chain never retraces a path the L2 still holds; verify runs start at 0.
//   PATH 0  index: a storage buffer of word indexes, `at = next[at]` (the address is computed)
//        1  pointer: each line holds the 64-bit device address of the next
//           (`at = Line(at).next`), so the loaded value is the next address, as a CPU linked list is
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if PATH == 1
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
layout(buffer_reference) buffer Line;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Line { Line next; };
#define FAMILY_PARAMS uint count; uint unused; Line base;
#else
#define FAMILY_PARAMS uint count; uint unused;
#endif
#include "common.glsl"

#if PATH == 1
// Where the chain stopped, as an address (zero before the first dispatch).
layout(set = 0, binding = 1, std430) buffer State { uvec2 resume; };
#else
layout(set = 0, binding = 1, std430) readonly buffer Chain { uint next[]; };
// Where the chain stopped, as a word index.
layout(set = 0, binding = 2, std430) buffer State { uint resume; };
#endif

// Unrolled, so the only loop is the repeat count: llvmpipe (lavapipe) stops a loop after 65,535
// iterations in one invocation, counting an inner loop's iterations across all outer ones.
const uint CHAIN = 256u;

void main() {
#if PATH == 1
    bool fresh = params.write_enable != 0u || resume == uvec2(0u);
    // The address crosses the loop as a uvec2 and becomes a pointer for each load (a bit cast):
    // SwiftShader 153's compiler crashes on a loop-carried pointer (an OpPhi of one).
    uvec2 at = fresh ? uvec2(params.base) : resume;
    for (uint r = 0u; r < params.count; r++) {
        [[unroll]] for (uint i = 0u; i < CHAIN; i++) {
            at = uvec2(Line(at).next);
        }
    }
    resume = at;
    // The word index reached (the set is under 4 GiB, so the low words' difference is exact).
    write_result(global_index(), (at.x - uvec2(params.base).x) / 4u);
#else
    uint at = params.write_enable != 0u ? 0u : resume;
    for (uint r = 0u; r < params.count; r++) {
        [[unroll]] for (uint i = 0u; i < CHAIN; i++) {
            at = next[at];
        }
    }
    resume = at;
    write_result(global_index(), at);
#endif
}
