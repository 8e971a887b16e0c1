// sweep.glsl: bandwidth over a working set (src/cases/sweep.rs). The set is `rows` rows of ROW
// elements (one per invocation of the workgroup); workgroup g reads LOADS consecutive rows from
// row g*LOADS (wrapping), invocation t element t of each, so a subgroup's loads are coalesced
// and small sets stay in the L1 while large ones stream through the L2 from DRAM. PATTERN 1 moves each 128-byte line to a fixed
// pseudo-random place (`lines` is a power of two): the same bytes, scattered.
#version 450
#extension GL_GOOGLE_include_directive : require
#define FAMILY_PARAMS uint rows; uint lines;
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

// LINE (elements per 128-byte line) comes from the case.
const uint LOADS = 64u;
const uint ROW = uint(LOCAL_SIZE_X);  // one element per invocation of the workgroup

uint element(uint row, uint t) {
    uint e = row * ROW + t;
#if PATTERN == 1
    uint line = ((e / LINE) * 0x9E3779B1u + 0x7F4A7C15u) & (params.lines - 1u);
    e = line * LINE + e % LINE;
#endif
    return e;
}

// The next row, wrapping at the end of the set.
uint next(uint row) {
    return row + 1u == params.rows ? 0u : row + 1u;
}

void main() {
    uint t = gl_LocalInvocationIndex;
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint row = (group * LOADS) % params.rows;
    // Four independent sums keep several loads in flight per invocation.
    VALUE a = VALUE(0.0), b = VALUE(0.0), c = VALUE(0.0), d = VALUE(0.0);
    for (uint i = 0u; i < LOADS; i += 4u) {
        a += FETCH(element(row, t));
        row = next(row);
        b += FETCH(element(row, t));
        row = next(row);
        c += FETCH(element(row, t));
        row = next(row);
        d += FETCH(element(row, t));
        row = next(row);
    }
    write_result(global_index(), floatBitsToUint(TOTAL(a + b + c + d)));
}
