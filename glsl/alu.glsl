// alu.glsl: ALU throughput: CHAINS independent multiply-add chains of ITERATIONS steps per invocation.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if defined(ALU_FP16)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#ifdef FLOAT_CONTROLS
// The SPIR-V float-controls modes for 16-bit floats, with their capabilities: DenormFlushToZero,
// SignedZeroInfNanPreserve and RoundingModeRTE (the case requires the device to allow each).
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(capabilities = [4465], 4460, 16);
spirv_execution_mode(capabilities = [4466], 4461, 16);
spirv_execution_mode(capabilities = [4467], 4462, 16);
#endif
#elif defined(ALU_INT16)
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#elif defined(ALU_INT64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#elif defined(ALU_DOT8)
#extension GL_EXT_integer_dot_product : require
#elif defined(ALU_BF16)
#extension GL_EXT_bfloat16 : require
#endif
// params.a, params.b: the multiply-add constants (floats: timing 0.999 and 0.01, verify 1 and 1;
// int16, int64 and the dot products read the words' raw bits).
#define FAMILY_PARAMS float a; float b;
#include "common.glsl"

// Seeds of the chains: small integers, so verify runs (a = 1, b = 1) stay exact even in fp16.
layout(set = 0, binding = 1, std430) readonly buffer Seeds { float seeds[]; };
// SEED_MASK: the seed count - 1 (src/cases/alu.rs: 63 on the default data, more on other data).
#ifndef SEED_MASK
#define SEED_MASK 63u
#endif
float seed(uint i) { return seeds[i & SEED_MASK]; }

#if defined(ALU_FP32) && defined(MEDIUMP)
    // fp32 declared mediump (RelaxedPrecision): the driver may compute it in fp16.
    #define T mediump float
    #define SEED(i) seed(i)
    #define MAD(x, a, b) fma(x, a, b)
    #define LOAD_AB() T a = params.a; T b = params.b
    #define TOTAL(x) (x)
#elif defined(ALU_FP32)
    #define T float
    #define SEED(i) seed(i)
    #define MAD(x, a, b) fma(x, a, b)
    #define LOAD_AB() T a = params.a; T b = params.b
    #define TOTAL(x) (x)
#elif defined(ALU_FP16) && LANES == 4
    // Four halves per FMA.
    #define T f16vec4
    #define SEED(i) f16vec4(seed(4u * (i)), seed(4u * (i) + 1u), seed(4u * (i) + 2u), seed(4u * (i) + 3u))
    #define MAD(x, a, b) fma(x, a, b)
    #define LOAD_AB() T a = f16vec4(params.a); T b = f16vec4(params.b)
    #define TOTAL(v) (float(v.x) + float(v.y) + float(v.z) + float(v.w))
#elif defined(ALU_FP16)
    // Packed half pairs: one f16vec2 FMA is two FMAs (HFMA2 on NVIDIA, v_pk_fma_f16 on AMD).
    #define T f16vec2
    #define SEED(i) f16vec2(seed(2u * (i)), seed(2u * (i) + 1u))
    #define MAD(x, a, b) fma(x, a, b)
    #define LOAD_AB() T a = f16vec2(params.a); T b = f16vec2(params.b)
    #define TOTAL(v) (float(v.x) + float(v.y))
#elif defined(ALU_FP64)
    #define T double
    #define SEED(i) double(seed(i))
    #define MAD(x, a, b) fma(x, a, b)
    #define LOAD_AB() T a = double(params.a); T b = double(params.b)
    #define TOTAL(x) (x)
#elif defined(ALU_INT32)
    #define T uint
    #define SEED(i) uint(seed(i))
    #define MAD(x, a, b) ((x) * (a) + (b))
    #define LOAD_AB() T a = uint(params.a); T b = uint(params.b)
    #define TOTAL(x) (x)
#elif defined(ALU_INT16) || defined(ALU_INT64)
    // a and b are the push words' raw bits.
#if defined(ALU_INT16)
    #define T uint16_t
#else
    #define T uint64_t
#endif
    #define SEED(i) T(seed(i))
    #define MAD(x, a, b) ((x) * (a) + (b))
    #define LOAD_AB() T a = T(floatBitsToUint(params.a)); T b = T(floatBitsToUint(params.b))
    #define TOTAL(x) (x)
#elif defined(ALU_DOT8)
    // A packed 4x8-bit dot product with a 32-bit accumulate: x = dot(bytes of x, bytes of a) + b.
#if SIGNED == 1
    #define T int
#else
    #define T uint
#endif
    #define SEED(i) T(seed(i))
    #define MAD(x, a, b) (dotPacked4x8EXT(x, a) + (b))
    #define LOAD_AB() T a = T(floatBitsToUint(params.a)); T b = T(floatBitsToUint(params.b))
    #define TOTAL(x) (x)
#elif defined(ALU_BF16)
    // bfloat16 has no arithmetic but conversions and dot products: x * a + b is dot((x, 1), (a, b)).
    #define T bfloat16_t
    // Seeds from -BF16_SEED_OFFSET (src/cases/alu.rs): verify chains climb through exact integers.
    #define SEED(i) bfloat16_t(seed(i) - BF16_SEED_OFFSET)
    #define MAD(x, a, b) dot(bf16vec2(x, bfloat16_t(1.0)), bf16vec2(a, b))
    #define LOAD_AB() T a = T(params.a); T b = T(params.b)
    #define TOTAL(x) (x)
#else
    #error define one of ALU_FP32, ALU_FP16, ALU_FP64, ALU_INT32, ALU_INT16, ALU_INT64, ALU_DOT8, ALU_BF16
#endif

#ifdef MIXED
// A multiply and an add the compiler may not fuse: MIXED cases alternate it with fma by chain.
T mul_add(T x, T a, T b) {
    precise T p = x * a;
    precise T r = p + b;
    return r;
}
#define STEP(k, x) (((k) & 1u) == 0u ? MAD(x, a, b) : mul_add(x, a, b))
#else
#define STEP(k, x) MAD(x, a, b)
#endif

void main() {
    uint gid = global_index();
    LOAD_AB();
    T x[CHAINS];
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
        x[k] = SEED(gid * CHAINS + k);
    }
    // UNROLL steps of every chain per loop trip: independent FMAs back to back, little loop overhead.
    for (uint i = 0u; i < ITERATIONS / UNROLL; ++i) {
        [[unroll]] for (uint j = 0u; j < UNROLL; ++j) {
            [[unroll]] for (uint k = 0u; k < CHAINS; ++k) {
                x[k] = STEP(k, x[k]);
            }
        }
    }
#if defined(ALU_INT32) || defined(ALU_INT16) || defined(ALU_INT64) || defined(ALU_DOT8)
    uint total = 0u;
#if defined(ALU_INT64)
    // Both halves of each chain reach the result, so the high-word arithmetic is kept.
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) total += uint(x[k]) ^ uint(x[k] >> 32);
#else
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) total += uint(x[k]);
#endif
    write_result(gid, total);
#else
    float total = 0.0;
    [[unroll]] for (uint k = 0u; k < CHAINS; ++k) total += float(TOTAL(x[k]));
    write_result(gid, floatBitsToUint(total));
#endif
}
