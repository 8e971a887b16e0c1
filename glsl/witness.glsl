// witness.glsl: the clock witness (src/runner/witness.rs). One invocation reads the device clock
// (a timer of fixed rate) between two reads of the subgroup clock (the compute unit's own
// cycles), spins until the device clock has moved `spin` ticks, and does the same again: the
// cycles over the ticks are the compute unit's clock while it spun, and the cycles between each
// pair of subgroup-clock reads bound it (a witness that waits long for its turn to issue, beside
// work that fills its compute unit, reads the device clock late, and says so). Dispatched beside
// a case's work, it reads the clock that work runs at; it first waits `delay` ticks, so its window
// is the middle of the work, not the moment it starts. It gives up after `limit` reads, so a device
// clock that stands still cannot hang the GPU. Slot `slot` of the results buffer gets fifteen of
// its sixteen words: the subgroup clock before and after the first device-clock read, and before
// and after the last (each low word first), the device clock's first and last reads, the smallest
// step the device clock was seen to take, the reads made, and `tag` (which submission wrote it).
#version 450
#extension GL_ARB_shader_clock : require
#extension GL_EXT_shader_realtime_clock : require
#define FAMILY_PARAMS uint spin; uint slot; uint limit; uint tag; uint delay;
#include "common.glsl"

void main() {
    uint waited = 0u;
    uvec2 start = clockRealtime2x32EXT();
    while (clockRealtime2x32EXT().x - start.x < params.delay && waited < params.limit) {
        waited += 1u;
    }
    uvec2 cycles_before_first = clock2x32ARB();
    uvec2 device_first = clockRealtime2x32EXT();
    uvec2 cycles_after_first = clock2x32ARB();
    uvec2 device_now = device_first;
    uint previous = device_first.x;
    uint smallest = 0xFFFFFFFFu;
    uint reads = 0u;
    // Unsigned subtraction of the low words wraps correctly while spin < 2^32.
    while (device_now.x - device_first.x < params.spin && reads < params.limit) {
        device_now = clockRealtime2x32EXT();
        uint step = device_now.x - previous;
        if (step != 0u) {
            smallest = min(smallest, step);
        }
        previous = device_now.x;
        reads += 1u;
    }
    uvec2 cycles_before_last = clock2x32ARB();
    uvec2 device_last = clockRealtime2x32EXT();
    uvec2 cycles_after_last = clock2x32ARB();
    uint at = params.slot * 16u;
    results[at] = cycles_before_first.x;
    results[at + 1u] = cycles_before_first.y;
    results[at + 2u] = cycles_after_first.x;
    results[at + 3u] = cycles_after_first.y;
    results[at + 4u] = cycles_before_last.x;
    results[at + 5u] = cycles_before_last.y;
    results[at + 6u] = cycles_after_last.x;
    results[at + 7u] = cycles_after_last.y;
    results[at + 8u] = device_first.x;
    results[at + 9u] = device_first.y;
    results[at + 10u] = device_last.x;
    results[at + 11u] = device_last.y;
    results[at + 12u] = smallest;
    results[at + 13u] = reads;
    results[at + 14u] = params.tag;
}
