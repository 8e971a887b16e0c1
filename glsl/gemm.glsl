// gemm.glsl: a tiled matrix multiply C = A * B on cooperative matrices (src/cases/gemm.rs).
// A is M x K, row-major; B is K x N, stored column by column (N rows of K, a weight matrix's
// layout); C is M x N, row-major. Each workgroup computes one BM x BN tile of C, walking K in
// steps of BK.
//
// Subgroup scope (VK_KHR_cooperative_matrix): the workgroup's subgroups form a grid of WM x WN
// warp tiles. Each step's A and B tiles are staged in shared memory, double-buffered: every
// invocation loads its uvec4s of step s + 1 from global memory into registers before the
// multiply-adds of step s and stores them into the other buffer after, so one barrier per step
// suffices and the loads' latency hides behind the tensor cores.
//
// Workgroup scope (TENSOR, VK_NV_cooperative_matrix2): the whole workgroup holds one BM x BK
// and one BK x BN matrix and loads them straight from global memory through tensor layouts; the
// driver stages them.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#ifdef TENSOR
#extension GL_NV_cooperative_matrix2 : require
#endif
#ifdef BFLOAT16
#extension GL_EXT_bfloat16 : require
#endif
#include "common.glsl"

// Defines from src/cases/gemm.rs: AT (input type), CT (accumulator type), M, N, K; the tile
// BM x BN x BK; without TENSOR also WM, WN (a subgroup's tile), TK (K of one multiply-add) and
// ES (bytes per input element).
// A and B are read as uvec4s: 16-byte loads (the tensor-layout loads address elements of AT
// all the same).
layout(set = 0, binding = 1, std430) readonly buffer MatrixA { uvec4 a_vec4[]; };
layout(set = 0, binding = 2, std430) readonly buffer MatrixB { uvec4 b_vec4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer MatrixC { CT c_data[]; };

// The first row and column of the workgroup's tile of C. Consecutive workgroups take the tiles
// of GROUP_M rows of tiles column by column, so the workgroups in flight share their rows of A
// and columns of B in the L2 (the grouped order of cuBLAS-style kernels).
const uint GROUP_M = 8u;

uvec2 tile_origin() {
    uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint tiles_m = M / BM;
    uint tiles_n = N / BN;
    uint band = tile / (GROUP_M * tiles_n);
    uint first = band * GROUP_M;
    uint rows = min(tiles_m - first, GROUP_M);
    uint within = tile % (GROUP_M * tiles_n);
    return uvec2((first + within % rows) * BM, (within / rows) * BN);
}

#ifdef TENSOR

void main() {
    uvec2 origin = tile_origin();
    uint row = origin.x;
    uint col = origin.y;
    tensorLayoutNV<2> layout_a = createTensorLayoutNV(2);
    layout_a = setTensorLayoutDimensionNV(layout_a, M, K);
    tensorLayoutNV<2> layout_b = createTensorLayoutNV(2);
    layout_b = setTensorLayoutDimensionNV(layout_b, N, K);
    tensorLayoutNV<2> layout_c = createTensorLayoutNV(2);
    layout_c = setTensorLayoutDimensionNV(layout_c, M, N);
    // B's storage is N x K; the view reads it transposed, as the K x N matrix.
    tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);
    coopmat<CT, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> c =
        coopmat<CT, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(CT(0));
    for (uint k = 0u; k < K; k += BK) {
        coopmat<AT, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> a;
        coopmat<AT, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> b;
        coopMatLoadTensorNV(a, a_vec4, 0, sliceTensorLayoutNV(layout_a, row, BM, k, BK));
        coopMatLoadTensorNV(b, b_vec4, 0, sliceTensorLayoutNV(layout_b, col, BN, k, BK), transposed);
        c = coopMatMulAdd(a, b, c);
    }
    coopMatStoreTensorNV(c, c_data, 0, sliceTensorLayoutNV(layout_c, row, BM, col, BN));
    // C is the output (sampled in verify runs); nothing else to return.
    write_result(global_index(), 0u);
}

#else

// uvec4s per tile row (BK inputs) and per padded shared-memory row: one uvec4 of padding
// spreads a fragment's rows over the shared-memory banks.
const uint ROW = BK * ES / 16;
const uint STRIDE = ROW + 1;
const uint THREADS = LOCAL_SIZE_X;
// uvec4s each invocation moves per step; where THREADS does not divide the tile, the last round
// clamps to the tile's last uvec4 (the same value written twice).
const uint A_LOADS = (BM * ROW + THREADS - 1u) / THREADS;
const uint B_LOADS = (BN * ROW + THREADS - 1u) / THREADS;
// Fragments of a subgroup's tile.
const uint FM = WM / 16;
const uint FN = WN / 16;
const uint TILES_N = BN / WN;

shared uvec4 tile_a[2][BM * STRIDE];
shared uvec4 tile_b[2][BN * STRIDE];

// uvec4s per row of A and B in global memory.
const uint K_VEC4 = K * ES / 16;

void main() {
    uvec2 origin = tile_origin();
    uint row = origin.x;
    uint col = origin.y;
    uint me = gl_LocalInvocationIndex;
    uint warp_m = (gl_SubgroupID / TILES_N) * WM;
    uint warp_n = (gl_SubgroupID % TILES_N) * WN;

    uvec4 next_a[A_LOADS];
    uvec4 next_b[B_LOADS];
    [[unroll]] for (uint i = 0u; i < A_LOADS; ++i) {
        uint at = min(me + i * THREADS, BM * ROW - 1u);
        next_a[i] = a_vec4[(row + at / ROW) * K_VEC4 + at % ROW];
    }
    [[unroll]] for (uint i = 0u; i < B_LOADS; ++i) {
        uint at = min(me + i * THREADS, BN * ROW - 1u);
        next_b[i] = b_vec4[(col + at / ROW) * K_VEC4 + at % ROW];
    }
    [[unroll]] for (uint i = 0u; i < A_LOADS; ++i) {
        uint at = min(me + i * THREADS, BM * ROW - 1u);
        tile_a[0][(at / ROW) * STRIDE + at % ROW] = next_a[i];
    }
    [[unroll]] for (uint i = 0u; i < B_LOADS; ++i) {
        uint at = min(me + i * THREADS, BN * ROW - 1u);
        tile_b[0][(at / ROW) * STRIDE + at % ROW] = next_b[i];
    }
    barrier();

    coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> c[FM][FN];
    [[unroll]] for (uint i = 0u; i < FM; ++i) {
        [[unroll]] for (uint j = 0u; j < FN; ++j) {
            c[i][j] = coopmat<CT, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(CT(0));
        }
    }

    const uint STEPS = K / BK;
    for (uint s = 0u; s < STEPS; ++s) {
        uint stage = s & 1u;
        bool more = s + 1u < STEPS;
        if (more) {
            uint k = (s + 1u) * ROW;
            [[unroll]] for (uint i = 0u; i < A_LOADS; ++i) {
                uint at = min(me + i * THREADS, BM * ROW - 1u);
                next_a[i] = a_vec4[(row + at / ROW) * K_VEC4 + k + at % ROW];
            }
            [[unroll]] for (uint i = 0u; i < B_LOADS; ++i) {
                uint at = min(me + i * THREADS, BN * ROW - 1u);
                next_b[i] = b_vec4[(col + at / ROW) * K_VEC4 + k + at % ROW];
            }
        }
        [[unroll]] for (uint kk = 0u; kk < BK / TK; ++kk) {
            // TK inputs are 2 uvec4s at 16 bits and 8 bits alike (TK = 16 or 32).
            uint k = kk * (TK * ES / 16);
            // All of the subgroup's A fragments, then one B fragment at a time: fewer
            // registers than holding both.
            coopmat<AT, gl_ScopeSubgroup, 16, TK, gl_MatrixUseA> a[FM];
            [[unroll]] for (uint i = 0u; i < FM; ++i) {
                coopMatLoad(a[i], tile_a[stage], (warp_m + i * 16u) * STRIDE + k, STRIDE,
                            gl_CooperativeMatrixLayoutRowMajor);
            }
            [[unroll]] for (uint j = 0u; j < FN; ++j) {
                coopmat<AT, gl_ScopeSubgroup, TK, 16, gl_MatrixUseB> b;
                coopMatLoad(b, tile_b[stage], (warp_n + j * 16u) * STRIDE + k, STRIDE,
                            gl_CooperativeMatrixLayoutColumnMajor);
                [[unroll]] for (uint i = 0u; i < FM; ++i) {
                    c[i][j] = coopMatMulAdd(a[i], b, c[i][j]);
                }
            }
        }
        if (more) {
            [[unroll]] for (uint i = 0u; i < A_LOADS; ++i) {
                uint at = min(me + i * THREADS, BM * ROW - 1u);
                tile_a[stage ^ 1u][(at / ROW) * STRIDE + at % ROW] = next_a[i];
            }
            [[unroll]] for (uint i = 0u; i < B_LOADS; ++i) {
                uint at = min(me + i * THREADS, BN * ROW - 1u);
                tile_b[stage ^ 1u][(at / ROW) * STRIDE + at % ROW] = next_b[i];
            }
        }
        barrier();
    }

    [[unroll]] for (uint i = 0u; i < FM; ++i) {
        [[unroll]] for (uint j = 0u; j < FN; ++j) {
            uint at = (row + warp_m + i * 16u) * N + col + warp_n + j * 16u;
            coopMatStore(c[i][j], c_data, at, N, gl_CooperativeMatrixLayoutRowMajor);
        }
    }
    // C is the output (sampled in verify runs); nothing else to return.
    write_result(global_index(), 0u);
}

#endif
