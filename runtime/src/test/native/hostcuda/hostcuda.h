// Compiles the CUDA C kernels of runtime/src/main/cuda as host C++ for the host-executed test
// driver (driver.cpp): the CUDA keywords and built-ins the kernels use, with CUDA's semantics on
// one host thread per stream. Kernels that synchronise their blocks run as fibers, one per CUDA
// thread, switched at each __syncthreads(); the others run as plain loops over the threads.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <atomic>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

struct dim3 {
  unsigned x, y, z;
};

extern thread_local dim3 threadIdx;
extern thread_local dim3 blockIdx;
extern thread_local dim3 blockDim;
extern thread_local dim3 gridDim;

namespace hostcuda {
// A kernel of the host build: its name, a trampoline that unpacks the one struct argument, the
// struct's size, and whether it synchronises its blocks.
struct Kernel {
  const char* name;
  void (*run)(void** params);
  unsigned argSize;
  bool blockSync;
};
void registerKernel(const Kernel& k);
void syncthreads();
void threadfence();

struct Registrar {
  Registrar(const char* name, void (*run)(void**), unsigned size, bool sync) {
    registerKernel(Kernel{name, run, size, sync});
  }
};
}  // namespace hostcuda

#define OD_REGISTER(name, Args, blockSync)                                              \
  static void name##_host_trampoline(void** p) { name(*static_cast<const Args*>(p[0])); } \
  static hostcuda::Registrar name##_host_registrar(#name, name##_host_trampoline, sizeof(Args), blockSync);

inline void __syncthreads() { hostcuda::syncthreads(); }
inline void __threadfence_system() { hostcuda::threadfence(); }

using std::max;
using std::min;

inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }

template <typename T>
inline T atomicAdd(T* p, T v) {
  std::atomic_ref<T> r(*p);
  T old = r.load();
  while (!r.compare_exchange_weak(old, old + v)) {
  }
  return old;
}
inline int atomicCAS(int* p, int expected, int desired) {
  std::atomic_ref<int> r(*p);
  r.compare_exchange_strong(expected, desired);
  return expected;
}
inline int atomicExch(int* p, int v) { return std::atomic_ref<int>(*p).exchange(v); }
