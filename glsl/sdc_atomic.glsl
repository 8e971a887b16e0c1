// sdc_atomic.glsl: the corruption screen's atomics (src/cases/sdc/atomic.rs). Each workgroup runs
// CYCLES cycles; in each, every invocation adds ROUNDS known words to COUNTERS counters (in round
// k invocation t adds value(t, k) to counter (t + k) % COUNTERS, so each counter's adds come from
// several subgroups at once), then, after a barrier, invocation c < COUNTERS reads counter c,
// resets it, and compares it with its known total, which it computes in closed form (the values
// are linear in t and k, and every counter's total is the same). A total that differs is
// logged (the record's "result" is cycle * COUNTERS + c). With DEVICE the counters are the
// workgroup's own words of a device buffer (atomics in the memory system, read and reset with
// atomicExchange); otherwise a shared array. A verify run writes the totals each invocation's
// counter reached in the last cycle.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef SM_ID
#extension GL_NV_shader_sm_builtins : require
#endif
// seed: mixed into every workgroup's values.
#define FAMILY_PARAMS uint seed; uint pad0; uint pad1; uint pad2;
#include "common.glsl"

#define LOG_BINDING 1
#include "fault_log.glsl"

#ifdef DEVICE
layout(set = 0, binding = 2, std430) coherent buffer Counters { uint counter[]; };
#else
shared uint counter[COUNTERS];
#endif
shared uint reached[COUNTERS];

const uint A = 0x9E3779B1u;
const uint B = 0x85EBCA77u;
const uint WIDTH = uint(LOCAL_SIZE_X);
// Invocations that add to one counter in one round.
const uint SHARERS = WIDTH / COUNTERS;

// Makes the workgroup's adds (or resets) to its counters visible to all its invocations.
void counters_barrier() {
#ifdef DEVICE
    memoryBarrierBuffer();
#else
    memoryBarrierShared();
#endif
    barrier();
}

// The word invocation t adds in round k of a cycle salted `salt`.
uint value(uint t, uint k, uint salt) {
    return t * A + k * B + salt;
}

// Every counter's total after a cycle salted `salt`: in round k the invocations t = t0 + j *
// COUNTERS (t0 = (c - k) mod COUNTERS, j < SHARERS) add to counter c, and over ROUNDS rounds (a
// multiple of COUNTERS) t0 takes every residue ROUNDS / COUNTERS times, so each counter's adds sum
// to A (SHARERS (ROUNDS / COUNTERS) COUNTERS (COUNTERS - 1) / 2 + ROUNDS COUNTERS SHARERS
// (SHARERS - 1) / 2) + SHARERS (B ROUNDS (ROUNDS - 1) / 2 + ROUNDS salt), all modulo 2^32.
uint total(uint salt) {
    uint residues = SHARERS * (ROUNDS / COUNTERS) * (COUNTERS * (COUNTERS - 1u) / 2u);
    uint spread = ROUNDS * COUNTERS * (SHARERS * (SHARERS - 1u) / 2u);
    return A * (residues + spread) + SHARERS * (B * (ROUNDS * (ROUNDS - 1u) / 2u) + ROUNDS * salt);
}

void main() {
    uint t = gl_LocalInvocationIndex;
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
#ifdef DEVICE
    uint base = group * COUNTERS;
#else
    uint base = 0u;
    if (t < COUNTERS) {
        counter[t] = 0u;
    }
    barrier();
#endif
#ifdef INJECT
    // The test-only injector: invocation 0 of the target's workgroups adds its first word of
    // each cycle with bit INJECT_BIT flipped.
    bool target = t == 0u && on_unit(group, INJECT_UNIT);
#endif
    for (uint cycle = 0u; cycle < CYCLES; ++cycle) {
        uint salt = mix32(group ^ params.seed) + cycle * 0x632BE5ABu;
        [[unroll]] for (uint k = 0u; k < ROUNDS; ++k) {
            uint v = value(t, k, salt);
#ifdef INJECT
            if (target && k == 0u) {
                v ^= 1u << INJECT_BIT;
            }
#endif
            atomicAdd(counter[base + (t + k) % COUNTERS], v);
        }
        counters_barrier();
        if (t < COUNTERS) {
#ifdef DEVICE
            uint observed = atomicExchange(counter[base + t], 0u);
#else
            uint observed = counter[t];
            counter[t] = 0u;
#endif
            reached[t] = observed;
#ifndef UNCHECKED
            uint expected = total(salt);
            if (observed != expected) {
                log_fault(group, cycle * COUNTERS + t, uvec2(expected, 0u), uvec2(observed, 0u));
            }
#endif
        }
        counters_barrier();
    }
    // A verify run checks the first workgroups' results (the grid is larger than the buffer).
    if (global_index() < uint(results.length())) {
        write_result(global_index(), reached[t % COUNTERS]);
    }
}
