// What each math function of generated kernels costs in issue slots per element, measured: the
// figures behind engine/ops/alu_cost.cpp, which tells a compute-bound generated kernel (a fused
// chain of full-precision transcendentals) from a memory-bound one.
//
// Each function runs in a kernel that is compute-bound by construction: every thread of a full
// device keeps 4 independent chains x = f(x) * a + b in registers, with no memory traffic. Its
// time, times the device's issue rate (SMs x 128 lanes x clock), per evaluation, less the same
// loop with f the identity (the FMA that keeps x in range), is f's cost in slots. Functions
// from the generated code's prelude (fx_sigmoid, fx_gelu, fx_gelu_tanh) are written here as the
// prelude writes them. `bench_alu_cost` prints one line per function and a JSON line at the end.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr int kChains = 4;
constexpr int kIters = 512;
constexpr int kBlock = 256;

// As the generated code's prelude defines them (engine/codegen/cuda_prelude.cpp).
__device__ __forceinline__ float fx_sigmoid(float x) {
  return 1.0f / (1.0f + expf(-x));
}
__device__ __forceinline__ float fx_gelu(float x) {
  return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
}
__device__ __forceinline__ float fx_gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}
// One element into Welford's running state, as fx_welford_add does it.
struct Welford {
  float mean, m2, n;
};
__device__ __forceinline__ Welford welford_add(Welford a, float x) {
  const float n = a.n + 1.0f;
  const float delta = x - a.mean;
  const float mean = a.mean + __fdividef(delta, n);
  return {mean, a.m2 + delta * (x - mean), n};
}

// Functions, by the name alu_cost.cpp uses; F(x) with x in (0.1, 2), and a, b that keep x there.
#define FX_FUNCTIONS(X)         \
  X(identity, x)                \
  X(div, 1.3f / x)              \
  X(reciprocal, 1.0f / x)       \
  X(sqrt, sqrtf(x))             \
  X(rsqrt, rsqrtf(x))           \
  X(exp, expf(-x))              \
  X(exp2, exp2f(-x))            \
  X(expm1, expm1f(-x))          \
  X(log, logf(x))               \
  X(log2, log2f(x))             \
  X(log1p, log1pf(x))           \
  X(sin, sinf(x))               \
  X(cos, cosf(x))               \
  X(tan, tanf(x))               \
  X(tanh, tanhf(x))             \
  X(erf, erff(x))               \
  X(atan, atanf(x))             \
  X(pow, powf(x, 1.7f))         \
  X(sigmoid, fx_sigmoid(x))     \
  X(gelu, fx_gelu(x))           \
  X(gelu_tanh, fx_gelu_tanh(x)) \
  X(floor, floorf(x * 3.0f))

#define FX_KERNEL(name, expr)                                                              \
  __global__ void __launch_bounds__(kBlock) k_##name(float* out, float seed) {             \
    float v[kChains];                                                                      \
    for (int c = 0; c < kChains; ++c) v[c] = seed + 0.01f * (threadIdx.x % 64) + 0.1f * c; \
    for (int i = 0; i < kIters; ++i) {                                                     \
      _Pragma("unroll") for (int c = 0; c < kChains; ++c) {                                \
        const float x = v[c];                                                              \
        v[c] = fabsf(expr) * 0.37f + 0.5f;                                                 \
      }                                                                                    \
    }                                                                                      \
    float s = 0;                                                                           \
    for (int c = 0; c < kChains; ++c) s += v[c];                                           \
    if (s == 12345.0f) out[threadIdx.x] = s; /* keeps the work, never true */              \
  }
FX_FUNCTIONS(FX_KERNEL)

__global__ void __launch_bounds__(kBlock) k_welford(float* out, float seed) {
  Welford w[kChains];
  float v[kChains];
  for (int c = 0; c < kChains; ++c) {
    w[c] = {0.0f, 0.0f, 0.0f};
    v[c] = seed + 0.01f * (threadIdx.x % 64) + 0.1f * c;
  }
  for (int i = 0; i < kIters; ++i) {
    _Pragma("unroll") for (int c = 0; c < kChains; ++c) {
      w[c] = welford_add(w[c], v[c]);
      v[c] = v[c] * 0.37f + 0.5f;
    }
  }
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += w[c].mean + w[c].m2;
  if (s == 12345.0f) out[threadIdx.x] = s;
}

struct Entry {
  const char* name;
  void (*kernel)(float*, float);
};

#define FX_ENTRY(name, expr) {#name, k_##name},
const Entry kEntries[] = {FX_FUNCTIONS(FX_ENTRY){"welford", k_welford}};

// Median milliseconds of one launch of KERNEL over GRID blocks.
float time_kernel(void (*kernel)(float*, float), int grid, float* out) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int w = 0; w < 3; ++w) kernel<<<grid, kBlock>>>(out, 0.3f);
  std::vector<float> ms;
  for (int r = 0; r < 9; ++r) {
    cudaEventRecord(a);
    kernel<<<grid, kBlock>>>(out, 0.3f);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::fprintf(stderr, "bench_alu_cost: no CUDA device\n");
    return 1;
  }
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  float* out = nullptr;
  cudaMalloc(&out, kBlock * sizeof(float));
  // Enough blocks for several full waves, so the tail wave is a small part of the time.
  const int grid = prop.multiProcessorCount * 8 * 8;
  const double evaluations = double(grid) * kBlock * kChains * kIters;
  const double slots_per_ms = double(prop.multiProcessorCount) * 128.0 * clock_khz;
  std::printf("%s, %d SMs, %d MHz; %d blocks of %d threads, %d chains x %d evaluations each\n",
              prop.name, prop.multiProcessorCount, clock_khz / 1000, grid, kBlock, kChains, kIters);
  double base = 0;
  std::string json = "{";
  for (const Entry& e : kEntries) {
    const float ms = time_kernel(e.kernel, grid, out);
    const double slots = ms * slots_per_ms / evaluations;
    if (e.kernel == kEntries[0].kernel) base = slots;
    const double own = std::max(0.0, slots - base);
    std::printf("%-12s %8.3f ms  %6.2f slots an evaluation, %6.2f less the loop's FMA\n", e.name,
                ms, slots, own);
    char item[64];
    std::snprintf(item, sizeof item, "%s\"%s\":%.1f", json.size() > 1 ? "," : "", e.name, own);
    json += item;
  }
  std::printf("%s}\n", json.c_str());
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "bench_alu_cost: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
