// common.glsl: push constants, the results buffer and the guarded result write shared by every family.
#ifndef PERFTEST_COMMON_GLSL
#define PERFTEST_COMMON_GLSL

// LOCAL_SIZE_X/Y/Z come from the case (src/registry/case.rs, CaseSpec::local_size).
layout(local_size_x = LOCAL_SIZE_X, local_size_y = LOCAL_SIZE_Y, local_size_z = LOCAL_SIZE_Z) in;

// The 16-byte header mirrors registry::Push::bytes (HEADER_BYTES); a family declares its own
// members after it by defining FAMILY_PARAMS before including this file, for example
// `#define FAMILY_PARAMS uint n;`. The runner checks the block's size against the case's.
layout(push_constant) uniform Params {
    uint write_enable;  // 1 only in verify runs
    uint address_mask;  // always 0; ANDed into addresses so loads cannot be merged
    uint sentinel;      // a result that never occurs in timing runs (see write_result)
    uint reserved;      // 0; keeps the family block 16-byte aligned
#ifdef FAMILY_PARAMS
    FAMILY_PARAMS
#endif
} params;

// One word per invocation of a verify run. Timing runs never write it.
layout(set = 0, binding = 0, std430) writeonly buffer Results { uint results[]; };

// The invocation's index across a 2D grid of workgroups (dispatches wider than maxComputeWorkGroupCount[0]).
uint global_index() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    return group * uint(LOCAL_SIZE_X * LOCAL_SIZE_Y * LOCAL_SIZE_Z) + gl_LocalInvocationIndex;
}

// Writes the invocation's result in verify runs. The comparison with the sentinel makes the
// branch depend on the result, so the compiler can neither drop the work nor sink it into the
// branch; the modulo keeps a chance match inside the buffer.
void write_result(uint index, uint bits) {
    if (params.write_enable != 0u || bits == params.sentinel) {
        results[index % uint(results.length())] = bits;
    }
}

#endif
