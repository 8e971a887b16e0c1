// probe.cu: what perftest's shader-clock probe reads after tensor-core load, against the clock
// the SM really ran at. perftest's probe spins one thread for 100k and then 1.1M SM clocks, each
// in a launch of its own between two GPU timestamps, and takes (extra clocks) / (extra time).
// This program does the same with CUDA events, and beside it reads the SM clock against the
// global timer inside one launch (no launch cost in it), idle and right after a tensor-core
// load, and inside the tensor-core kernel itself. Build: nvcc -O3 -arch=sm_90 probe.cu -o probe
#include <cstdio>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Spins `spin` SM clocks; records the clocks and global-timer nanoseconds it spanned.
__global__ void spin(unsigned long long spin, unsigned long long* out) {
    unsigned long long t0 = global_ns(), c0 = clock64(), c = c0;
    while (c - c0 < spin) c = clock64();
    unsigned long long t1 = global_ns();
    out[0] = c - c0;
    out[1] = t1 - t0;
}

// Tensor-core multiply-adds in registers, 8 warps a block; block 0's first thread records the
// SM clocks and nanoseconds of its loop, the clock the SMs ran at under the load.
__global__ void tensor(int iters, float* sink, unsigned long long* during) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[4];
    wmma::fill_fragment(a, __float2half(0.001f));
    wmma::fill_fragment(b, __float2half(0.001f));
    for (int k = 0; k < 4; k++) wmma::fill_fragment(c[k], 0.0f);
    unsigned long long t0 = global_ns(), c0 = clock64();
    for (int i = 0; i < iters; i++)
        for (int k = 0; k < 4; k++) wmma::mma_sync(c[k], a, b, c[k]);
    unsigned long long c1 = clock64(), t1 = global_ns();
    float s = 0;
    for (int k = 0; k < 4; k++) s += c[k].x[0];
    if (s == 12345.0f) sink[0] = s;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        during[0] = c1 - c0;
        during[1] = t1 - t0;
    }
}

struct Reading {
    double two_span_mhz, short_mhz, long_mhz;
};

// perftest's probe: the short span, then the long one, each timed by events around its launch;
// with `throwaway`, an unmeasured short span first (as perftest does since this study).
static Reading probe(unsigned long long* d, bool throwaway) {
    if (throwaway) {
        spin<<<1, 1>>>(100000, d);
        cudaDeviceSynchronize();
    }
    unsigned long long spans[2] = {100000, 1100000}, h[2][2];
    float ms[2];
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int s = 0; s < 2; s++) {
        cudaEventRecord(e0);
        spin<<<1, 1>>>(spans[s], d);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms[s], e0, e1);
        cudaMemcpy(h[s], d, 16, cudaMemcpyDeviceToHost);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    Reading r;
    r.two_span_mhz = double(h[1][0] - h[0][0]) / ((ms[1] - ms[0]) * 1e3);
    r.short_mhz = double(h[0][0]) / double(h[0][1]) * 1e3;
    r.long_mhz = double(h[1][0]) / double(h[1][1]) * 1e3;
    return r;
}

int main() {
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    unsigned long long *d, *during;
    float* sink;
    cudaMalloc(&d, 64);
    cudaMalloc(&during, 16);
    cudaMalloc(&sink, 16);
    // Warm up to the sustained clock.
    tensor<<<sms * 4, 256>>>(200000, sink, during);
    cudaDeviceSynchronize();
    printf("condition,round,two_span_mhz,short_span_in_kernel_mhz,long_span_in_kernel_mhz,under_load_in_kernel_mhz\n");
    for (int round = 0; round < 16; round++) {
        // Even rounds probe as perftest did; odd rounds with an unmeasured span first.
        bool throwaway = round % 2 == 1;
        const char* how = throwaway ? "throwaway_first" : "as_before";
        // Idle: a pause as long as a case's bookkeeping, then the probe.
        cudaDeviceSynchronize();
        Reading idle = probe(d, throwaway);
        printf("idle_%s,%d,%.1f,%.1f,%.1f,\n", how, round, idle.two_span_mhz, idle.short_mhz, idle.long_mhz);
        // About 300 ms of tensor-core load on every SM, then the probe at once, as after a case.
        tensor<<<sms * 4, 256>>>(300000, sink, during);
        cudaDeviceSynchronize();
        unsigned long long h[2];
        cudaMemcpy(h, during, 16, cudaMemcpyDeviceToHost);
        Reading after = probe(d, throwaway);
        printf("after_tensor_%s,%d,%.1f,%.1f,%.1f,%.1f\n", how, round, after.two_span_mhz, after.short_mhz,
               after.long_mhz, double(h[0]) / double(h[1]) * 1e3);
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
