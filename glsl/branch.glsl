// branch.glsl: a data-dependent branch around a second load and an ALU payload, coherent or divergent.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// params.n: the payload iterations N.
#define FAMILY_PARAMS uint n;
#include "common.glsl"

// Defines from src/cases/branch.rs:
//   VARIANT  0 baseline (no branch: always load s2, then the payload)
//            1 long    (if (c) { load s2; payload } else { payload })
//            2 short   (if (c) { load s2 }; then the payload)
// params.n is N, the payload's iteration count: a run-time value, so it cannot be unrolled away.
// The condition c comes from the first texture; which texture is bound makes the input
// (coherent, divergent, all taken, none taken).

layout(set = 0, binding = 1) uniform sampler2D first;
layout(set = 0, binding = 2) uniform sampler2D second;

float payload(float x, float y) {
    for (uint i = 0u; i < params.n; ++i) {
        x = y * 0.555 + x * y + x * 0.9 + x * x;
    }
    return x;
}

// The texel of the second load: a hash of this invocation's texel.
ivec2 other(uvec2 texel) {
    uint h = texel.x * 0x9E3779B1u ^ texel.y * 0x85EBCA77u;
    return ivec2(h & 1023u, (h >> 10) & 1023u);
}

void main() {
    // Workgroups of 32 x LOCAL_SIZE_Y (32 rows where the device allows) tile the 1024x1024
    // texture, 32 tiles to a row, then wrap (texel() in src/cases/branch.rs).
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uvec2 tile = uvec2(group % 32u, (group / 32u) % (1024u / uint(LOCAL_SIZE_Y)));
    uvec2 texel = tile * uvec2(32u, LOCAL_SIZE_Y) + gl_LocalInvocationID.xy;
    vec4 s1 = texelFetch(first, ivec2(texel), 0);
    bool c = dot(s1, s1) != 0.0;
    float result;
#if VARIANT == 0
    vec4 s2 = texelFetch(second, other(texel), 0);
    result = payload(s1.y, s2.x) + s2.y;
#elif VARIANT == 1
    [[dont_flatten]] if (c) {
        vec4 s2 = texelFetch(second, other(texel), 0);
        result = payload(s1.y, s2.x) + s2.y;
    } else {
        // s1 is zero here, but the compiler cannot know: with a literal 0.0 it folds half the
        // payload away, and the two paths no longer cost the same (seen on an H100).
        result = payload(s1.y, s1.x);
    }
#else
    vec4 s2 = vec4(0.0);
    [[dont_flatten]] if (c) {
        s2 = texelFetch(second, other(texel), 0);
    }
    result = payload(s1.y, s2.x) + s2.y;
#endif
    write_result(global_index(), floatBitsToUint(result));
}
