// results/energy/square/square.cu: does NVML's total-energy counter integrate? (issue 64)
//
// A load switched on and off: for each period (30 to 200 ms) and each of 8 phases against the
// counter's own updates, every SM spins on FMAs for the first half of each period and the GPU
// idles for the second, for a window between two counter updates at least WINDOW seconds apart.
// A counter that integrates the board's power reads the duty-weighted mean of the load's and the
// idle board's watts (measured the same way at duty 1 and duty 0); a sampled one reads whatever
// the samples caught, which moves with the phase. The load ends on time: each launch spins until
// a deadline on the GPU's global timer, mapped from the host's clock.
//
// Build and run (on the device machine):
//   nvcc -O3 -arch=sm_90 square.cu -lnvidia-ml -o s && ./s [WINDOW_SECONDS]
#include "../harness.h"

#include <cmath>

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void k_clock(unsigned long long* at) { *at = global_ns(); }

// Every thread runs an FMA chain until the deadline (the GPU's global timer, ns).
__global__ void k_spin(unsigned long long deadline, float* out) {
  float x = threadIdx.x * 1e-3f, y = x + 1.0f, z = x + 2.0f, w = x + 3.0f;
  do {
#pragma unroll
    for (int i = 0; i < 64; i++) {
      x = fmaf(x, 0.999f, 0.01f);
      y = fmaf(y, 0.999f, 0.01f);
      z = fmaf(z, 0.999f, 0.01f);
      w = fmaf(w, 0.999f, 0.01f);
    }
  } while (global_ns() < deadline);
  if (x + y + z + w == 1234.5f) out[0] = x;
}

static unsigned long long* clock_at;
static float* out;
static int blocks;
// The GPU's global timer minus the host's clock, in ns.
static double offset_ns;

static void map_clocks() {
  double best = 1e30;
  for (int i = 0; i < 20; i++) {
    double before = now();
    k_clock<<<1, 1>>>(clock_at);
    CK(cudaDeviceSynchronize());
    double after = now();
    unsigned long long gpu;
    CK(cudaMemcpy(&gpu, clock_at, 8, cudaMemcpyDeviceToHost));
    // The launch and the copy back take longer than the launch alone: keep the tightest pair.
    if (after - before < best) {
      best = after - before;
      offset_ns = (double)gpu - (before + after) / 2 * 1e9;
    }
  }
}

// The square wave's state: what is launched, and how long the GPU was told to be busy.
struct Wave {
  double period, duty, shift;  // seconds; fraction on; phase shift in seconds
  long last_cycle = -1;
  double busy = 0;             // seconds of load launched so far
  void tick() {
    double t = now() + shift;
    long cycle = (long)floor(t / period);
    double on_end = cycle * period + duty * period;
    if (duty > 0 && cycle != last_cycle && t < on_end) {
      last_cycle = cycle;
      double end_host = on_end - shift;
      busy += end_host - now();
      k_spin<<<blocks, 256>>>((unsigned long long)(end_host * 1e9 + offset_ns), out);
    }
  }
};

// Watts between two counter updates at least WINDOW apart, the wave running; the share of the
// window the load was on.
static double wave_watts(Wave& wave, double* on_share) {
  auto update = [&](unsigned long long from) {
    for (;;) {
      wave.tick();
      unsigned long long e = energy_mj();
      if (e != from) return std::make_pair(now(), e);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  };
  double warm = now();
  while (now() - warm < 1.0) wave.tick();
  auto [t0, e0] = update(energy_mj());
  double busy0 = wave.busy;
  while (now() - t0 < WINDOW) {
    wave.tick();
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  auto [t1, e1] = update(energy_mj());
  // The launch that was running at t1 counted its whole length: take off what lies past t1.
  double past = (wave.last_cycle * wave.period + wave.duty * wave.period - wave.shift) - t1;
  *on_share = (wave.busy - busy0 - (past > 0 ? past : 0)) / (t1 - t0);
  CK(cudaDeviceSynchronize());
  return (e1 - e0) * 1e-3 / (t1 - t0);
}

int main(int argc, char** argv) {
  if (argc > 1) WINDOW = atof(argv[1]);
  open_device();
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  blocks = prop.multiProcessorCount * 8;
  CK(cudaMalloc(&clock_at, 8));
  CK(cudaMalloc(&out, 64));
  map_clocks();

  Wave off{0.1, 0.0, 0.0}, on{0.1, 1.0, 0.0};
  double share;
  double idle = wave_watts(off, &share);
  double load = wave_watts(on, &share);
  double load_share = share;
  printf("idle %.1f W; the load %.1f W (on %.1f%% of its window)\n", idle, load, 100 * load_share);
  printf("%9s %6s %9s %10s %10s %8s\n", "period", "phase", "on", "measured", "expected", "ratio");
  const double periods[] = {0.030, 0.050, 0.100, 0.200};
  for (double period : periods) {
    for (int phase = 0; phase < 8; phase++) {
      Wave wave{period, 0.5, period * phase / 8.0};
      double w = wave_watts(wave, &share);
      double expected = idle + (load - idle) * share / load_share;
      printf("%7.0fms %6d %8.1f%% %8.1f W %8.1f W %8.4f\n", period * 1e3, phase, 100 * share, w, expected,
             w / expected);
      fflush(stdout);
    }
  }
  NK(nvmlShutdown());
  return 0;
}
