// float4 stores over a working set: three walks, to find what keeps perftest's stores at 64 MiB
// below CUDA's grid-stride kernel.
#include <cstdio>
#include <cuda_runtime.h>
__device__ __forceinline__ uint4 value(unsigned e) { unsigned w = e * 4; return make_uint4(w ^ 0x5BD1E995u, (w + 1) ^ 0x5BD1E995u, (w + 2) ^ 0x5BD1E995u, (w + 3) ^ 0x5BD1E995u); }
// 1: grid-stride loop over the set, once per launch.
__global__ void stride(uint4* d, unsigned n) {
    for (unsigned e = blockIdx.x * blockDim.x + threadIdx.x; e < n; e += gridDim.x * blockDim.x) d[e] = value(e);
}
// 2: perftest's walk: block g writes rows g*16 .. g*16+15 (256 uint4 each), wrapping.
__global__ void rows16(uint4* d, unsigned rows) {
    unsigned row = (blockIdx.x * 16u) % rows;
    for (int i = 0; i < 16; ++i) { unsigned e = row * 256 + threadIdx.x; d[e] = value(e); row = row + 1 == rows ? 0 : row + 1; }
}
// 3: interleaved: store i of block g goes to row i*G + g, wrapping.
__global__ void interleaved(uint4* d, unsigned rows) {
    for (int i = 0; i < 16; ++i) { unsigned row = (i * gridDim.x + blockIdx.x) % rows; unsigned e = row * 256 + threadIdx.x; d[e] = value(e); }
}
int main() {
    uint4* d; cudaMalloc(&d, 1u << 30);
    cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
    for (size_t mib : {16, 64, 256, 1024}) {
        size_t bytes = mib << 20; unsigned n = bytes / 16, rows = n / 256;
        for (int kind = 0; kind < 3; ++kind) {
            // About 256 MiB of stores per launch for the row walks (16 rows of 4 KiB per block).
            unsigned blocks = kind == 0 ? 132 * 16 : (256u << 20) / 65536;
            size_t per = kind == 0 ? bytes : (size_t)blocks * 65536;
            auto go = [&] { if (kind == 0) stride<<<blocks, 256>>>(d, n); else if (kind == 1) rows16<<<blocks, 256>>>(d, rows); else interleaved<<<blocks, 256>>>(d, rows); };
            for (int i = 0; i < 20; ++i) go();
            int reps = 0; float ms = 0;
            cudaEventRecord(s);
            do { for (int i = 0; i < 20; ++i) go(); reps += 20; cudaEventRecord(e); cudaEventSynchronize(e); cudaEventElapsedTime(&ms, s, e); } while (ms < 200);
            const char* names[] = {"grid-stride", "perftest rows (block g: rows 16g..16g+15)", "interleaved (store i: row iG+g)"};
            printf("%5zu MiB %-45s %.2f TB/s\n", mib, names[kind], per * (double)reps / (ms * 1e-3) / 1e12);
        }
    }
}
