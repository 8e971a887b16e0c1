// latency.glsl: a pointer chase (src/cases/latency.rs). One invocation follows the chain in
// `next`: every 128-byte line of the set holds the index of the next line to visit, in one
// random cycle through all of them, so each load must wait for the one before. `count` repeats
// of CHAIN loads; the result is the index reached. Timed runs resume where the previous dispatch
// stopped (`state`), so a chain never retraces a path the L2 still holds; verify runs start at 0.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define FAMILY_PARAMS uint count; uint unused;
#include "common.glsl"

layout(set = 0, binding = 1, std430) readonly buffer Chain { uint next[]; };
layout(set = 0, binding = 2, std430) buffer State { uint resume; };

// Unrolled, so the only loop is the repeat count: llvmpipe (lavapipe) stops a loop after 65,535
// iterations in one invocation, counting an inner loop's iterations across all outer ones.
const uint CHAIN = 256u;

void main() {
    uint at = params.write_enable != 0u ? 0u : resume;
    for (uint r = 0u; r < params.count; r++) {
        [[unroll]] for (uint i = 0u; i < CHAIN; i++) {
            at = next[at];
        }
    }
    resume = at;
    write_result(global_index(), at);
}
