// Reference kernels for the exploration (not part of perftest): L2 sweep patterns and pointer chases.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <random>
template <bool CG> __global__ void sweep(const float4* __restrict__ d, size_t n4, int loads, int step_rows, float* out) {
  // each block: `loads` rows of 256 float4 from row (block*step_rows), wrapping
  size_t rows = n4 / 256;
  size_t row = ((size_t)blockIdx.x * step_rows) % rows;
  float4 a = {0,0,0,0}, b = a, c = a, e = a;
  for (int i = 0; i < loads; i += 4) {
    float4 x = CG ? __ldcg(&d[row * 256 + threadIdx.x]) : d[row * 256 + threadIdx.x]; row = row + 1 == rows ? 0 : row + 1;
    float4 y = CG ? __ldcg(&d[row * 256 + threadIdx.x]) : d[row * 256 + threadIdx.x]; row = row + 1 == rows ? 0 : row + 1;
    float4 z = CG ? __ldcg(&d[row * 256 + threadIdx.x]) : d[row * 256 + threadIdx.x]; row = row + 1 == rows ? 0 : row + 1;
    float4 w = CG ? __ldcg(&d[row * 256 + threadIdx.x]) : d[row * 256 + threadIdx.x]; row = row + 1 == rows ? 0 : row + 1;
    a.x += x.x; a.y += x.y; a.z += x.z; a.w += x.w; b.x += y.x; b.y += y.y; b.z += y.z; b.w += y.w;
    c.x += z.x; c.y += z.y; c.z += z.z; c.w += z.w; e.x += w.x; e.y += w.y; e.z += w.z; e.w += w.w;
  }
  float t = a.x+a.y+a.z+a.w+b.x+b.y+b.z+b.w+c.x+c.y+c.z+c.w+e.x+e.y+e.z+e.w;
  if (t == 12345.678f) out[0] = t;
}
__global__ void chase_index(const unsigned* next, int n, unsigned* out, long long* clk) {
  unsigned i = 0; long long t0 = clock64();
  for (int k = 0; k < n; k++) i = next[i];
  long long t1 = clock64(); out[0] = i; clk[0] = t1 - t0;
}
__global__ void chase_ptr(void** p0, int n, void** out, long long* clk) {
  void** p = p0; long long t0 = clock64();
  for (int k = 0; k < n; k++) p = (void**)*p;
  long long t1 = clock64(); out[0] = p; clk[0] = t1 - t0;
}
int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  size_t maxb = 1ull << 30; float4* d; cudaMalloc(&d, maxb); cudaMemset(d, 0, maxb);
  float* out; cudaMalloc(&out, 64);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  size_t sizes[] = {1<<20, 4<<20, 16<<20, 32<<20, 48<<20, 1ull<<30};
  struct V { int loads, step, per_sm; const char* name; } vs[] = {
    {256, 257, 400, "perftest now: 256 rows from block*257, 400 blocks/SM"},
    {64, 64, 400, "perftest before: 64 rows from block*64, 400 blocks/SM"},
    {256, 32, 16, "issue ref: 1MiB/block from block*128KiB, 16 blocks/SM"},
  };
  for (int cg = 0; cg < 2; cg++) for (auto v : vs) for (size_t b : sizes) {
    auto k = cg ? sweep<true> : sweep<false>;
    size_t n4 = b / 16; int blocks = sms * v.per_sm;
    k<<<blocks, 256>>>(d, n4, v.loads, v.step, out);
    cudaEventRecord(e0);
    int reps = 20; for (int r = 0; r < reps; r++) k<<<blocks, 256>>>(d, n4, v.loads, v.step, out);
    cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1);
    double bytes = (double)reps * blocks * 256.0 * v.loads * 16.0;
    printf("%s %-60s %8zu KiB %7.2f TB/s\n", cg ? "ldcg" : "ld  ", v.name, b >> 10, bytes / (ms * 1e-3) / 1e12);
  }
  // chases: 128-byte lines, one random cycle
  for (size_t b : {16384ul, 65536ul, 1ul << 20, 16ul << 20}) {
    size_t lines = b / 128; std::vector<size_t> order(lines); for (size_t i = 0; i < lines; i++) order[i] = i;
    std::mt19937_64 rng(42); std::shuffle(order.begin() + 1, order.end(), rng);
    std::vector<unsigned> idx(b / 4, 0); std::vector<uint64_t> ptr(b / 8, 0);
    unsigned* di; cudaMalloc(&di, b); void** dp; cudaMalloc(&dp, b);
    for (size_t k = 0; k < lines; k++) { size_t a = order[k], nx = order[(k + 1) % lines];
      idx[a * 32] = nx * 32; ptr[a * 16] = (uint64_t)(dp + nx * 16); }
    cudaMemcpy(di, idx.data(), b, cudaMemcpyHostToDevice); cudaMemcpy(dp, ptr.data(), b, cudaMemcpyHostToDevice);
    long long* clk; cudaMalloc(&clk, 8); long long c; int n = 100000;
    chase_index<<<1,1>>>(di, n, (unsigned*)out, clk); chase_index<<<1,1>>>(di, n, (unsigned*)out, clk);
    cudaMemcpy(&c, clk, 8, cudaMemcpyDeviceToHost); printf("chase index %8zu KiB %6.1f clk\n", b >> 10, (double)c / n);
    chase_ptr<<<1,1>>>(dp, n, (void**)out, clk); chase_ptr<<<1,1>>>(dp, n, (void**)out, clk);
    cudaMemcpy(&c, clk, 8, cudaMemcpyDeviceToHost); printf("chase ptr   %8zu KiB %6.1f clk\n", b >> 10, (double)c / n);
    cudaFree(di); cudaFree(dp);
  }
  return 0;
}
