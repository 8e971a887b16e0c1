// texture.glsl: 2D texture loads and samples: 256 per invocation from a 32x32 texture, summed.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef BROADCAST
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#include "common.glsl"

// Defines from src/cases/texture.rs:
//   OP       0 texelFetch (Texture2D.Load), 1 textureLod at texel centres (Texture2D.Sample),
//            2 imageLoad from a storage image declared with FORMAT (RWTexture2D.Load)
//   PATTERN  0 uniform (every invocation the same texel), 1 linear (its own 16x16 position),
//            2 random (a hashed start in 0..15 x 0..15)
//   BROADCAST (OP 0, PATTERN 0) the subgroup-broadcast trick, passing on CHANNELS components
// Load i of an invocation reads texel start + (i % 16, i / 16): at most (30, 30), inside 32x32.
#define LOADS 256u
#define SIZE 32.0

#if OP == 2
layout(set = 0, binding = 1, FORMAT) uniform image2D img;
#else
layout(set = 0, binding = 1) uniform sampler2D tex;
#endif

uvec2 start_of(uint tid) {
#if PATTERN == 0
    return uvec2(0u);
#elif PATTERN == 1
    return gl_LocalInvocationID.xy;
#else
    uint h = tid * 0x9E3779B1u;
    h ^= h >> 15;
    return uvec2(h & 15u, (h >> 4) & 15u);
#endif
}

shared uint stash[LOCAL_SIZE_X * LOCAL_SIZE_Y];

#ifdef BROADCAST
#define VEC vec4
#include "broadcast.glsl"
#endif

void main() {
    uint tid = gl_LocalInvocationIndex;
    uvec2 start = start_of(tid);
    vec4 sum = vec4(0.0);
#ifdef BROADCAST
    // Every invocation reads texels 0..LOADS-1 of the window at (0, 0) (PATTERN 0). Lane L
    // fetches texel base + L once; iteration base + j takes it from lane j, in the plain loop's order.
    // As in load.glsl, the trick assumes full subgroups; a partial one would fail --verify.
    for (uint base = 0u; base < LOADS; base += gl_SubgroupSize) {
        uint i = base + gl_SubgroupInvocationID;
        uvec2 texel = (start + uvec2(i & 15u, i >> 4)) | uvec2(params.address_mask);
        vec4 mine = texelFetch(tex, ivec2(texel), 0);
        for (uint j = 0u; j < gl_SubgroupSize; ++j) {
            sum += broadcast(mine, j);
        }
    }
#else
    for (uint i = 0u; i < LOADS; ++i) {
        // address_mask is 0 at run time: the compiler cannot see the access pattern.
        uvec2 texel = (start + uvec2(i & 15u, i >> 4)) | uvec2(params.address_mask);
#if OP == 0
        sum += texelFetch(tex, ivec2(texel), 0);
#elif OP == 2
        sum += imageLoad(img, ivec2(texel));
#else
        sum += textureLod(tex, (vec2(texel) + 0.5) / SIZE, 0.0);
#endif
    }
#endif
    stash[tid] = floatBitsToUint(sum.x + sum.y + sum.z + sum.w);
    // One linear groupshared write, then each invocation passes on its neighbour's sum.
    barrier();
    write_result(global_index(), stash[tid ^ 1u]);
}
