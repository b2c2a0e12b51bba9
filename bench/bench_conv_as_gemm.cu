// ResNet-50's 3x3 stride-1 convolutions at batch 1 as an im2col and one FP32 GEMM (cuBLAS, TF32
// off), against a direct reference for correctness. The engine's default mode runs them on cuDNN's
// FP32 plans, and on the H200 the heuristics' plan for layer 4's (1x512x7x7 by 512x512x3x3) took
// 115 us with 32 blocks on 132 SMs; layer 3's 74 us. A GEMM of M = 49 positions and K = 4608 is
// what cuBLAS's split-K kernels are for. This times the alternative that max-autotune offers.
//
//   bench_conv_as_gemm [REPS]   (default 50; medians of CUDA-event times, after 10 warm-ups)
//
// Each repeat reads a different one of 24 sets of input and weights (more than the 60 MB L2 for
// layers 3 and 4), so that reads come from memory, as in the model.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check_cuda.h"

#define CHECK_CUBLAS(x)                                                          \
  do {                                                                           \
    cublasStatus_t s_ = (x);                                                     \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                           \
      std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, s_); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

namespace {

constexpr int kSets = 24;
constexpr int kWarmup = 10;

struct Shape {
  const char* name;
  int c;   // input channels = output channels
  int hw;  // height = width, kept by padding 1
};

// col[(c * 9 + r * 3 + s) * P + p] = x[c][y + r - 1][x + s - 1] (0 outside): row-major CRS x P.
__global__ void im2col3x3(const float* __restrict__ x, float* __restrict__ col, int c, int hw) {
  const int p_count = hw * hw;
  const long long total = static_cast<long long>(c) * 9 * p_count;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int p = static_cast<int>(i % p_count);
    const int k = static_cast<int>(i / p_count);
    const int ch = k / 9;
    const int y = p / hw + (k % 9) / 3 - 1;
    const int xx = p % hw + k % 3 - 1;
    col[i] = (y >= 0 && y < hw && xx >= 0 && xx < hw) ? x[(ch * hw + y) * hw + xx] : 0.0f;
  }
}

// One thread an output: the definition, for checking.
__global__ void direct3x3(const float* __restrict__ x, const float* __restrict__ w,
                          float* __restrict__ out, int c, int hw) {
  const int p_count = hw * hw;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= c * p_count) return;
  const int k = i / p_count;
  const int p = i % p_count;
  float acc = 0.0f;
  for (int ch = 0; ch < c; ++ch) {
    for (int r = 0; r < 3; ++r) {
      for (int s = 0; s < 3; ++s) {
        const int y = p / hw + r - 1;
        const int xx = p % hw + s - 1;
        if (y < 0 || y >= hw || xx < 0 || xx >= hw) continue;
        acc += w[((k * c + ch) * 3 + r) * 3 + s] * x[(ch * hw + y) * hw + xx];
      }
    }
  }
  out[i] = acc;
}

__global__ void fill(float* v, long long n, unsigned seed) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    v[i] = static_cast<float>(h & 0xffff) / 32768.0f - 1.0f;
  }
}

float* device_floats(long long n, unsigned seed) {
  float* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, static_cast<std::size_t>(n) * sizeof(float)));
  fill<<<1024, 256>>>(p, n, seed);
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 50;
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; FP32 (cuBLAS pedantic math: no TF32); median of %d after %d warm-ups\n",
              prop.name, prop.multiProcessorCount, reps, kWarmup);
  cublasHandle_t handle = nullptr;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const Shape shapes[] = {{"layer1 64x56x56", 64, 56},
                          {"layer2 128x28x28", 128, 28},
                          {"layer3 256x14x14", 256, 14},
                          {"layer4 512x7x7", 512, 7}};
  std::printf("%-18s %8s %8s %8s %10s %10s %10s %10s\n", "conv 3x3", "M", "N", "K", "im2col us",
              "gemm us", "both us", "rel err");
  for (const Shape& sh : shapes) {
    const int p_count = sh.hw * sh.hw;
    const long long crs = static_cast<long long>(sh.c) * 9;
    std::vector<float*> xs, ws;
    for (int s = 0; s < kSets; ++s) {
      xs.push_back(device_floats(static_cast<long long>(sh.c) * p_count, 17u + s));
      ws.push_back(device_floats(static_cast<long long>(sh.c) * crs, 911u + s));
    }
    float* col = device_floats(crs * p_count, 5u);
    float* out = device_floats(static_cast<long long>(sh.c) * p_count, 6u);
    float* ref = device_floats(static_cast<long long>(sh.c) * p_count, 7u);
    const int im2col_grid =
        static_cast<int>(std::min<long long>((crs * p_count + 255) / 256, 132 * 16));
    // Out (K x P, row-major) = W (K x CRS) . Col (CRS x P); in cuBLAS's column-major terms
    // Out^T (P x K) = Col^T (P x CRS) . W^T (CRS x K), each buffer as it lies.
    const float one = 1.0f;
    const float zero = 0.0f;
    const auto gemm = [&](int s) {
      CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, p_count, sh.c,
                               static_cast<int>(crs), &one, col, p_count, ws[s],
                               static_cast<int>(crs), &zero, out, p_count));
    };
    std::vector<double> t_im2col, t_gemm, t_both;
    for (int i = 0; i < kWarmup + reps; ++i) {
      const int s = i % kSets;
      float ms = 0;
      CHECK_CUDA(cudaEventRecord(start));
      im2col3x3<<<im2col_grid, 256>>>(xs[s], col, sh.c, sh.hw);
      CHECK_CUDA(cudaEventRecord(stop));
      CHECK_CUDA(cudaEventSynchronize(stop));
      CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      if (i >= kWarmup) t_im2col.push_back(ms * 1000.0);
      CHECK_CUDA(cudaEventRecord(start));
      gemm(s);
      CHECK_CUDA(cudaEventRecord(stop));
      CHECK_CUDA(cudaEventSynchronize(stop));
      CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      if (i >= kWarmup) t_gemm.push_back(ms * 1000.0);
      // Both back to back, as the engine would launch them (the next set: cold again).
      const int s2 = (i + kSets / 2) % kSets;
      CHECK_CUDA(cudaEventRecord(start));
      im2col3x3<<<im2col_grid, 256>>>(xs[s2], col, sh.c, sh.hw);
      gemm(s2);
      CHECK_CUDA(cudaEventRecord(stop));
      CHECK_CUDA(cudaEventSynchronize(stop));
      CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      if (i >= kWarmup) t_both.push_back(ms * 1000.0);
    }
    // The last "both" ran on set s2 of the last repeat: check it against the definition.
    const int last = (kWarmup + reps - 1 + kSets / 2) % kSets;
    direct3x3<<<(sh.c * p_count + 127) / 128, 128>>>(xs[last], ws[last], ref, sh.c, sh.hw);
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float> a(static_cast<std::size_t>(sh.c) * p_count), b(a.size());
    CHECK_CUDA(cudaMemcpy(a.data(), out, a.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(b.data(), ref, b.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      diff += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
      norm += static_cast<double>(b[i]) * b[i];
    }
    std::printf("%-18s %8d %8d %8lld %10.2f %10.2f %10.2f %10.2e\n", sh.name, p_count, sh.c, crs,
                median(t_im2col), median(t_gemm), median(t_both), std::sqrt(diff / norm));
    for (int s = 0; s < kSets; ++s) {
      CHECK_CUDA(cudaFree(xs[s]));
      CHECK_CUDA(cudaFree(ws[s]));
    }
    CHECK_CUDA(cudaFree(col));
    CHECK_CUDA(cudaFree(out));
    CHECK_CUDA(cudaFree(ref));
  }
  CHECK_CUBLAS(cublasDestroy(handle));
  return 0;
}
