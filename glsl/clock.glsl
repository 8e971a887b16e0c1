// clock.glsl: the clock probe (src/runner/clock.rs). One invocation reads the subgroup clock,
// spins until `spin` clocks have passed, and writes its first and last reading into slot
// `slot` of the results buffer (four words: first.lo, first.hi, last.lo, last.hi).
#version 450
#extension GL_ARB_shader_clock : require
#define FAMILY_PARAMS uint spin; uint slot;
#include "common.glsl"

void main() {
    uvec2 first = clock2x32ARB();
    uvec2 last = first;
    // Unsigned subtraction of the low words wraps correctly while spin < 2^32.
    while (last.x - first.x < params.spin) {
        last = clock2x32ARB();
    }
    uint at = params.slot * 4u;
    results[at] = first.x;
    results[at + 1u] = first.y;
    results[at + 2u] = last.x;
    results[at + 3u] = last.y;
}
