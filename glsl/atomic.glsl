// atomic.glsl: atomics under contention (src/cases/atomic.rs). Each invocation does OPS atomic
// operations on one counter, chosen by the spread: invocation g uses counter g & mask (mask + 1
// counters: 1 is every invocation on one address), or its subgroup's or workgroup's own counter.
// Global counters live in a storage buffer (reset to 0 before every measurement; verify runs
// check every counter's final value); shared ones in the workgroup's shared memory, whose final
// values the invocations write as their results.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#if OP == 1
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#elif OP == 2
#extension GL_EXT_shader_atomic_float : require
#elif OP == 5
#extension GL_KHR_shader_subgroup_arithmetic : require
#elif OP == 6
#extension GL_EXT_shader_atomic_float : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
// mask: counters - 1 (a power of two); one: 1, from the push block so that the compiler cannot
// fold the OPS adds of an invocation into one.
#define FAMILY_PARAMS uint mask; uint one; uint unused0; uint unused1;
#include "common.glsl"

// Defines from src/cases/atomic.rs:
//   OP      0 atomicAdd u32, 1 atomicAdd u64, 2 atomicAdd f32, 3 atomicMax u32 (of g * OPS + i),
//           4 an add as an atomicCompSwap loop (u32), 5 subgroupAdd, then one atomicAdd per subgroup,
//           6 the same in f32
//   SPREAD  0 counter g & mask, 1 one counter per subgroup, 2 one per workgroup
//   SCOPE   0 a storage buffer, 1 shared memory (one counter per invocation of the workgroup)
//   USED    1: the returned values are summed into the result (the compiler must keep them)
// An f32 counter on one address stops growing at 2^24 within a measurement (x + 1 == x); the
// atomics still run, so the rate is unaffected, and verify runs stay far below it.
const uint OPS = 16u;

#if OP == 1
#define T uint64_t
#elif OP == 2 || OP == 6
#define T float
#else
#define T uint
#endif

#if SCOPE == 0
layout(set = 0, binding = 1, std430) buffer Counters { T counters[]; };
#else
shared T counters[LOCAL_SIZE_X];
#endif

// The invocation's counter before the mask.
uint counter_of(uint index) {
#if SPREAD == 0
    return index;
#elif SPREAD == 1
    // Invocations g*size .. (g+1)*size - 1: a subgroup on every GPU we know. Not gl_SubgroupID,
    // which lavapipe 22.3 counts as if subgroups were 8 wide at every size (src/cases/atomic.rs).
    return index / gl_SubgroupSize;
#else
    return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
#endif
}

void main() {
    uint tid = gl_LocalInvocationIndex;
#if SCOPE == 0
    uint index = global_index();
#else
    uint index = tid;
    counters[tid] = T(0);
    barrier();
#endif
    uint at = counter_of(index) & params.mask;
    T used = T(0);
    [[unroll]] for (uint i = 0u; i < OPS; ++i) {
#if OP <= 2
#if USED == 1
        used += atomicAdd(counters[at], T(params.one));
#else
        atomicAdd(counters[at], T(params.one));
#endif
#elif OP == 3
        uint value = global_index() * OPS + i * params.one;
#if USED == 1
        used += atomicMax(counters[at], value);
#else
        atomicMax(counters[at], value);
#endif
#elif OP == 4
        // An add as a compare-and-swap loop: what any read-modify-write without its own atomic
        // (a float max, a saturating add) costs.
        uint seen = counters[at];
        uint expected;
        do {
            expected = seen;
            seen = atomicCompSwap(counters[at], expected, expected + params.one);
        } while (seen != expected);
        used += seen;
#else
        // The fix for one hot counter: the subgroup sums its adds, one lane adds the total.
        T total = subgroupAdd(T(params.one));
        if (subgroupElect()) {
            atomicAdd(counters[at], total);
        }
#endif
    }
#if SCOPE == 1
    // Every invocation passes on one counter's final value (its own index's). A sum of returned
    // values never reaches 0xFFFFFFFF here (16 values of at most 4096), so the comparison keeps
    // them alive without changing the result.
    barrier();
    write_result(global_index(), uint(counters[tid]) + (uint(used) == 0xFFFFFFFFu ? 1u : 0u));
#elif OP == 1
    write_result(global_index(), uint(used) ^ uint(used >> 32));
#elif OP == 2 || OP == 6
    write_result(global_index(), floatBitsToUint(used));
#else
    write_result(global_index(), used);
#endif
}
