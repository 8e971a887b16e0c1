// Why do 64 MiB of stores run at two rates on an H100 (1.03 or 0.78 Tstores/s)? Three hypotheses:
// placement (each allocation has its rate), L2 policy state (what ran before sets it), compression
// (incompressible values lose the fast rate). perftest's interleaved walk, uint4 stores.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
__device__ __forceinline__ unsigned mix(unsigned x) { x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; return x; }
__device__ __forceinline__ unsigned word(unsigned w, int hashed) { return hashed ? mix(w) : w ^ 0x5BD1E995u; }
__global__ void interleaved(uint4* d, unsigned rows, int hashed) {
    for (int i = 0; i < 16; ++i) {
        unsigned row = (i * gridDim.x + blockIdx.x) % rows; unsigned e = row * 256 + threadIdx.x, w = e * 4;
        d[e] = make_uint4(word(w, hashed), word(w + 1, hashed), word(w + 2, hashed), word(w + 3, hashed));
    }
}
__global__ void reads(const uint4* d, size_t n, unsigned* sink) {
    uint4 a = make_uint4(0, 0, 0, 0);
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n; e += (size_t)gridDim.x * blockDim.x) { uint4 v = d[e]; a.x ^= v.x; a.y ^= v.y; }
    if (a.x == 0x12345678u && a.y == 1u) *sink = 1;
}
// 4-byte stores, perftest's walk: rows of 256 uints.
__global__ void interleaved1(unsigned* d, unsigned rows) {
    for (int i = 0; i < 16; ++i) { unsigned row = (i * gridDim.x + blockIdx.x) % rows; unsigned e = row * 256 + threadIdx.x; d[e] = e ^ 0x5BD1E995u; }
}
static cudaEvent_t s, e;
static const unsigned BLOCKS = (256u << 20) / 65536;  // 256 MiB of stores per launch
static double rate(uint4* d, size_t bytes, int hashed) {
    unsigned rows = bytes / 16 / 256;
    for (int i = 0; i < 5; ++i) interleaved<<<BLOCKS, 256>>>(d, rows, hashed);
    int reps = 0; float ms = 0;
    cudaEventRecord(s);
    do { for (int i = 0; i < 10; ++i) interleaved<<<BLOCKS, 256>>>(d, rows, hashed); reps += 10; cudaEventRecord(e); cudaEventSynchronize(e); cudaEventElapsedTime(&ms, s, e); } while (ms < 40);
    return (double)BLOCKS * 65536 * reps / (ms * 1e-3) / 1e12;
}
static double rate1(unsigned* d, size_t bytes) {
    unsigned rows = bytes / 4 / 256, blocks = (64u << 20) / 16384;  // 64 MiB per launch
    for (int i = 0; i < 5; ++i) interleaved1<<<blocks, 256>>>(d, rows);
    int reps = 0; float ms = 0;
    cudaEventRecord(s);
    do { for (int i = 0; i < 10; ++i) interleaved1<<<blocks, 256>>>(d, rows); reps += 10; cudaEventRecord(e); cudaEventSynchronize(e); cudaEventElapsedTime(&ms, s, e); } while (ms < 40);
    return (double)blocks * 16384 * reps / (ms * 1e-3) / 1e12;
}
int main(int argc, char**) {
    cudaEventCreate(&s); cudaEventCreate(&e);
    if (argc > 1) {
        printf("D. 4-byte stores, perftest's walk, 6 fresh allocations per size: TB/s\n");
        for (size_t mib : {16, 32, 64, 128, 256}) {
            printf("%4zu MiB:", mib);
            for (int t = 0; t < 6; ++t) { void* sp; cudaMalloc(&sp, (size_t)(t * 37 + 2) << 20); unsigned* d; cudaMalloc(&d, mib << 20); printf("  %.2f", rate1(d, mib << 20)); cudaFree(d); cudaFree(sp); }
            printf("\n");
        }
        return 0;
    }
    printf("A. fresh allocations: TB/s of w^c values / hashed values, 6 allocations per size\n");
    for (size_t mib : {32, 40, 48, 56, 64, 72, 80, 96, 128, 256}) {
        printf("%4zu MiB:", mib);
        for (int t = 0; t < 6; ++t) {
            void* spacer; cudaMalloc(&spacer, (size_t)(t * 37 + 2) << 20);  // shift where the next one lands
            uint4* d; cudaMalloc(&d, mib << 20);
            double a = rate(d, mib << 20, 0), b = rate(d, mib << 20, 1);
            printf("  %.2f/%.2f", a, b);
            cudaFree(d); cudaFree(spacer);
        }
        printf("\n");
    }
    printf("B. one 64 MiB allocation, after a primer: TB/s (w^c values), 3 rounds\n");
    uint4* d; cudaMalloc(&d, 64u << 20);
    uint4* big; cudaMalloc(&big, 1u << 30);
    unsigned* sink; cudaMalloc(&sink, 4);
    const char* names[] = {"none", "1 GiB of stores", "16 MiB of stores", "1 GiB of reads", "64 MiB hashed stores"};
    for (int round = 0; round < 3; ++round)
        for (int p = 0; p < 5; ++p) {
            if (p == 1) rate(big, 1u << 30, 0);
            if (p == 2) rate(big, 16u << 20, 0);
            if (p == 3) for (int i = 0; i < 10; ++i) reads<<<132 * 8, 256>>>(big, (1u << 30) / 16, sink);
            if (p == 4) rate(d, 64u << 20, 1);
            printf("round %d, after %-22s %.2f\n", round, names[p], rate(d, 64u << 20, 0));
        }
    printf("C. 64 MiB inside 1 GiB, at offsets (MiB): TB/s\n");
    for (size_t off : {0, 64, 128, 320, 512, 896}) printf("offset %4zu: %.2f\n", off, rate(big + (off << 20) / 16, 64u << 20, 0));
}
