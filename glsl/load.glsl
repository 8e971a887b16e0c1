// load.glsl: buffer loads (typed, raw, structured, constant): 256 loads per invocation, summed.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if KIND == 6
// A buffer_reference pointer to the elements, in the family's push block (its address).
#extension GL_EXT_buffer_reference : require
#if WIDTH == 1
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Elements { float elements[]; };
#elif WIDTH == 2
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Elements { vec2 elements[]; };
#else
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Elements { vec4 elements[]; };
#endif
#define FAMILY_PARAMS Elements data;
#endif
#ifdef BROADCAST
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#include "common.glsl"

// Defines from src/cases/load.rs:
//   KIND     1 typed (uniform texel buffer), 2 raw (uint words), 3 structured, 4 constant buffer,
//            5 typed UAV (storage texel buffer, imageLoad, declared with FORMAT: r8 ... rgba32f),
//            6 structured through a buffer device address (a buffer_reference in push constants)
//   WRITABLE raw and structured: 1 declares the storage buffer without readonly (a UAV)
//   WIDTH    components (typed: the format's; raw: words per load; structured: floats per element)
//   PATTERN  0 uniform (every invocation the same address), 1 linear, 2 random (start 0-15)
//   OFFSET   raw only: words added to every address (1 = the original's "unaligned")
//   BROADCAST (uniform only) the subgroup-broadcast trick, passing on CHANNELS components
#define LOADS 256u

#if defined(WRITABLE) && WRITABLE == 1
#define ACCESS
#else
#define ACCESS readonly
#endif

#if KIND == 1
layout(set = 0, binding = 1) uniform textureBuffer data;
vec4 load(uint i) { return texelFetch(data, int(i)); }
#elif KIND == 2
layout(set = 0, binding = 1, std430) ACCESS buffer Raw { uint words[]; };
uvec4 load(uint i) {
    uint at = i * WIDTH + OFFSET;
    uvec4 v = uvec4(words[at], 0u, 0u, 0u);
#if WIDTH >= 2
    v.y = words[at + 1u];
#endif
#if WIDTH >= 3
    v.z = words[at + 2u];
#endif
#if WIDTH >= 4
    v.w = words[at + 3u];
#endif
    return v;
}
#elif KIND == 3
#if WIDTH == 1
layout(set = 0, binding = 1, std430) ACCESS buffer Structured { float elements[]; };
vec4 load(uint i) { return vec4(elements[i], 0.0, 0.0, 0.0); }
#elif WIDTH == 2
layout(set = 0, binding = 1, std430) ACCESS buffer Structured { vec2 elements[]; };
vec4 load(uint i) { return vec4(elements[i], 0.0, 0.0); }
#else
layout(set = 0, binding = 1, std430) ACCESS buffer Structured { vec4 elements[]; };
vec4 load(uint i) { return elements[i]; }
#endif
#elif KIND == 4
layout(set = 0, binding = 1, std140) uniform Constants { vec4 constants[1024]; };
vec4 load(uint i) { return constants[i]; }
#elif KIND == 5
layout(set = 0, binding = 1, FORMAT) uniform imageBuffer data;
vec4 load(uint i) { return imageLoad(data, int(i)); }
#elif KIND == 6
#if WIDTH == 1
vec4 load(uint i) { return vec4(params.data.elements[i], 0.0, 0.0, 0.0); }
#elif WIDTH == 2
vec4 load(uint i) { return vec4(params.data.elements[i], 0.0, 0.0); }
#else
vec4 load(uint i) { return params.data.elements[i]; }
#endif
#else
#error KIND must be 1 to 6
#endif

#if KIND == 2
#define VEC uvec4
#else
#define VEC vec4
#endif

#ifdef BROADCAST
#include "broadcast.glsl"
#endif

// The per-invocation start element: the same for all, the invocation index, or a hash in 0..15.
uint start_of(uint tid) {
#if PATTERN == 0
    return 0u;
#elif PATTERN == 1
    return tid;
#else
    uint h = tid * 0x9E3779B1u;
    return (h ^ (h >> 15)) & 15u;
#endif
}

shared uint stash[LOCAL_SIZE_X];

void main() {
    uint tid = gl_LocalInvocationIndex;
    uint start = start_of(tid);
    VEC sum = VEC(0);
#ifdef BROADCAST
    // Every invocation reads elements 0..LOADS-1 (PATTERN 0). Lane L loads element base + L once;
    // iteration base + j takes it from lane j. The sum's order, so its value, is the plain loop's.
    // LOADS is a multiple of any subgroup size (a power of two, at most 128). The trick assumes
    // full subgroups, which a workgroup of 128 or more gets on every device we know; a partial
    // one would read an inactive lane and fail --verify, not pass with a wrong rate.
    for (uint base = 0u; base < LOADS; base += gl_SubgroupSize) {
        VEC mine = load((start + base + gl_SubgroupInvocationID) | params.address_mask);
        for (uint j = 0u; j < gl_SubgroupSize; ++j) {
            sum += broadcast(mine, j);
        }
    }
#else
    for (uint i = 0u; i < LOADS; ++i) {
        // address_mask is 0 at run time: the compiler cannot prove consecutive loads adjacent.
        sum += load((start + i) | params.address_mask);
    }
#endif
#if KIND == 2
    stash[tid] = sum.x + sum.y + sum.z + sum.w;
#else
    stash[tid] = floatBitsToUint(sum.x + sum.y + sum.z + sum.w);
#endif
    // One linear groupshared write, then each invocation passes on its neighbour's sum.
    barrier();
    write_result(global_index(), stash[tid ^ 1u]);
}
