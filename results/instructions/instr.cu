// instr.cu: CUDA's instruction table on this GPU, the reference that perftest's `instr` family
// (issue 38) is held against: for each operation, throughput in operations per clock per SM and
// latency in clocks per dependent operation.
//
// Throughput: CHAINS independent chains per thread, as many 256-thread blocks as fit on every SM
// at once (one wave), each block timing itself with clock64; ops / (longest block span x SMs).
// Latency: one warp, one chain, clock64 around STEPS dependent operations.
// Each step is `x = op(x)` with only free source modifiers (|x|, -x) added, the forms shader
// compilers emit for GLSL (approximate transcendentals: ex2, lg2, sin, cos, rsqrt, sqrt, rcp).
// Round trips (float -> int -> float) count two operations. An operation that a chain of itself
// would fold (idempotent: min(min(x, a), a); associative: integer adds; self-inverse: 1/(1/x),
// bitfieldReverse) is either written so it cannot (a negated operand, two values in turn: x, y ->
// y, x + y) or paired with a cheap operation named in its row (_add, _xor, _sub), whose own
// figures are in the table to subtract.
//
// Build and run on the GPU machine: nvcc -O3 -arch=sm_90 instr.cu -o instr && ./instr > instr.csv
#include <cstdio>
#include <cstdint>
#include <cuda_fp16.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t e = (call);                                                          \
        if (e != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

constexpr int CHAINS = 8;
constexpr int UNROLL = 16;
constexpr int BLOCK = 256;

// Run-time constants the compiler cannot fold.
struct Args {
    float fa, fb;
    unsigned ua, ub;
    double da, db;
    unsigned lane;  // another lane of the warp, for shuffles
};

__device__ __forceinline__ float ex2(float x) { float r; asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
__device__ __forceinline__ float lg2(float x) { float r; asm volatile("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
__device__ __forceinline__ float rcp(float x) { float r; asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
__device__ __forceinline__ float sqrta(float x) { float r; asm volatile("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
__device__ __forceinline__ float rsqrta(float x) { float r; asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
__device__ __forceinline__ unsigned bfind(unsigned x) { unsigned r; asm volatile("bfind.u32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
__device__ __forceinline__ unsigned bfe(unsigned x, unsigned p, unsigned l) { unsigned r; asm volatile("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(p), "r"(l)); return r; }
__device__ __forceinline__ unsigned bfi(unsigned x, unsigned y, unsigned p, unsigned l) { unsigned r; asm volatile("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(x), "r"(y), "r"(p), "r"(l)); return r; }
__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

__device__ __forceinline__ unsigned add_float_fma(unsigned bits) {
    float s = __uint_as_float(bits);
#pragma unroll
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xFFFFFFFFu, s, o);
    return __float_as_uint(fmaf(s, 1.0f / 32.0f, float(lane_id())));
}
__device__ __forceinline__ unsigned inclusive_add(unsigned x) {
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
        unsigned y = __shfl_up_sync(0xFFFFFFFFu, x, o);
        if (lane_id() >= unsigned(o)) x += y;
    }
    return x;
}

// Each operation: its type, how many operations one step is, a seed and the step.
#define OP(NAME, TYPE, PER_STEP, SEED, STEP)                                               \
    struct NAME {                                                                          \
        using T = TYPE;                                                                    \
        static constexpr int per_step = PER_STEP;                                          \
        static constexpr const char* name = #NAME;                                         \
        __device__ static T seed(unsigned i, const Args& g) { return SEED; }               \
        __device__ static T step(T x, const Args& g, unsigned* sh) { return STEP; }        \
    };

// fp32
OP(f32_add, float, 1, float(i & 63u), x + g.fb)
OP(f32_mul, float, 1, float(i & 63u) + 1.0f, x * g.fa)
OP(f32_fma, float, 1, float(i & 63u), fmaf(x, g.fa, g.fb))
OP(f32_exp2, float, 1, float(i & 63u) / 64.0f, ex2(-fabsf(x)))
OP(f32_log2, float, 1, float(i & 63u) + 2.0f, lg2(fabsf(x)))
OP(f32_exp, float, 1, float(i & 63u) / 64.0f, __expf(-fabsf(x)))
OP(f32_log, float, 1, float(i & 63u) + 2.0f, __logf(fabsf(x)))
OP(f32_sin, float, 1, float(i & 63u) / 64.0f, __sinf(x))
OP(f32_cos, float, 1, float(i & 63u) / 64.0f, __cosf(x))
OP(f32_inversesqrt, float, 1, float(i & 63u) + 1.0f, rsqrta(fabsf(x)))
OP(f32_sqrt, float, 1, float(i & 63u) + 1.0f, sqrta(fabsf(x)))
OP(f32_rcp_add, float, 1, float(i & 63u) + 1.0f, rcp(x) + g.fb)
OP(f32_div, float, 1, float(i & 63u) + 1.0f, __fdividef(g.fa, x))
OP(f32_pow, float, 1, float(i & 63u) + 1.0f, __powf(fabsf(x), g.fa))
OP(f32_atan, float, 1, float(i & 63u) / 8.0f, atanf(x))
OP(f32_fract, float, 1, float(i & 63u) / 64.0f + g.fb, x - floorf(x))
OP(f32_min, float, 1, float(i & 63u), fminf(-x, g.fa))
OP(f32_max, float, 1, float(i & 63u), fmaxf(-x, g.fb))
OP(f32_clamp, float, 2, float(i & 63u), fminf(fmaxf(-x, g.fb), g.fa))
// fp16, scalar and packed pairs (a pair counts two operations)
OP(f16_add, __half, 1, __float2half(float(i & 63u)), __hadd(x, __float2half(g.fb)))
OP(f16_fma, __half, 1, __float2half(float(i & 63u) / 64.0f), __hfma(x, __float2half(g.fa), __float2half(g.fb)))
OP(f16_exp2, __half, 1, __float2half(float(i & 63u) / 64.0f), hexp2(__hneg(__habs(x))))
OP(f16_inversesqrt, __half, 1, __float2half(float(i & 63u) + 1.0f), hrsqrt(__habs(x)))
OP(f16x2_add, __half2, 2, __floats2half2_rn(float(i & 63u), 1.0f), __hadd2(x, __float2half2_rn(g.fb)))
OP(f16x2_fma, __half2, 2, __floats2half2_rn(float(i & 63u) / 64.0f, 0.5f), __hfma2(x, __float2half2_rn(g.fa), __float2half2_rn(g.fb)))
OP(f16x2_exp2, __half2, 2, __floats2half2_rn(float(i & 63u) / 64.0f, 0.5f), h2exp2(__hneg2(__habs2(x))))
OP(f16x2_inversesqrt, __half2, 2, __floats2half2_rn(float(i & 63u) + 1.0f, 2.0f), h2rsqrt(__habs2(x)))
// fp64
OP(f64_add, double, 1, double(i & 63u), x + g.db)
OP(f64_fma, double, 1, double(i & 63u), fma(x, g.da, g.db))
OP(f64_div, double, 1, double(i & 63u) + 1.0, g.da / x)
OP(f64_sqrt, double, 1, double(i & 63u) + 1.0, sqrt(fabs(x)))
// int32 and int64
OP(u32_add, uint2, 1, make_uint2(i, i + 1u), make_uint2(x.y, x.x + x.y))
OP(u32_mul, unsigned, 1, i | 1u, x * g.ua)
OP(u32_mad, unsigned, 1, i, x * g.ua + g.ub)
OP(u32_div, unsigned, 1, i + 1000u, x / g.ub)
OP(u32_mod_xor, unsigned, 1, i + 1000u, (x ^ g.ub) % g.ua)
OP(i32_div, int, 1, int(i) - 500, x / int(g.ub))
OP(u32_shl, unsigned, 1, i | 1u, x << (g.ub & 31u))
OP(u32_shr, unsigned, 1, i | 0x80000000u, x >> (g.ub & 31u))
OP(u32_bitcount, unsigned, 1, i | 0xF0F0u, unsigned(__popc(x)))
OP(u32_findmsb, unsigned, 1, i | 0x8000u, bfind(x))
OP(u32_findlsb, unsigned, 1, i | 0x8000u, unsigned(__ffs(x)))
OP(u32_bitfieldreverse_xor, unsigned, 1, i, __brev(x) ^ g.ub)
OP(u32_bitfieldextract, unsigned, 1, i, bfe(x, g.ub, 24u))
OP(u32_bitfieldinsert, unsigned, 1, i, bfi(g.ua, x, g.ub, 8u))
OP(u32_min_sub, unsigned, 1, i, min(g.ua - x, g.ub))
OP(u32_max_sub, unsigned, 1, i, max(g.ua - x, g.ub))
OP(u64_add, ulonglong2, 1, make_ulonglong2((unsigned long long)i << 20, 1ull), make_ulonglong2(x.y, x.x + x.y))
OP(u64_mul, unsigned long long, 1, ((unsigned long long)i << 20) | 1u, x * (unsigned long long)g.ua)
// conversions, as round trips (two operations per step)
OP(cvt_float_int, float, 2, float(i & 63u), float(int(x)))
OP(cvt_float_uint, float, 2, float(i & 63u), float(unsigned(x)))
OP(cvt_float_half, float, 2, float(i & 63u), __half2float(__float2half(x)))
OP(cvt_packhalf2x16, float, 2, float(i & 63u), __low2float(__floats2half2_rn(x, g.fb)))
OP(cvt_packunorm4x8, float, 2, float(i & 63u) / 64.0f,
   float(__float2uint_rn(__saturatef(x) * 255.0f) & 0xFFu) * (1.0f / 255.0f))
// the same with an add, as perftest's GLSL chains take them (a round trip alone may fold; the
// integer ones add between each pair of conversions, where no fold can reach)
OP(cvt_float_int_add, float, 2, float(i & 63u), float(int(x) + int(g.ub)) + g.fb)
OP(cvt_float_uint_add, float, 2, float(i & 63u), float(unsigned(x) + g.ub) + g.fb)
OP(cvt_float_half_add, float, 2, float(i & 63u), __half2float(__float2half(x)) + g.fb)
OP(cvt_packhalf2x16_add, float, 2, float(i & 63u), __low2float(__floats2half2_rn(x, g.fb)) + g.fb)
OP(cvt_packunorm4x8_add, float, 2, float(i & 63u) / 64.0f,
   float(__float2uint_rn(__saturatef(x) * 255.0f) & 0xFFu) * (1.0f / 255.0f) + g.fb)
// warp (subgroup) operations; each counts one operation per lane
OP(sg_shuffle, unsigned, 1, i, __shfl_sync(0xFFFFFFFFu, x, (threadIdx.x + g.lane) & 31u))
OP(sg_shufflexor, unsigned, 1, i, __shfl_xor_sync(0xFFFFFFFFu, x, g.ub))
OP(sg_broadcast_add, unsigned, 1, i, __shfl_sync(0xFFFFFFFFu, x, 3) + threadIdx.x)
OP(sg_broadcastfirst_add, unsigned, 1, i, __shfl_sync(0xFFFFFFFFu, x, __ffs(__activemask()) - 1) + threadIdx.x)
OP(sg_ballot, unsigned, 1, i, __ballot_sync(0xFFFFFFFFu, x))
OP(sg_all, unsigned, 1, i | 1u, unsigned(__all_sync(0xFFFFFFFFu, x)))
OP(sg_add_uint, unsigned, 1, i, __reduce_add_sync(0xFFFFFFFFu, x))
OP(sg_min_uint, unsigned, 1, i, __reduce_min_sync(0xFFFFFFFFu, x))
// the same with an add of the lane's index, as perftest's GLSL chains take them (a chain of a
// value every lane shares folds in Mesa's compiler); a float sum as shuffles (no REDUX for
// floats), scaled by 1/32 so it stays finite; an inclusive scan as the shuffles it lowers to
OP(sg_ballot_add, unsigned, 1, i, __ballot_sync(0xFFFFFFFFu, x) + lane_id())
OP(sg_all_add, unsigned, 1, i | 1u, unsigned(__all_sync(0xFFFFFFFFu, x)) + lane_id())
OP(sg_add_uint_add, unsigned, 1, i, __reduce_add_sync(0xFFFFFFFFu, x) + lane_id())
OP(sg_min_uint_add, unsigned, 1, i, __reduce_min_sync(0xFFFFFFFFu, x) + lane_id())
OP(sg_add_float_fma, unsigned, 1, __float_as_uint(float(i & 63u)), add_float_fma(x))
OP(sg_inclusive_add, unsigned, 1, i, inclusive_add(x))
// wg_*: latency only (a barrier in every chain would serialize the chains)
OP(wg_barrier_shared, unsigned, 1, i,
   (sh[threadIdx.x] = x, __syncthreads(), sh[threadIdx.x ^ g.ub]))
// + 64 keeps each thread on its own word (x & 63 stays its lane), as perftest's chain does
OP(wg_shared_atomicadd, unsigned, 1, i & 63u, atomicAdd(&sh[x & 63u], 64u))

template <class Op>
__global__ void throughput(typename Op::T* out, Args g, int trips, long long* spans) {
    __shared__ unsigned sh[BLOCK];
    sh[threadIdx.x] = threadIdx.x;
    using T = typename Op::T;
    T x[CHAINS];
    unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int k = 0; k < CHAINS; ++k) x[k] = Op::seed(id * CHAINS + k, g);
    __syncthreads();
    long long start = clock64();
    for (int t = 0; t < trips; ++t) {
#pragma unroll
        for (int j = 0; j < UNROLL; ++j) {
#pragma unroll
            for (int k = 0; k < CHAINS; ++k) x[k] = Op::step(x[k], g, sh);
        }
    }
    __syncthreads();
    long long end = clock64();
    if (threadIdx.x == 0) spans[blockIdx.x] = end - start;
#pragma unroll
    for (int k = 0; k < CHAINS; ++k) out[id * CHAINS + k] = x[k];
}

template <class Op>
__global__ void latency(typename Op::T* out, Args g, int trips, long long* span) {
    __shared__ unsigned sh[BLOCK];
    sh[threadIdx.x] = threadIdx.x;
    __syncthreads();
    using T = typename Op::T;
    T x = Op::seed(threadIdx.x, g);
    long long start = clock64();
    for (int t = 0; t < trips; ++t) {
#pragma unroll
        for (int j = 0; j < UNROLL; ++j) x = Op::step(x, g, sh);
    }
    long long end = clock64();
    if (threadIdx.x == 0) *span = end - start;
    out[threadIdx.x] = x;
}

struct Device {
    int sms;
    double mhz;  // the SM clock during the throughput kernels (clock64 over their event time)
};

template <class Op>
int measure(const Device& dev, const Args& g, bool throughput_too) {
    using T = typename Op::T;
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, throughput<Op>, BLOCK, 0));
    int blocks = per_sm * dev.sms;
    T* out;
    long long* spans;
    CHECK(cudaMalloc(&out, sizeof(T) * size_t(blocks) * BLOCK * CHAINS));
    CHECK(cudaMalloc(&spans, sizeof(long long) * blocks));
    double ops_per_clk_sm = 0.0, ops_per_s = 0.0, mhz = 0.0;
    if (throughput_too) {
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        int trips = 16;
        float ms = 0.0f;
        // Grow until a run takes 10 ms; the last one counts (the clock is warm by then).
        for (int tries = 0; tries < 20; ++tries) {
            cudaEventRecord(a);
            throughput<Op><<<blocks, BLOCK>>>(out, g, trips, spans);
            cudaEventRecord(b);
            CHECK(cudaEventSynchronize(b));
            CHECK(cudaGetLastError());
            cudaEventElapsedTime(&ms, a, b);
            if (ms >= 10.0f) break;
            trips = ms < 1.0f ? trips * 10 : int(trips * 12.0f / ms) + 1;
        }
        long long* host = new long long[blocks];
        CHECK(cudaMemcpy(host, spans, sizeof(long long) * blocks, cudaMemcpyDeviceToHost));
        long long longest = 0;
        for (int i = 0; i < blocks; ++i) longest = host[i] > longest ? host[i] : longest;
        delete[] host;
        double ops = double(blocks) * BLOCK * CHAINS * double(trips) * UNROLL * Op::per_step;
        ops_per_clk_sm = ops / double(longest) / dev.sms;
        ops_per_s = ops / (ms * 1e-3);
        mhz = double(longest) / (ms * 1e3);
        cudaEventDestroy(a);
        cudaEventDestroy(b);
    }
    long long* span;
    CHECK(cudaMalloc(&span, sizeof(long long)));
    const int trips = 64;  // 1024 dependent steps
    // The barrier's chain runs in a whole block; every other in one warp.
    int threads = (Op::name[0] == 'w' && Op::name[3] == 'b') ? BLOCK : 32;
    latency<Op><<<1, threads>>>(out, g, trips, span);  // warm-up and code load
    CHECK(cudaDeviceSynchronize());
    latency<Op><<<1, threads>>>(out, g, trips, span);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    long long clocks = 0;
    CHECK(cudaMemcpy(&clocks, span, sizeof(long long), cudaMemcpyDeviceToHost));
    double latency_clk = double(clocks) / (trips * UNROLL) / Op::per_step;
    if (throughput_too)
        printf("%s,%d,%.2f,%.4g,%.2f,%.0f,%d\n", Op::name, Op::per_step, ops_per_clk_sm, ops_per_s, latency_clk, mhz,
               per_sm);
    else
        printf("%s,%d,,,%.2f,,\n", Op::name, Op::per_step, latency_clk);
    fflush(stdout);
    cudaFree(out);
    cudaFree(spans);
    cudaFree(span);
    return 0;
}

#define RUN(NAME) if (measure<NAME>(dev, g, true)) return 1;
#define RUN_LATENCY(NAME) if (measure<NAME>(dev, g, false)) return 1;

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    Device dev{prop.multiProcessorCount, 0.0};
    // fa < 1 keeps multiplies finite; ub = 1 shifts, divides and XORs by one.
    Args g{0.999f, 0.001f, 0xFFFFFFFFu, 1u, 0.999, 0.001, 0u};
    g.lane = 1u;  // a shuffle from a fixed other lane: the same for every thread, not folded
    printf("# %s, %d SMs, compute %d.%d\n", prop.name, prop.multiProcessorCount, prop.major, prop.minor);
    printf("operation,ops_per_step,ops_per_clk_per_sm,ops_per_s,latency_clk,mhz,blocks_per_sm\n");
    RUN(f32_add) RUN(f32_mul) RUN(f32_fma) RUN(f32_exp2) RUN(f32_log2) RUN(f32_exp) RUN(f32_log)
    RUN(f32_sin) RUN(f32_cos) RUN(f32_inversesqrt) RUN(f32_sqrt) RUN(f32_rcp_add) RUN(f32_div) RUN(f32_pow)
    RUN(f32_atan) RUN(f32_fract) RUN(f32_min) RUN(f32_max) RUN(f32_clamp)
    RUN(f16_add) RUN(f16_fma) RUN(f16_exp2) RUN(f16_inversesqrt)
    RUN(f16x2_add) RUN(f16x2_fma) RUN(f16x2_exp2) RUN(f16x2_inversesqrt)
    RUN(f64_add) RUN(f64_fma) RUN(f64_div) RUN(f64_sqrt)
    RUN(u32_add) RUN(u32_mul) RUN(u32_mad) RUN(u32_div) RUN(u32_mod_xor) RUN(i32_div) RUN(u32_shl) RUN(u32_shr)
    RUN(u32_bitcount) RUN(u32_findmsb) RUN(u32_findlsb) RUN(u32_bitfieldreverse_xor) RUN(u32_bitfieldextract)
    RUN(u32_bitfieldinsert) RUN(u32_min_sub) RUN(u32_max_sub) RUN(u64_add) RUN(u64_mul)
    RUN(cvt_float_int) RUN(cvt_float_uint) RUN(cvt_float_half) RUN(cvt_packhalf2x16) RUN(cvt_packunorm4x8)
    RUN(sg_shuffle) RUN(sg_shufflexor) RUN(sg_broadcast_add) RUN(sg_broadcastfirst_add) RUN(sg_ballot) RUN(sg_all)
    RUN(sg_add_uint) RUN(sg_min_uint)
    RUN(cvt_float_int_add) RUN(cvt_float_uint_add) RUN(cvt_float_half_add) RUN(cvt_packhalf2x16_add) RUN(cvt_packunorm4x8_add)
    RUN(sg_ballot_add) RUN(sg_all_add) RUN(sg_add_uint_add) RUN(sg_min_uint_add) RUN(sg_add_float_fma)
    RUN(sg_inclusive_add)
    RUN_LATENCY(wg_barrier_shared) RUN_LATENCY(wg_shared_atomicadd)
    return 0;
}
