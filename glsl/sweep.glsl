// sweep.glsl: bandwidth over a working set (src/cases/sweep.rs). The set is `rows` rows of ROW
// elements (one per invocation of the workgroup); workgroup g reads LOADS consecutive rows from
// row g*(LOADS+1) (wrapping), invocation t element t of each, so a subgroup's loads are
// coalesced and small sets stay in the L1 while large ones stream through the L2 from DRAM.
// PATTERN 1 moves each 128-byte line to a fixed pseudo-random place (`lines` is a power of two):
// the same bytes, scattered. The buffer holds `slots` copies of the set; each pass over the set
// reads the next copy (host-memory cases rotate so that no GPU cache can hold what they read).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define FAMILY_PARAMS uint rows; uint lines; uint slots; uint unused;
#include "common.glsl"

#if KIND == 0
layout(set = 0, binding = 1, std430) readonly buffer Data { float data[]; };
#define VALUE float
#define FETCH(e) data[e]
#define TOTAL(v) (v)
#elif KIND == 1
layout(set = 0, binding = 1, std430) readonly buffer Data { vec4 data[]; };
#define VALUE vec4
#define FETCH(e) data[e]
#define TOTAL(v) ((v).x + (v).y + (v).z + (v).w)
#else
layout(set = 0, binding = 1) uniform textureBuffer data;
#define VALUE vec4
#define FETCH(e) texelFetch(data, int(e))
#define TOTAL(v) ((v).x + (v).y + (v).z + (v).w)
#endif

// LINE (elements per 128-byte line), LOADS and CHAINS come from the case.
const uint ROW = uint(LOCAL_SIZE_X);  // one element per invocation of the workgroup

// The element of row `row` that invocation t reads, in the copy of the set at element `base`.
uint element(uint base, uint row, uint t) {
    uint e = row * ROW + t;
#if PATTERN == 1
    uint line = ((e / LINE) * 0x9E3779B1u + 0x7F4A7C15u) & (params.lines - 1u);
    e = line * LINE + e % LINE;
#endif
    return base + e;
}

// The next row, wrapping at the end of the set.
uint next(uint row) {
    return row + 1u == params.rows ? 0u : row + 1u;
}

void main() {
    uint t = gl_LocalInvocationIndex;
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    // Windows start LOADS + 1 rows apart: workgroups that share a compute unit (g, g + units,
    // ...) start at different rows even when the set holds few windows, so none reads its lines
    // from the L1 that a neighbour in lockstep brought in.
    uint start = group * (LOADS + 1u);
    uint row = start % params.rows;
    uint base = (start / params.rows) % params.slots * params.rows * ROW;
    // CHAINS independent sums keep as many loads in flight per invocation.
    VALUE sums[CHAINS];
    [[unroll]] for (uint c = 0u; c < CHAINS; c++) {
        sums[c] = VALUE(0.0);
    }
    for (uint i = 0u; i < LOADS; i += CHAINS) {
        [[unroll]] for (uint c = 0u; c < CHAINS; c++) {
            sums[c] += FETCH(element(base, row, t));
            row = next(row);
        }
    }
    VALUE total = VALUE(0.0);
    [[unroll]] for (uint c = 0u; c < CHAINS; c++) {
        total += sums[c];
    }
    write_result(global_index(), floatBitsToUint(TOTAL(total)));
}
