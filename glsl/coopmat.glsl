// coopmat.glsl: cooperative-matrix (tensor core) throughput (src/cases/coopmat.rs). Each subgroup
// (or, with WORKGROUP_SCOPE, each workgroup) loads A (M x K) and B (K x N) once, then runs CHAINS
// independent accumulators through `iterations` multiply-adds each (result = A * B + C), sums
// them and stores the M x N sum into its slot of the output. The matrices stay in registers;
// only the multiply-adds are timed.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#ifdef WORKGROUP_SCOPE
// Workgroup-scope matrices of any multiple of the granularity (VK_NV_cooperative_matrix2).
#extension GL_NV_cooperative_matrix2 : require
#endif
#ifdef BFLOAT16
#extension GL_EXT_bfloat16 : require
#endif
// iterations: multiply-adds per chain (timing: many; verify: 2); slots: output matrices, a
// power of two (timing runs wrap and rewrite the same sums).
#define FAMILY_PARAMS uint iterations; uint slots;
#include "common.glsl"

// Defines from src/cases/coopmat.rs: AT, BT, CT (GLSL component types), SCOPE, M, N, K, CHAINS.
layout(set = 0, binding = 1, std430) readonly buffer MatrixA { AT a_data[]; };
layout(set = 0, binding = 2, std430) readonly buffer MatrixB { BT b_data[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Sums { CT sums[]; };

void main() {
    coopmat<AT, SCOPE, M, K, gl_MatrixUseA> a;
    coopmat<BT, SCOPE, K, N, gl_MatrixUseB> b;
    coopMatLoad(a, a_data, 0, K, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, b_data, 0, N, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<CT, SCOPE, M, N, gl_MatrixUseAccumulator> c[CHAINS];
    // Distinct starting values, so a compiler cannot compute one chain and scale it.
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
        c[k] = coopmat<CT, SCOPE, M, N, gl_MatrixUseAccumulator>(CT(k));
    }
    for (uint i = 0u; i < params.iterations; ++i) {
        [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
            c[k] = coopMatMulAdd(a, b, c[k]);
        }
    }
    coopmat<CT, SCOPE, M, N, gl_MatrixUseAccumulator> total = c[0];
    [[unroll]] for (uint k = 1u; k < CHAINS; ++k) {
        total = total + c[k];
    }
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
#ifdef WORKGROUP_SCOPE
    uint slot = group & (params.slots - 1u);
#else
    uint slot = (group * gl_NumSubgroups + gl_SubgroupID) & (params.slots - 1u);
#endif
    coopMatStore(total, sums, slot * uint(M * N), N, gl_CooperativeMatrixLayoutRowMajor);
    // The sums are the output (checked whole in verify runs); nothing else to return.
    write_result(global_index(), 0u);
}
