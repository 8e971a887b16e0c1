// results/energy/cuda-energy.cu: what each level of the memory hierarchy and each kind of
// arithmetic costs in energy on this GPU, by NVML's total-energy counter, as the reference that
// perftest's --energy figures are held against (issue 50).
//
// Each workload is a kernel launched back to back (a few in flight) for WINDOW seconds after a
// warm-up. NVML's counter (mJ) updates about every 100 ms, so the window is taken between two of
// its updates: the counter is polled every 0.2 ms while the GPU stays busy, and the window starts
// and ends where it changes. Power = energy / time between those updates. The rate is measured by
// CUDA events over launches just before the window; energy per unit = power / rate. Idle power is
// measured the same way (no work) at the start and the end.
//
// Build and run (on the device machine): nvcc -O3 -arch=sm_90 cuda-energy.cu -lnvidia-ml -o e && ./e
#include "harness.h"

// ---- kernels -----------------------------------------------------------------------------
__global__ void k_fma32(float* out, int iters, float a, float b) {
  float x[8];
#pragma unroll
  for (int j = 0; j < 8; j++) x[j] = threadIdx.x * 1e-3f + j;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < 8; j++) x[j] = fmaf(x[j], a, b);
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; j++) s += x[j];
  if (s == 1234.5f) out[0] = s;
}

__global__ void k_hfma2(float* out, int iters, float a, float b) {
  __half2 x[16];
  __half2 ha = __float2half2_rn(a), hb = __float2half2_rn(b);
#pragma unroll
  for (int j = 0; j < 16; j++) x[j] = __float2half2_rn(threadIdx.x * 1e-3f + j);
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < 16; j++) x[j] = __hfma2(x[j], ha, hb);
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < 16; j++) s += __low2float(x[j]) + __high2float(x[j]);
  if (s == 1234.5f) out[0] = s;
}

__global__ void k_wmma(const half* mats, float* out, int iters) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[4];
  // Loaded from memory, so that the compiler cannot know the values.
  wmma::load_matrix_sync(a, mats, 16);
  wmma::load_matrix_sync(b, mats + 256, 16);
  for (int k = 0; k < 4; k++) wmma::fill_fragment(c[k], 0.25f * k);
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int k = 0; k < 4; k++) wmma::mma_sync(c[k], a, b, c[k]);
  }
  // Every element of every accumulator is used: with only x[0] read, the compiler dropped the
  // HMMA of the other eight columns, and the rate read twice the work done.
  float s = 0;
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < c[k].num_elements; i++) s += c[k].x[i];
  if (s == 1234.5f) out[0] = s;
}

// L1: each block reads a 16 KiB window of its own, reps times.
__global__ void k_l1(const float4* __restrict__ in, float* out, int reps) {
  const float4* w = in + (size_t)(blockIdx.x % 1024) * 1024;
  float4 s = make_float4(0, 0, 0, 0);
  for (int r = 0; r < reps; r++) {
#pragma unroll 8
    for (int k = 0; k < 64; k++) {
      float4 v = w[(threadIdx.x + k * 16 + r) & 1023];
      s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
    }
  }
  if (s.x + s.y + s.z + s.w == 1234.5f) out[0] = s.x;
}

__global__ void k_shared(float* out, int reps) {
  __shared__ float4 m[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) m[i] = make_float4(i, i, i, i);
  __syncthreads();
  float4 s = make_float4(0, 0, 0, 0);
  for (int r = 0; r < reps; r++) {
#pragma unroll 8
    for (int k = 0; k < 64; k++) {
      float4 v = m[(threadIdx.x + k * 16 + r) & 1023];
      s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
    }
  }
  if (s.x + s.y + s.z + s.w == 1234.5f) out[0] = s.x;
}

// L2: a 16 MiB set; each block reads 1 MiB from offset block x 128 KiB (wrapping), past the L1.
__global__ void k_l2(const float4* __restrict__ in, float* out, int reps, size_t n4) {
  float4 s = make_float4(0, 0, 0, 0);
  size_t start = (size_t)blockIdx.x * 8192;  // 128 KiB in float4
  for (int r = 0; r < reps; r++) {
    for (int i = threadIdx.x; i < 65536; i += blockDim.x) {  // 1 MiB in float4
      float4 v = __ldcg(&in[(start + i) % n4]);
      s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
    }
  }
  if (s.x + s.y + s.z + s.w == 1234.5f) out[0] = s.x;
}

// HBM: a grid-stride read of the whole buffer, once.
__global__ void k_hbm(const float4* __restrict__ in, float* out, size_t n4) {
  float4 s = make_float4(0, 0, 0, 0);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = __ldcs(&in[i]);
    s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
  }
  if (s.x + s.y + s.z + s.w == 1234.5f) out[0] = s.x;
}

// ---- the measurement ---------------------------------------------------------------------

int main() {
  open_device();
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;
  printf("%d SMs\n", sms);

  float* out;
  CK(cudaMalloc(&out, 64));
  half* mats;
  CK(cudaMalloc(&mats, 512 * sizeof(half)));
  {
    std::vector<half> h(512);
    for (int i = 0; i < 512; i++) h[i] = __float2half(1e-3f * ((i * 37) % 101 + 1));
    CK(cudaMemcpy(mats, h.data(), 512 * sizeof(half), cudaMemcpyHostToDevice));
  }
  const size_t hbm_bytes = 2ull << 30, l2_bytes = 16ull << 20;
  float4 *hbm, *l2, *l1;
  CK(cudaMalloc(&hbm, hbm_bytes));
  CK(cudaMemset(hbm, 0, hbm_bytes));
  CK(cudaMalloc(&l2, l2_bytes));
  CK(cudaMemset(l2, 0, l2_bytes));
  CK(cudaMalloc(&l1, 16ull << 20));
  CK(cudaMemset(l1, 0, 16ull << 20));

  const int blocks = sms * 8, threads = 256;
  const double T = (double)blocks * threads;
  const int it32 = 131072, it16 = 65536, itmma = 16384, l1reps = 4096, shreps = 4096, l2reps = 16;
  const int l2blocks = sms * 16;
  std::vector<Workload> work = {
      {"fp32 FMA", "FLOP", 2.0 * 8 * it32 * T, [&] { k_fma32<<<blocks, threads>>>(out, it32, 0.999f, 1e-4f); }},
      {"fp16 FMA (half2)", "FLOP", 4.0 * 16 * it16 * T, [&] { k_hfma2<<<blocks, threads>>>(out, it16, 0.999f, 1e-4f); }},
      {"tensor fp16->fp32 (wmma)", "FLOP", 2.0 * 16 * 16 * 16 * 4 * itmma * (T / 32),
       [&] { k_wmma<<<blocks, threads>>>(mats, out, itmma); }},
      {"L1 loads (16 KiB per block)", "B", 16.0 * 64 * l1reps * T, [&] { k_l1<<<blocks, threads>>>(l1, out, l1reps); }},
      {"shared-memory loads", "B", 16.0 * 64 * shreps * T, [&] { k_shared<<<blocks, threads>>>(out, shreps); }},
      {"L2 reads (16 MiB set)", "B", (double)(1 << 20) * l2reps * l2blocks,
       [&] { k_l2<<<l2blocks, threads>>>(l2, out, l2reps, l2_bytes / 16); }},
      {"HBM reads (2 GiB stream)", "B", (double)hbm_bytes, [&] { k_hbm<<<sms * 16, 256>>>(hbm, out, hbm_bytes / 16); }},
  };
  double idle0 = idle_watts("start");
  printf("%-28s %14s %9s %9s %12s %12s %8s\n", "workload", "rate", "W", "W-idle", "pJ/unit", "pJ/unit-idle", "window");
  auto one = [&](const Workload& w) {
    double r, s;
    double p = measure(w, &r, &s);
    double per = p / r * 1e12, above = (p - idle0) / r * 1e12;
    printf("%-28s %11.4g %s/s %8.1f %9.1f %12.4g %12.4g %7.2fs\n", w.name, r, w.unit, p, p - idle0, per, above, s);
    fflush(stdout);
  };
  for (auto& w : work) one(w);
  // The sensor's resolution: the same workload three more times.
  for (int k = 0; k < 3; k++) one(work[0]);
  one(work[6]);
  idle_watts("end");
  NK(nvmlShutdown());
  return 0;
}
