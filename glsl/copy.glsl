// copy.glsl: the shader copy of the copy family (src/cases/copy.rs). Each workgroup copies
// COPIES rows of LOCAL_SIZE_X consecutive uvec4s (each invocation one per row: coalesced loads
// and stores) of one part of the buffers; consecutive workgroups fill a part, then move on to the
// next, so a dispatch (hundreds of thousands of workgroups on a large GPU) walks through every
// part, and no part is copied again before the others.
#version 450
#extension GL_EXT_control_flow_attributes : require
#define FAMILY_PARAMS uint part_vec4s; uint slots; uint groups_per_part; uint unused;
#include "common.glsl"

layout(set = 0, binding = 1, std430) readonly buffer Source { uvec4 source[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Target { uvec4 target[]; };

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint part = (group / params.groups_per_part) % params.slots;
    uint first = part * params.part_vec4s + (group % params.groups_per_part) * (COPIES * LOCAL_SIZE_X);
    [[unroll]] for (uint k = 0u; k < COPIES; ++k) {
        uint at = first + k * LOCAL_SIZE_X + gl_LocalInvocationIndex;
        target[at] = source[at];
    }
}
