// sdc_coopmat.glsl: the corruption screen's cooperative matrices (src/cases/sdc/coopmat.rs). Each
// subgroup loads A (M x K), B and -B (K x N) of its workgroup's variant (small exact values, so
// every sum is exact), runs CHAINS accumulators from C = k through `iterations` pairs of
// multiply-adds (C = A B + C, then C = A (-B) + C, which returns C to k) and one more A B + C,
// so each ends at k + A B exactly. It then stores its accumulators into its tile of shared
// memory and compares every element with k + A B, A B from the CPU (exact too); an element
// that differs is logged (the record's "result" is (subgroup * CHAINS + k) * M * N + element).
// A verify run writes element (invocation mod M N) of the accumulators, summed.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#ifdef SM_ID
#extension GL_NV_shader_sm_builtins : require
#endif
// iterations: pairs of multiply-adds per chain (timing: many; verify: 1).
#define FAMILY_PARAMS uint iterations; uint pad0; uint pad1; uint pad2;
#include "common.glsl"

#define LOG_BINDING 1
#include "fault_log.glsl"

// Defines from src/cases/sdc/coopmat.rs: AT, CT (GLSL component types), ACC_F16 or ACC_F32 (the
// accumulator's kind; neither: int32), M, N, K, CHAINS, VARIANTS, SUBGROUPS (a workgroup's
// subgroups). BITS(v): an element's bits as a uint; FLIP(v, b): v with bit b flipped.
#if defined(ACC_F16)
// Through a pair of halves: no 16-bit integers (shaderInt16) needed.
#define BITS(v) packFloat2x16(f16vec2(v, float16_t(0.0)))
#define FLIP(v, b) unpackFloat2x16(BITS(v) ^ (1u << (b))).x
#elif defined(ACC_F32)
#define BITS(v) floatBitsToUint(v)
#define FLIP(v, b) uintBitsToFloat(floatBitsToUint(v) ^ (1u << (b)))
#else
#define BITS(v) uint(v)
#define FLIP(v, b) ((v) ^ int32_t(1u << (b)))
#endif
layout(set = 0, binding = 2, std430) readonly buffer MatrixA { AT a_data[]; };
// Each variant's B, then its -B.
layout(set = 0, binding = 3, std430) readonly buffer MatrixB { AT b_data[]; };
// Each variant's A B, from the CPU.
layout(set = 0, binding = 4, std430) readonly buffer Products { CT product[]; };

const uint MN = uint(M * N);
shared CT tile[SUBGROUPS * CHAINS * MN];

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint variant = group % VARIANTS;
    uint a_at = variant * uint(M * K);
    uint b_at = variant * 2u * uint(K * N);
    coopmat<AT, gl_ScopeSubgroup, M, K, gl_MatrixUseA> a;
    coopmat<AT, gl_ScopeSubgroup, K, N, gl_MatrixUseB> b;
    coopmat<AT, gl_ScopeSubgroup, K, N, gl_MatrixUseB> nb;
    coopMatLoad(a, a_data, a_at, K, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, b_data, b_at, N, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(nb, b_data, b_at + uint(K * N), N, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<CT, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> c[CHAINS];
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
        c[k] = coopmat<CT, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(CT(k));
    }
    for (uint i = 0u; i < params.iterations; ++i) {
        [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
            c[k] = coopMatMulAdd(a, b, c[k]);
        }
        [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
            c[k] = coopMatMulAdd(a, nb, c[k]);
        }
    }
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
        c[k] = coopMatMulAdd(a, b, c[k]);
    }
    // Each subgroup's tile holds its CHAINS accumulators.
    uint sg = gl_SubgroupID;
    uint at = sg * CHAINS * MN;
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
        coopMatStore(c[k], tile, at + k * MN, N, gl_CooperativeMatrixLayoutRowMajor);
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();
#ifndef UNCHECKED
#ifdef INJECT
    // The test-only injector: bit INJECT_BIT of element 0 of chain 0 flipped on its unit.
    bool target = on_unit(group, INJECT_UNIT);
#endif
    for (uint e = gl_SubgroupInvocationID; e < MN; e += gl_SubgroupSize) {
        CT ab = product[variant * MN + e];
        [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
            CT observed = tile[at + k * MN + e];
            CT expected = CT(k) + ab;
#ifdef INJECT
            if (target && k == 0u && e == 0u) {
                observed = FLIP(observed, INJECT_BIT);
            }
#endif
            // Compared as values: every sum is exact, and the zero's sign is not the result.
            if (observed != expected) {
                uint result = (sg * CHAINS + k) * MN + e;
                log_fault(group, result, uvec2(BITS(expected), 0u), uvec2(BITS(observed), 0u));
            }
        }
    }
#endif
    // Every chain's element (invocation mod M N), summed: what a verify run checks, and what keeps
    // every chain's work when the check is compiled out.
    CT seen = CT(0);
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
        seen += tile[at + k * MN + gl_LocalInvocationIndex % MN];
    }
    if (global_index() < uint(results.length())) {
        write_result(global_index(), BITS(seen));
    }
}
