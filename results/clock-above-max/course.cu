// course.cu: the SM clock counter against the global timer (which CUDA events and Vulkan
// timestamps count) and the host's clock, in the two seconds after a tensor-core load. One thread
// records (clock64, global timer) every 100 µs; the host times a 20 ms spin right after the load.
// Build: nvcc -O3 -arch=sm_90 course.cu -o course
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

// Records `n` (clock64, global ns) pairs, one every `step_ns` of the global timer.
__global__ void trace(int n, unsigned long long step_ns, unsigned long long* out) {
    unsigned long long t0 = global_ns(), next = t0;
    for (int i = 0; i < n; i++) {
        unsigned long long t;
        do t = global_ns(); while (t < next);
        out[2 * i] = clock64();
        out[2 * i + 1] = t;
        next += step_ns;
    }
}

// Spins `ns` of the global timer; the clock64 ticks and ns it spanned.
__global__ void spin_ns(unsigned long long ns, unsigned long long* out) {
    unsigned long long t0 = global_ns(), c0 = clock64(), t = t0;
    while (t - t0 < ns) t = global_ns();
    out[0] = clock64() - c0;
    out[1] = t - t0;
}

int main() {
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int n = 20000;  // 2 s at 100 µs
    unsigned long long *d, *h = new unsigned long long[2 * n];
    float* sink;
    cudaMalloc(&d, 16 * n);
    cudaMalloc(&sink, 16);
    tensor<<<sms * 4, 256>>>(200000, sink);  // warm up
    cudaDeviceSynchronize();
    printf("what,round,t_ms,value\n");
    for (int round = 0; round < 3; round++) {
        // A 20 ms spin right after the load, timed by the host too.
        tensor<<<sms * 4, 256>>>(300000, sink);
        cudaDeviceSynchronize();
        auto t0 = std::chrono::steady_clock::now();
        spin_ns<<<1, 1>>>(20000000ull, d);
        cudaDeviceSynchronize();
        double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        unsigned long long s[2];
        cudaMemcpy(s, d, 16, cudaMemcpyDeviceToHost);
        printf("spin20ms_clock64_mhz_by_global_timer,%d,0,%.1f\n", round, double(s[0]) / double(s[1]) * 1e3);
        printf("spin20ms_clock64_mhz_by_host,%d,0,%.1f\n", round, double(s[0]) / host / 1e6);
        printf("spin20ms_global_ns_per_host_ns,%d,0,%.5f\n", round, double(s[1]) * 1e-9 / host);
        // The course over two seconds after the load.
        tensor<<<sms * 4, 256>>>(300000, sink);
        cudaDeviceSynchronize();
        trace<<<1, 1>>>(n, 100000ull, d);
        cudaDeviceSynchronize();
        cudaMemcpy(h, d, 16 * n, cudaMemcpyDeviceToHost);
        // 1 ms windows for the first 20 ms, then 50 ms windows.
        int i = 0;
        while (i + 1 < n) {
            int w = i < 200 ? 10 : 500;
            int j = i + w < n ? i + w : n - 1;
            double mhz = double(h[2 * j] - h[2 * i]) / double(h[2 * j + 1] - h[2 * i + 1]) * 1e3;
            printf("trace_clock64_mhz_by_global_timer,%d,%.1f,%.1f\n", round, (h[2 * i + 1] - h[1]) * 1e-6, mhz);
            i = j;
        }
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
