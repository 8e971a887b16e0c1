// store.glsl: stores (src/cases/store.rs). Workgroup g of G's invocation t does STORES stores:
// store i goes to row i * G + g (wrapping at `rows`), element t of the row, so the workgroups in
// flight write one band of consecutive rows at a time, as a grid-stride loop does. PATTERN 0 is linear
// (a subgroup writes consecutive elements), 1 moves every 128-byte line to a fixed pseudo-random
// place (`lines` is a power of two), 2 is uniform: the whole workgroup writes one element per
// store (the row's first), a write conflict. Each element's value depends only on its index, so
// conflicting writers agree and verify runs check the final memory.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define FAMILY_PARAMS uint rows; uint lines; uint width_texels; uint unused;
#include "common.glsl"

// Defines from src/cases/store.rs:
//   KIND    0 storage buffer of uint (WIDTH 1), uvec2 (2) or uvec4 (4); 1 storage texel buffer
//           (imageStore, FORMAT, CHANNELS); 2 storage image (imageStore, FORMAT, CHANNELS)
//   LINE    elements per 128-byte line (PATTERN 1)
const uint STORES = 16u;
const uint ROW = uint(LOCAL_SIZE_X);  // one element per invocation of the workgroup

#if KIND == 0
#if WIDTH == 1
#define VEC uint
#elif WIDTH == 2
#define VEC uvec2
#else
#define VEC uvec4
#endif
layout(set = 0, binding = 1, std430) writeonly buffer Data { VEC data[]; };

// Word w of the buffer holds this (a cheap function of w alone).
uint word_value(uint w) { return w ^ 0x5BD1E995u; }

VEC value_of(uint e) {
    uint w = e * uint(WIDTH);
#if WIDTH == 1
    return word_value(w);
#elif WIDTH == 2
    return uvec2(word_value(w), word_value(w + 1u));
#else
    return uvec4(word_value(w), word_value(w + 1u), word_value(w + 2u), word_value(w + 3u));
#endif
}
#else
#if KIND == 1
layout(set = 0, binding = 1, FORMAT) uniform writeonly imageBuffer data;
#else
layout(set = 0, binding = 1, FORMAT) uniform writeonly image2D data;
#endif

// Channel c of texel e: an integer k = (e * CHANNELS + c) mod 256, as k / 255 for UNORM formats
// (stored exactly as the byte k) and as k for float ones (exact in fp16).
vec4 value_of(uint e) {
    vec4 v = vec4(0.0, 0.0, 0.0, 1.0);
    for (uint c = 0u; c < uint(CHANNELS); ++c) {
        float k = float((e * uint(CHANNELS) + c) & 255u);
        v[c] = UNORM == 1 ? k / 255.0 : k;
    }
    return v;
}
#endif

uint element(uint row, uint t) {
#if PATTERN == 2
    return row * ROW;
#else
    uint e = row * ROW + t;
#if PATTERN == 1
    uint line = e / uint(LINE);
    uint moved = (line * 0x9E3779B1u + 0x7F4A7C15u) & (params.lines - 1u);
    e = moved * uint(LINE) + e % uint(LINE);
#endif
    return e;
#endif
}

void main() {
    uint t = gl_LocalInvocationIndex;
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    // Row i * G + g, wrapping; `rows` is a power of two (src/cases/store.rs), so a mask wraps it
    // (a division here costs uniform stores, which issue at 10 per clock per SM, a tenth).
    uint wrap = params.rows - 1u;
    uint step = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint row = group & wrap;
    uint last = 0u;
    [[unroll]] for (uint i = 0u; i < STORES; ++i) {
        uint e = element(row, t);
#if KIND == 0
        data[e] = value_of(e);
#elif KIND == 1
        imageStore(data, int(e), value_of(e));
#else
        imageStore(data, ivec2(e % params.width_texels, e / params.width_texels), value_of(e));
#endif
        last = e;
        row = (row + step) & wrap;
    }
    write_result(global_index(), last);
}
