// fault_log.glsl: the log a self-checking shader keeps of results that differ from their known
// bits (src/record/faults.rs reads it): the mismatch count, the records written, the injector's
// tickets and its first flip's ticket (inverted), padding, then RECORDS records of 9 words: unit,
// workgroup, invocation, which result (low word), expected low and high, observed low and high,
// which result (high word). Define LOG_BINDING and RECORDS before including (and SM_ID, with
// GL_NV_shader_sm_builtins enabled, where the device names its units).
#ifndef PERFTEST_FAULT_LOG_GLSL
#define PERFTEST_FAULT_LOG_GLSL

layout(set = 0, binding = LOG_BINDING, std430) buffer Log {
    uint mismatches;
    uint written;
    uint ticket;
    uint first_flip;
    uint pad[4];
    uint records[];
} faults;

// The unit that runs this invocation (gl_SMIDNV), or ~0 where the device does not say.
uint unit_id() {
#ifdef SM_ID
    return gl_SMIDNV;
#else
    return 0xFFFFFFFFu;
#endif
}

// Whether this invocation runs on the test-only injector's unit `unit`: the SM of that ID, or,
// where the device names none, a workgroup whose index modulo 128 is `unit` (src/cases/sdc's
// GROUP_UNITS).
bool on_unit(uint group, uint unit) {
#ifdef SM_ID
    return gl_SMIDNV == unit;
#else
    return group % 128u == unit;
#endif
}

// Counts a result that differs and records the first RECORDS of them; `result` is which, in two
// words (low, high: a word of a memory larger than 2^32 words).
void log_fault_at(uint group, uvec2 result, uvec2 expected, uvec2 observed) {
    uint n = atomicAdd(faults.mismatches, 1u);
    if (n < RECORDS) {
        uint at = n * 9u;
        faults.records[at] = unit_id();
        faults.records[at + 1u] = group;
        faults.records[at + 2u] = gl_LocalInvocationIndex;
        faults.records[at + 3u] = result.x;
        faults.records[at + 4u] = expected.x;
        faults.records[at + 5u] = expected.y;
        faults.records[at + 6u] = observed.x;
        faults.records[at + 7u] = observed.y;
        faults.records[at + 8u] = result.y;
        atomicAdd(faults.written, 1u);
    }
}

void log_fault(uint group, uint result, uvec2 expected, uvec2 observed) {
    log_fault_at(group, uvec2(result, 0u), expected, observed);
}

// mix32: the injector's draws, the memory patterns.
#include "mix.glsl"

#endif
