// Dispatch cost and device-to-device copies, as references for perftest's dispatch family and
// shader copy (issue 23). Empty-ish kernels <<<1,64>>> back to back in one stream (events around
// N launches), the same captured into a CUDA graph; a float4 copy kernel and cudaMemcpy D2D at
// sizes 1 MiB .. 1 GiB (bytes counted once), each over buffers spanning >= 256 MiB for small sizes.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void tick(unsigned* c) { if (threadIdx.x == 0) atomicAdd(c, 1u); }
__global__ void copy4(const uint4* __restrict__ s, uint4* __restrict__ d, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x * 4 + threadIdx.x;
    #pragma unroll
    for (int k = 0; k < 4; ++k) { size_t at = i + k * blockDim.x; if (at < n) d[at] = s[at]; }
}
int main() {
    unsigned* c; cudaMalloc(&c, 4);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    float ms;
    for (int rep = 0; rep < 3; ++rep) {
        const int N = 20000;
        cudaEventRecord(a); for (int i = 0; i < N; ++i) tick<<<1, 64>>>(c); cudaEventRecord(b);
        cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b);
        printf("launch stream   %8.1f ns each (%d launches)\n", ms * 1e6 / N, N);
        cudaStream_t s; cudaStreamCreate(&s); cudaGraph_t g; cudaGraphExec_t ge;
        cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
        for (int i = 0; i < 2000; ++i) tick<<<1, 64, 0, s>>>(c);
        cudaStreamEndCapture(s, &g); cudaGraphInstantiate(&ge, g, 0);
        cudaGraphLaunch(ge, s); cudaStreamSynchronize(s);
        cudaEventRecord(a, s); for (int i = 0; i < 10; ++i) cudaGraphLaunch(ge, s); cudaEventRecord(b, s);
        cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b);
        printf("launch graph    %8.1f ns each (20000 nodes)\n", ms * 1e6 / 20000);
        cudaGraphExecDestroy(ge); cudaGraphDestroy(g); cudaStreamDestroy(s);
    }
    size_t span = 1ull << 30; uint4 *src, *dst; cudaMalloc(&src, span); cudaMalloc(&dst, span);
    cudaMemset(src, 1, span);
    for (size_t bytes = 1 << 20; bytes <= span; bytes <<= 2) {
        size_t parts = (256ull << 20) / bytes; if (parts < 1) parts = 1;
        size_t n = bytes / 16; int blocks = (int)((n + 1023) / 1024);
        int reps = (int)(8ull * span / bytes); if (reps > 4000) reps = 4000; if (reps < 8) reps = 8;
        for (int kind = 0; kind < 2; ++kind) {
            for (int w = 0; w < 2; ++w) {  // one warm pass, then the timed one
                cudaEventRecord(a);
                for (int r = 0; r < reps; ++r) {
                    size_t off = (r % parts) * n;
                    if (kind == 0) copy4<<<blocks, 256>>>(src + off, dst + off, n);
                    else cudaMemcpyAsync(dst + off, src + off, bytes, cudaMemcpyDeviceToDevice);
                }
                cudaEventRecord(b); cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b);
            }
            printf("%s %8zu KiB %8.1f GB/s\n", kind ? "cudaMemcpy D2D" : "copy kernel   ", bytes >> 10,
                   (double)bytes * reps / (ms * 1e-3) / 1e9);
        }
    }
    return 0;
}
