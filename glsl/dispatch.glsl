// dispatch.glsl: the dispatch-cost family (src/cases/dispatch.rs). A dispatch is one workgroup
// whose first invocation adds 1 to a counter: next to nothing to run, and a verify run counts the
// dispatches that ran (an indirect dispatch that read no count would add nothing).
#version 450
#include "common.glsl"

layout(set = 0, binding = 1, std430) buffer Counter { uint dispatches[]; };

void main() {
    // address_mask is 0; reading it keeps the push block every case binds.
    if (gl_LocalInvocationIndex == params.address_mask) {
        atomicAdd(dispatches[0], 1u);
    }
}
