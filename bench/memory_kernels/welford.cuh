#pragma once
// Welford's running (mean, m2, n) as the benches' reductions use it, and warp shuffles of it.
#include <cuda_runtime.h>

namespace fxbench {

struct Wf {
  float mean, m2, n;
};
// One element in, with an IEEE division (the layer-norm forms).
__device__ __forceinline__ Wf wf_add(Wf a, float x) {
  const float n = a.n + 1.0f;
  const float d = x - a.mean;
  const float mean = a.mean + d / n;
  return {mean, a.m2 + d * (x - mean), n};
}
// The same with the fast division, as the code generator writes it (fx_welford_add).
__device__ __forceinline__ Wf wf_add_fast(Wf a, float x) {
  const float n = a.n + 1.0f;
  const float d = x - a.mean;
  const float mean = a.mean + __fdividef(d, n);
  return {mean, a.m2 + d * (x - mean), n};
}
__device__ __forceinline__ Wf wf_combine(Wf a, Wf b) {
  const float n = a.n + b.n;
  if (n == 0.0f) return a;
  const float d = b.mean - a.mean;
  const float wb = b.n / n;
  return {a.mean + d * wb, a.m2 + b.m2 + d * d * a.n * wb, n};
}
__device__ __forceinline__ float shfl(float v, int m, int w = 32) {
  return __shfl_xor_sync(0xffffffffu, v, m, w);
}
__device__ __forceinline__ Wf shfl(Wf v, int m, int w = 32) {
  return {shfl(v.mean, m, w), shfl(v.m2, m, w), shfl(v.n, m, w)};
}

}  // namespace fxbench
