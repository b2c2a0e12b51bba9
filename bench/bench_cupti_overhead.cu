// The CUPTI injection library's overhead: 1,000 tiny kernel launches, timed on the host from the
// first launch to the final synchronize. Run it plainly and with
// CUDA_INJECTION64_PATH=libfxscope_cupti.so; the two medians give the overhead (issue 6: < 5%).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void tiny(float* x) {
  x[threadIdx.x] += 1.0f;
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 30;
  float* x = nullptr;
  if (cudaMalloc(&x, 32 * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "bench_cupti_overhead: no CUDA device\n");
    return 1;
  }
  cudaMemset(x, 0, 32 * sizeof(float));
  std::vector<double> us;
  for (int r = 0; r < rounds + 3; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i) tiny<<<1, 32>>>(x);
    cudaDeviceSynchronize();
    const auto t1 = std::chrono::steady_clock::now();
    // The first rounds warm up the driver and CUPTI's buffers.
    if (r >= 3) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  const bool injected = std::getenv("CUDA_INJECTION64_PATH") != nullptr;
  std::printf(
      "{\"launches\":%d,\"rounds\":%d,\"injected\":%s,\"median_us\":%.1f,\"min_us\":%.1f}\n",
      launches, rounds, injected ? "true" : "false", us[us.size() / 2], us.front());
  cudaFree(x);
  return 0;
}
