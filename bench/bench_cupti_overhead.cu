// The CUPTI injection library's overhead: loops of 1,000 kernel launches, timed on the host from
// the first launch to the final synchronize. Two loops: a one-warp kernel (launch-bound: the
// worst case, every microsecond CUPTI adds per launch shows) and an elementwise op over 1M floats
// (about the size of an eager op of the samples, where the GPU hides the launches). Run it plainly
// and with CUDA_INJECTION64_PATH=libfxscope_cupti.so; the medians give the overhead (issue 6:
// < 5% of total time). `bench_cupti_overhead --compare LIB` does both itself, alternating plain and
// injected child runs 3 times, and prints the overhead of each loop.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

__global__ void tiny(float* x) {
  x[threadIdx.x] += 1.0f;
}

__global__ void scale_add(const float* a, float* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 0.5f * a[i] + b[i];
}

// Median and minimum host microseconds of ROUNDS loops of LAUNCHES calls of LAUNCH.
template <typename Launch>
void time_loop(const char* kernel, int launches, int rounds, Launch launch) {
  std::vector<double> us;
  for (int r = 0; r < rounds + 3; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i) launch();
    cudaDeviceSynchronize();
    const auto t1 = std::chrono::steady_clock::now();
    // The first rounds warm up the driver and CUPTI's buffers.
    if (r >= 3) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  const bool injected = std::getenv("CUDA_INJECTION64_PATH") != nullptr;
  std::printf(
      "{\"kernel\":\"%s\",\"launches\":%d,\"rounds\":%d,\"injected\":%s,\"median_us\":%.1f,"
      "\"min_us\":%.1f}\n",
      kernel, launches, rounds, injected ? "true" : "false", us[us.size() / 2], us.front());
}

// The median_us of each loop a child run printed: {"tiny": 4100.0, ...}.
std::map<std::string, double> child_medians(const std::string& command) {
  std::map<std::string, double> out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char line[512];
  while (std::fgets(line, sizeof line, pipe)) {
    char kernel[64];
    const char* median = std::strstr(line, "\"median_us\":");
    if (median && std::sscanf(line, "{\"kernel\":\"%63[^\"]", kernel) == 1) {
      out[kernel] = std::atof(median + std::strlen("\"median_us\":"));
    }
  }
  pclose(pipe);
  return out;
}

int compare(const char* self, const char* lib) {
  std::map<std::string, std::vector<double>> plain, injected;
  for (int i = 0; i < 3; ++i) {
    for (const auto& [k, v] : child_medians(self)) plain[k].push_back(v);
    const std::string with =
        std::string("FXSCOPE_CUPTI_OUT=/dev/null CUDA_INJECTION64_PATH=") + lib + " " + self;
    for (const auto& [k, v] : child_medians(with)) injected[k].push_back(v);
  }
  if (plain.empty() || injected.empty()) {
    std::fprintf(stderr, "bench_cupti_overhead: the child runs printed nothing\n");
    return 1;
  }
  for (auto& [kernel, p] : plain) {
    auto& q = injected[kernel];
    if (q.empty()) continue;
    std::sort(p.begin(), p.end());
    std::sort(q.begin(), q.end());
    const double a = p[p.size() / 2];
    const double b = q[q.size() / 2];
    std::printf(
        "%-16s 1,000 launches: plain %8.1f us, injected %8.1f us, overhead %+.1f%% "
        "(%.2f us a launch)\n",
        kernel.c_str(), a, b, 100.0 * (b - a) / a, (b - a) / 1000.0);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--compare") == 0) return compare(argv[0], argv[2]);
  const int launches = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 30;
  constexpr int kElements = 1 << 20;
  float* a = nullptr;
  float* b = nullptr;
  if (cudaMalloc(&a, kElements * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&b, kElements * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "bench_cupti_overhead: no CUDA device\n");
    return 1;
  }
  cudaMemset(a, 0, kElements * sizeof(float));
  cudaMemset(b, 0, kElements * sizeof(float));
  time_loop("tiny", launches, rounds, [&] { tiny<<<1, 32>>>(a); });
  time_loop("elementwise_1M", launches, rounds,
            [&] { scale_add<<<kElements / 256, 256>>>(a, b, kElements); });
  cudaFree(a);
  cudaFree(b);
  return 0;
}
