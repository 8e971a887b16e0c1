// results/energy/harness.h: what the CUDA energy programs (cuda-energy.cu, data/mirror.cu) share: a
// workload launched back to back (a few in flight), NVML's total-energy counter read between two
// of its updates while the GPU stays busy, the rate by CUDA events, the idle board.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
#include <nvml.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                 \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#define NK(x)                                                                  \
  do {                                                                         \
    nvmlReturn_t r_ = (x);                                                     \
    if (r_ != NVML_SUCCESS) {                                                  \
      fprintf(stderr, "%s: %s\n", #x, nvmlErrorString(r_));                    \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static double WINDOW = 4.0;  // seconds between the two counter updates, at least (a program may set it)
static const double WARM = 1.0;    // seconds of the workload before its window

static double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

struct Workload {
  const char* name;
  const char* unit;    // what one unit of work is
  double units;        // units per launch
  std::function<void()> launch;
};

static nvmlDevice_t nvml_device;

static unsigned long long energy_mj() {
  unsigned long long e;
  NK(nvmlDeviceGetTotalEnergyConsumption(nvml_device, &e));
  return e;
}

// Keeps at most `depth` launches in flight.
struct Feeder {
  std::function<void()> launch;
  int depth;
  std::vector<cudaEvent_t> ring;
  size_t issued = 0, done = 0;
  Feeder(std::function<void()> l, int d) : launch(l), depth(d), ring(d) {
    for (auto& e : ring) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~Feeder() {
    CK(cudaDeviceSynchronize());
    for (auto& e : ring) cudaEventDestroy(e);
  }
  void feed() {
    while (done < issued && cudaEventQuery(ring[done % depth]) == cudaSuccess) done++;
    while (issued - done < (size_t)depth) {
      launch();
      CK(cudaEventRecord(ring[issued % depth]));
      issued++;
    }
  }
};

// The time and counter at the counter's next update, feeding the GPU meanwhile (if `feed`).
static std::pair<double, unsigned long long> next_update(Feeder* feed) {
  unsigned long long e0 = energy_mj();
  for (;;) {
    if (feed) feed->feed();
    unsigned long long e = energy_mj();
    if (e != e0) return {now(), e};
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// Watts between two counter updates at least WINDOW apart, with `feed` busy (or idle).
static double watts(Feeder* feed, double* seconds) {
  auto [t0, e0] = next_update(feed);
  while (now() - t0 < WINDOW) {
    if (feed) feed->feed();
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  auto [t1, e1] = next_update(feed);
  *seconds = t1 - t0;
  return (e1 - e0) * 1e-3 / (t1 - t0);
}

// Units per second by CUDA events over `n` launches.
static double rate(const Workload& w, int n) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  for (int i = 0; i < n; i++) w.launch();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms;
  CK(cudaEventElapsedTime(&ms, a, b));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return w.units * n / (ms * 1e-3);
}

static double idle_watts(const char* when) {
  CK(cudaDeviceSynchronize());
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  double s;
  double w = watts(nullptr, &s);
  printf("idle (%s)  %.1f W over %.2f s\n", when, w, s);
  return w;
}

// Opens GPU 0 and its NVML handle; prints its name, driver, PCI address and the window.
static void open_device() {
  CK(cudaSetDevice(0));
  char bus[32];
  CK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  NK(nvmlInit_v2());
  NK(nvmlDeviceGetHandleByPciBusId_v2(bus, &nvml_device));
  char name[96], driver[96];
  NK(nvmlDeviceGetName(nvml_device, name, sizeof name));
  NK(nvmlSystemGetDriverVersion(driver, sizeof driver));
  printf("%s, driver %s, PCI %s; window %.1f s between NVML counter updates\n", name, driver, bus, WINDOW);
}

// A workload's rate and board watts: WARM seconds of it, its rate over 8 launches, then the watts
// of a window with it kept busy (3 launches in flight); the window's length in `seconds`.
static double measure(const Workload& w, double* units_per_second, double* seconds) {
  Feeder f(w.launch, 3);
  double t0 = now();
  while (now() - t0 < WARM) f.feed();
  CK(cudaDeviceSynchronize());
  *units_per_second = rate(w, 8);
  return watts(&f, seconds);
}
