// rate.cu: is the SM clock counter's rate above 1980 MHz real? Against the host's clock: the
// global timer (which CUDA events and Vulkan timestamps count) and clock64 over one second; and an
// fp32 FMA kernel's work per clock64 tick per SM, which cannot exceed 256 FLOP if the counter
// ticks at the clock the SMs execute at. Idle, then after tensor-core load, three rounds.
// Build: nvcc -O3 -arch=sm_90 rate.cu -o rate
#include <chrono>
#include <cstdio>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// One thread spins for `ns` of the global timer; records the clock64 ticks and nanoseconds.
__global__ void spin_ns(unsigned long long ns, unsigned long long* out) {
    unsigned long long t0 = global_ns(), c0 = clock64(), t = t0;
    while (t - t0 < ns) t = global_ns();
    out[0] = clock64() - c0;
    out[1] = t - t0;
}

// 8 independent FMA chains a thread; block 0's first thread records its clock64 ticks and ns.
__global__ void fma(int iters, float* sink, unsigned long long* span) {
    float a[8];
    for (int k = 0; k < 8; k++) a[k] = threadIdx.x * 1e-7f + k;
    unsigned long long t0 = global_ns(), c0 = clock64();
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int k = 0; k < 8; k++) a[k] = fmaf(a[k], 0.999999f, 1e-7f);
    unsigned long long c1 = clock64(), t1 = global_ns();
    float s = 0;
    for (int k = 0; k < 8; k++) s += a[k];
    if (s == 1234.5f) sink[0] = s;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        span[0] = c1 - c0;
        span[1] = t1 - t0;
    }
}

__global__ void tensor(int iters, float* sink) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[4];
    wmma::fill_fragment(a, __float2half(0.001f));
    wmma::fill_fragment(b, __float2half(0.001f));
    for (int k = 0; k < 4; k++) wmma::fill_fragment(c[k], 0.0f);
    for (int i = 0; i < iters; i++)
        for (int k = 0; k < 4; k++) wmma::mma_sync(c[k], a, b, c[k]);
    if (c[0].x[0] == 12345.0f) sink[0] = 1;
}

static double host_s(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main() {
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    unsigned long long *d, h[2];
    float* sink;
    cudaMalloc(&d, 64);
    cudaMalloc(&sink, 16);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    fma<<<sms * 8, 256>>>(100000, sink, d);  // warm up
    cudaDeviceSynchronize();
    printf("when,what,value\n");
    for (int round = 0; round < 4; round++) {
        const char* when = round == 0 ? "idle" : "after_tensor";
        if (round > 0) {
            tensor<<<sms * 4, 256>>>(300000, sink);
            cudaDeviceSynchronize();
        }
        // The FMA kernel: FLOP per clock64 tick per SM, and the rate by events and by host time.
        const int iters = 200000;
        auto t0 = std::chrono::steady_clock::now();
        cudaEventRecord(e0);
        fma<<<sms * 8, 256>>>(iters, sink, d);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        double host = host_s(t0);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost);
        double flop = 2.0 * 8 * iters * 256.0 * sms * 8;
        printf("%s,fma_tflops_by_events,%.2f\n", when, flop / (ms * 1e-3) / 1e12);
        printf("%s,fma_tflops_by_host,%.2f\n", when, flop / host / 1e12);
        printf("%s,fma_flop_per_clock64_tick_per_sm,%.1f\n", when, flop / sms / double(h[0]));
        printf("%s,fma_clock64_mhz_in_kernel,%.1f\n", when, double(h[0]) / double(h[1]) * 1e3);
        // One second of the global timer against the host's clock, and clock64 over it.
        t0 = std::chrono::steady_clock::now();
        spin_ns<<<1, 1>>>(1000000000ull, d);
        cudaDeviceSynchronize();
        host = host_s(t0);
        cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost);
        printf("%s,global_timer_ns_per_host_ns,%.5f\n", when, double(h[1]) * 1e-9 / host);
        printf("%s,clock64_mhz_by_host_time,%.1f\n", when, double(h[0]) / host / 1e6);
        printf("%s,clock64_mhz_by_global_timer,%.1f\n", when, double(h[0]) / double(h[1]) * 1e3);
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
