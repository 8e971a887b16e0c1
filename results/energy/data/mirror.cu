// results/energy/data/mirror.cu: perftest's energy cases on each data (issue 64), mirrored in CUDA:
// the same work per thread, the same operands and the same order as the shaders, so that a
// picojoule figure of perftest --energy can be held against one of the same work in the same
// sitting. Each kernel names the shader and the Rust that it mirrors.
//
//   fma32    glsl/alu.glsl ALU_FP32, src/cases/alu.rs: 16 chains of 1024 x = fma(x, a, b) per
//            thread, seeds[(gid * 16 + k) & mask] (63 on the default data, 65535 on others), the
//            sum of the chains written only if it is the sentinel (common.glsl's write_result in a
//            timing run).
//   hfma2    the same in f16vec2 (ALU_FP16, LANES 2): seeds 2i and 2i + 1 per chain i.
//   shared   glsl/shared.glsl KIND 2: 16 KiB of shared vec4 filled with value(k), then 512 loads
//            of element (t + i) & 1023 summed into two vec4s.
//   sweep    glsl/sweep.glsl KIND 1 PATTERN 0: block g reads 64 rows of 256 vec4 from row
//            g * 65 (wrapping in the set), thread t element t of each, into four sums.
//   coopmat  glsl/coopmat.glsl (AT float16_t, CT float, M N K 16, CHAINS 8), src/cases/coopmat.rs:
//            each warp of a 128-thread block loads A and B (16 x 16 fp16, row-major) once, runs 8
//            fp32 accumulators starting at 0..7 through 256 multiply-adds each, sums them and
//            stores the sum into slot (block * 4 + warp) & 31; A and B hold matrix_bits (below).
//   copy     src/cases/copy.rs, src/runner/copy.rs (`Copy host to device 64 MiB`): copies of 64 MiB
//            from pinned (cached) host memory into device memory, one after another, each the next
//            part of buffers spanning 256 MiB; the source holds copy_word(data, w) at word w.
//
// The data (src/registry/data.rs): default (the family's own values), zeros, constant, random.
// Build and run (on the device machine):
//   nvcc -O3 -arch=sm_90 mirror.cu -lnvidia-ml -o m && ./m [WINDOW [ONLY]]
// (WINDOW: seconds, 4 by default; ONLY: run only the cases whose name contains it.)
#include "../harness.h"

#include <cmath>
#include <cstring>
#include <string>

enum Data { DEFAULT = 0, ZEROS = 1, CONSTANT = 2, RANDOM = 3 };
static const char* DATA_NAMES[] = {"default", "zeros", "constant", "random"};
static const unsigned CONSTANT_WORD = 0xBFD55555u;
static const unsigned SENTINEL = 0xFFFFFFFFu;

__host__ __device__ unsigned mix32(unsigned v) {
  v ^= v >> 16;
  v *= 0x7feb352du;
  v ^= v >> 15;
  v *= 0x846ca68bu;
  v ^= v >> 16;
  return v;
}

// Bit 30 the inverse of bit 29: a finite, normal float.
__host__ __device__ unsigned random_word(unsigned k) {
  unsigned h = mix32(k ^ 0x9E3779B9u);
  return (h & ~(1u << 30)) | (((~h >> 29) & 1u) << 30);
}

static float bits_float(unsigned w) {
  float f;
  memcpy(&f, &w, 4);
  return f;
}

// ---- the ALU chains ------------------------------------------------------------------------
__global__ void k_fma32(const float* seeds, unsigned mask, unsigned* out, float a, float b) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  float x[16];
#pragma unroll
  for (int k = 0; k < 16; k++) x[k] = seeds[(gid * 16 + k) & mask];
  for (int i = 0; i < 1024 / 64; i++) {
#pragma unroll
    for (int j = 0; j < 64; j++) {
#pragma unroll
      for (int k = 0; k < 16; k++) x[k] = fmaf(x[k], a, b);
    }
  }
  float total = 0.0f;
#pragma unroll
  for (int k = 0; k < 16; k++) total += x[k];
  if (__float_as_uint(total) == SENTINEL) out[gid & 1023] = __float_as_uint(total);
}

__global__ void k_hfma2(const float* seeds, unsigned mask, unsigned* out, float a, float b) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 x[16];
  __half2 ha = __float2half2_rn(a), hb = __float2half2_rn(b);
#pragma unroll
  for (int k = 0; k < 16; k++) {
    unsigned i = gid * 16 + k;
    x[k] = __floats2half2_rn(seeds[(2 * i) & mask], seeds[(2 * i + 1) & mask]);
  }
  for (int i = 0; i < 1024 / 64; i++) {
#pragma unroll
    for (int j = 0; j < 64; j++) {
#pragma unroll
      for (int k = 0; k < 16; k++) x[k] = __hfma2(x[k], ha, hb);
    }
  }
  float total = 0.0f;
#pragma unroll
  for (int k = 0; k < 16; k++) total += __low2float(x[k]) + __high2float(x[k]);
  if (__float_as_uint(total) == SENTINEL) out[gid & 1023] = __float_as_uint(total);
}

// Seed i (src/cases/alu.rs `data_seed`): fp16 seeds exact in fp16.
static float seed(Data data, bool half, unsigned i) {
  switch (data) {
    case DEFAULT: return (float)((i * 37) % 64);
    case ZEROS: return 0.0f;
    case CONSTANT: return half ? bits_float(0xBFD56000u) : -5.0f / 3.0f;  // -5/3 rounded to fp16: -1.6669922
    default: {
      unsigned w = random_word(i);
      unsigned mantissa = w & (half ? 0x007FE000u : 0x007FFFFFu);
      return bits_float((w & 0x80000000u) | ((127 + ((w >> 23) & 7)) << 23) | mantissa);
    }
  }
}

// The multiply-add constants of a timing run (src/cases/alu.rs `constants`).
static void constants(Data data, bool half, float* a, float* b) {
  float eps = half ? ldexpf(1.0f, -11) : ldexpf(1.0f, -24);
  switch (data) {
    case DEFAULT: *a = 0.999f; *b = 0.01f; break;
    case ZEROS: *a = 0.0f; *b = 0.0f; break;
    case CONSTANT: *a = 1.0f - eps; *b = seed(CONSTANT, half, 0) * eps; break;
    default: *a = 1.0f - eps; *b = 0.0f; break;
  }
}

// ---- memory ----------------------------------------------------------------------------------
__device__ float value(int data, unsigned k) {
  switch (data) {
    case ZEROS: return 0.0f;
    case CONSTANT: return __uint_as_float(CONSTANT_WORD);
    case RANDOM: return __uint_as_float(random_word(k));
    default: return (float)(k % 61);
  }
}

__global__ void k_shared(unsigned* out, int data, unsigned mask) {
  __shared__ float4 m[1024];
  unsigned t = threadIdx.x;
  for (unsigned e = t; e < 1024; e += blockDim.x)
    m[e] = make_float4(value(data, e * 4), value(data, e * 4 + 1), value(data, e * 4 + 2), value(data, e * 4 + 3));
  __syncthreads();
  float4 a = make_float4(0, 0, 0, 0), b = a;
  for (unsigned i = 0; i < 512; i += 2) {
    float4 u = m[(t + i) & mask], v = m[(t + i + 1) & mask];
    a.x += u.x; a.y += u.y; a.z += u.z; a.w += u.w;
    b.x += v.x; b.y += v.y; b.z += v.z; b.w += v.w;
  }
  float4 s = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  float total = s.x + s.y + s.z + s.w;
  unsigned gid = blockIdx.x * blockDim.x + t;
  if (__float_as_uint(total) == SENTINEL) out[gid & 1023] = __float_as_uint(total);
}

__global__ void k_sweep(const float4* __restrict__ set, unsigned* out, unsigned rows) {
  unsigned t = threadIdx.x, group = blockIdx.x;
  unsigned start = group * 65;
  unsigned row = start % rows;
  float4 sums[4];
#pragma unroll
  for (int c = 0; c < 4; c++) sums[c] = make_float4(0, 0, 0, 0);
  for (int i = 0; i < 64; i += 4) {
#pragma unroll
    for (int c = 0; c < 4; c++) {
      float4 v = set[row * 256 + t];
      sums[c].x += v.x; sums[c].y += v.y; sums[c].z += v.z; sums[c].w += v.w;
      row = row + 1 == rows ? 0 : row + 1;
    }
  }
  float4 s = make_float4(0, 0, 0, 0);
#pragma unroll
  for (int c = 0; c < 4; c++) { s.x += sums[c].x; s.y += sums[c].y; s.z += sums[c].z; s.w += sums[c].w; }
  float total = s.x + s.y + s.z + s.w;
  unsigned gid = blockIdx.x * blockDim.x + t;
  if (__float_as_uint(total) == SENTINEL) out[gid & 1023] = __float_as_uint(total);
}

__global__ void k_fill(float* set, size_t words, int data) {
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < words; k += (size_t)gridDim.x * blockDim.x)
    set[k] = value(data, (unsigned)k);
}

// ---- the tensor cores -------------------------------------------------------------------------
__global__ void k_coopmat(const __half* a_data, const __half* b_data, float* sums, int iterations) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::load_matrix_sync(a, a_data, 16);
  wmma::load_matrix_sync(b, b_data, 16);
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[8];
#pragma unroll
  for (int k = 0; k < 8; k++) wmma::fill_fragment(c[k], (float)k);
  for (int i = 0; i < iterations; i++) {
#pragma unroll
    for (int k = 0; k < 8; k++) wmma::mma_sync(c[k], a, b, c[k]);
  }
#pragma unroll
  for (int k = 1; k < 8; k++)
    for (int t = 0; t < c[0].num_elements; t++) c[0].x[t] += c[k].x[t];
  unsigned slot = (blockIdx.x * 4 + threadIdx.x / 32) & 31;
  wmma::store_matrix_sync(sums + slot * 256, c[0], 16, wmma::mem_row_major);
}

// The fp16 bits of v, a normal fp16 value with at most 11 significant bits, or 0
// (src/cases/data.rs half_bits).
static unsigned short half_bits(float v) {
  if (v == 0.0f) return 0;
  unsigned bits;
  memcpy(&bits, &v, 4);
  int exponent = (int)((bits >> 23) & 0xFF) - 127 + 15;
  return (unsigned short)(((bits >> 16) & 0x8000) | ((unsigned)exponent << 10) | ((bits >> 13) & 0x3FF));
}

// Element e of A (b = false) or B (b = true) as fp16 bits (src/cases/matrix_data.rs element_bits;
// the default: src/cases/matrix.rs a_value, b_value).
static unsigned short matrix_bits(Data data, bool b, unsigned e) {
  switch (data) {
    case DEFAULT: {
      unsigned salt = b ? 0x5BD1E995u : 0u, period = b ? 4 : 5;
      int offset = b ? -1 : -2;
      unsigned h = (((e ^ salt) * 0x9E3779B1u) >> 24) % period;
      return half_bits(((int)h + offset) / 4.0f);
    }
    case ZEROS: return 0;
    case CONSTANT: return 0xBEAB;  // -5/3 rounded to fp16
    default: return (unsigned short)(random_word(b ? e ^ 0x5BD1E995u : e) >> 16);
  }
}

// ---- the host link ---------------------------------------------------------------------------
// Word w of a copy's source (src/cases/copy.rs: word, word_on).
static unsigned copy_word(Data data, unsigned w) {
  switch (data) {
    case DEFAULT: return (w * 0x9E3779B1u) ^ 0xA5A5A5A5u;
    case ZEROS: return 0;
    case CONSTANT: return CONSTANT_WORD;
    default: return random_word(w);
  }
}

static const size_t COPY_BYTES = 64ull << 20, COPY_SPAN = 256ull << 20;

// The same bytes moved by the compute units instead of a copy engine: every thread copies 16-byte
// words of mapped host memory into device memory (what a copy on the graphics or compute queue
// may be, if the driver does it with a kernel; the eighth sitting asked).
__global__ void k_host_copy(const uint4* __restrict__ from, uint4* __restrict__ to, size_t words) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
    to[i] = from[i];
}

// ---- the measurement -------------------------------------------------------------------------
// Blocks per launch so that one launch takes about 10 ms (perftest's dispatches take 20 ms; three
// launches are kept in flight here).
static unsigned blocks_for(const std::function<void(unsigned)>& launch, unsigned first) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  unsigned n = first;
  for (int round = 0; round < 3; round++) {
    launch(n);
    CK(cudaEventRecord(a));
    launch(n);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    double scaled = n * (10.0 / ms);
    n = (unsigned)(scaled > 2e9 ? 2e9 : scaled < 1 ? 1 : scaled);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return n;
}

int main(int argc, char** argv) {
  if (argc > 1) WINDOW = atof(argv[1]);
  const char* only = argc > 2 ? argv[2] : "";  // run only the cases whose label contains this
  open_device();

  unsigned* out;
  CK(cudaMalloc(&out, 4096));
  // A seed buffer for each of the two chains' kernels: every workload is set up before the first
  // is measured (through the fifth sitting they shared one: the fp32 FMAs ran on the fp16 seeds).
  float* seed_buffers[2];
  for (int half = 0; half < 2; half++) CK(cudaMalloc(&seed_buffers[half], 65536 * sizeof(float)));
  const size_t sizes[] = {32ull << 10, 8ull << 20, 256ull << 20};
  float* sets[3];
  for (int i = 0; i < 3; i++) CK(cudaMalloc(&sets[i], sizes[i]));
  unsigned* host;
  CK(cudaMallocHost(&host, COPY_SPAN));
  unsigned* registered = (unsigned*)aligned_alloc(4096, COPY_SPAN);
  CK(cudaHostRegister(registered, COPY_SPAN, cudaHostRegisterDefault));
  unsigned char* device_target;
  CK(cudaMalloc(&device_target, COPY_SPAN));
  static size_t part = 0;  // the next part of the span a copy takes
  __half *matrix_a, *matrix_b;
  CK(cudaMalloc(&matrix_a, 256 * sizeof(__half)));
  CK(cudaMalloc(&matrix_b, 256 * sizeof(__half)));
  float* matrix_sums;
  CK(cudaMalloc(&matrix_sums, 32 * 256 * sizeof(float)));

  double idle0 = idle_watts("start");
  printf("%-22s %-9s %11s %10s %8s %9s %12s %12s %8s\n", "case", "data", "rate", "unit", "W", "above", "pJ/unit",
         "pJ above", "window");
  for (int d = 0; d < 4; d++) {
    Data data = (Data)d;
    std::vector<std::pair<std::string, Workload>> work;
    // Each workload sets up its data, then finds its launch size.
    auto add = [&](const char* label, const char* unit, double units_per_block, std::function<void()> setup,
                   std::function<void(unsigned)> launch, unsigned first) {
      if (!strstr(label, only)) return;
      setup();
      unsigned n = blocks_for(launch, first);
      work.push_back({label, Workload{label, unit, units_per_block * n, [launch, n] { launch(n); }}});
    };
    for (int half = 0; half < 2; half++) {
      unsigned mask = data == DEFAULT ? 63 : 65535;
      float* seeds = seed_buffers[half];
      auto setup = [=] {
        std::vector<float> h(mask + 1);
        for (unsigned i = 0; i <= mask; i++) h[i] = seed(data, half, i);
        CK(cudaMemcpy(seeds, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
      };
      float a, b;
      constants(data, half, &a, &b);
      auto launch = [=](unsigned n) {
        if (half)
          k_hfma2<<<n, 256>>>(seeds, mask, out, a, b);
        else
          k_fma32<<<n, 256>>>(seeds, mask, out, a, b);
      };
      add(half ? "ALU fp16 FMA (f16vec2)" : "ALU fp32 FMA", "FLOP", 256.0 * 16 * 1024 * 2 * (half ? 2 : 1), setup,
          launch, 1024);
    }
    add("CoopMat f16*f16+f32 16x16x16 subgroup", "FLOP", 2.0 * 16 * 16 * 16 * 8 * 256 * 4,
        [=] {
          unsigned short h[2][256];
          for (unsigned e = 0; e < 256; e++) h[0][e] = matrix_bits(data, false, e), h[1][e] = matrix_bits(data, true, e);
          CK(cudaMemcpy(matrix_a, h[0], sizeof h[0], cudaMemcpyHostToDevice));
          CK(cudaMemcpy(matrix_b, h[1], sizeof h[1], cudaMemcpyHostToDevice));
        },
        [=](unsigned n) { k_coopmat<<<n, 128>>>(matrix_a, matrix_b, matrix_sums, 256); }, 1024);
    add("Shared vec4", "B", 256.0 * 512 * 16, [] {}, [=](unsigned n) { k_shared<<<n, 256>>>(out, d, 1023u); }, 1024);
    for (int i = 0; i < 3; i++) {
      static char labels[3][64];
      snprintf(labels[i], 64, "Sweep SSBO vec4 linear %s", i == 0 ? "32 KiB" : i == 1 ? "8 MiB" : "256 MiB");
      size_t words = sizes[i] / 4;
      float* set = sets[i];
      unsigned rows = (unsigned)(sizes[i] / 16 / 256);
      add(labels[i], "B", 256.0 * 64 * 16, [=] { k_fill<<<1024, 256>>>(set, words, d); CK(cudaDeviceSynchronize()); },
          [=](unsigned n) { k_sweep<<<n, 256>>>((const float4*)set, out, rows); }, 1024);
    }
    add("Copy host to device 64 MiB", "B", (double)COPY_BYTES,
        [=] { for (size_t w = 0; w < COPY_SPAN / 4; w++) host[w] = copy_word(data, (unsigned)w); },
        [=](unsigned n) {
          for (unsigned i = 0; i < n; i++, part = (part + 1) % (COPY_SPAN / COPY_BYTES))
            CK(cudaMemcpyAsync(device_target + part * COPY_BYTES, (unsigned char*)host + part * COPY_BYTES,
                               COPY_BYTES, cudaMemcpyHostToDevice));
        },
        1);
    // The eighth sitting: the same copies from malloc'd memory pinned afterwards (page by page,
    // as a driver may pin what it maps), and by the compute units reading the mapped host memory.
    add("Copy host to device 64 MiB registered", "B", (double)COPY_BYTES,
        [=] { for (size_t w = 0; w < COPY_SPAN / 4; w++) registered[w] = copy_word(data, (unsigned)w); },
        [=](unsigned n) {
          for (unsigned i = 0; i < n; i++, part = (part + 1) % (COPY_SPAN / COPY_BYTES))
            CK(cudaMemcpyAsync(device_target + part * COPY_BYTES, (unsigned char*)registered + part * COPY_BYTES,
                               COPY_BYTES, cudaMemcpyHostToDevice));
        },
        1);
    add("Copy host to device 64 MiB by kernel", "B", (double)COPY_BYTES,
        [=] { for (size_t w = 0; w < COPY_SPAN / 4; w++) host[w] = copy_word(data, (unsigned)w); },
        [=](unsigned n) {
          for (unsigned i = 0; i < n; i++, part = (part + 1) % (COPY_SPAN / COPY_BYTES))
            k_host_copy<<<132 * 8, 256>>>((const uint4*)((unsigned char*)host + part * COPY_BYTES),
                                          (uint4*)(device_target + part * COPY_BYTES), COPY_BYTES / 16);
        },
        1);
    for (auto& [label, w] : work) {
      double r, s;
      double p = measure(w, &r, &s);
      printf("%-22s %-9s %11.4g %10s %8.1f %9.1f %12.4g %12.4g %7.2fs\n", label.c_str(), DATA_NAMES[d], r,
             (std::string(w.unit) + "/s").c_str(), p, p - idle0, p / r * 1e12, (p - idle0) / r * 1e12, s);
      fflush(stdout);
    }
  }
  idle_watts("end");
  NK(nvmlShutdown());
  return 0;
}
