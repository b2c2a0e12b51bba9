#include "harness.h"

#include <cupti.h>

#include <algorithm>
#include <map>

namespace fxbench {
namespace {

std::map<std::string, std::vector<double>> g_us;  // kernel or "memcpy <bytes>" -> durations

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8u << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      g_us[k->name].push_back(static_cast<double>(k->end - k->start) / 1000.0);
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      // Only device-to-device: the uploads of the inputs can have the same size.
      if (c->copyKind != CUPTI_ACTIVITY_MEMCPY_KIND_DTOD) continue;
      g_us["memcpy " + std::to_string(c->bytes)].push_back(static_cast<double>(c->end - c->start) /
                                                           1000.0);
    }
  }
  std::free(buffer);
}

__global__ void __launch_bounds__(256)
    ref_copy(const Word* __restrict__ s, Word* __restrict__ d, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    d[i] = s[i];
}
__global__ void ref_empty() {}

}  // namespace

bool warm_l2() {
  static const bool warm = [] {
    const char* v = std::getenv("BENCH_WARM");
    return v && *v && std::string(v) != "0";
  }();
  return warm;
}

void start_recording() {
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; %s\n", prop.name, prop.multiProcessorCount,
              warm_l2() ? "BENCH_WARM: one buffer set, reads from L2"
                        : "buffer sets rotated, reads from memory");
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

float* device_floats(std::size_t n) {
  float* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, n * sizeof(float)));
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i)
    h[i] = static_cast<float>((i * 2654435761u) % 1000) / 500.0f - 1.0f;
  CHECK_CUDA(cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  return p;
}

std::vector<double> take(const std::string& prefix) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::vector<double> all;
  for (auto it = g_us.begin(); it != g_us.end();) {
    if (it->first.rfind(prefix, 0) == 0 || it->first.find(prefix) != std::string::npos) {
      all.insert(all.end(), it->second.begin(), it->second.end());
      it = g_us.erase(it);
    } else {
      ++it;
    }
  }
  // Drop the warm-ups (the first kWarmup records of the kReps + kWarmup).
  if (all.size() > static_cast<std::size_t>(kWarmup)) all.erase(all.begin(), all.begin() + kWarmup);
  return all;
}

// The references of BYTES moved (read + written): the copy kernel and cudaMemcpy of half each way.
Refs references(double bytes, const Word* const* src, Word* const* dst) {
  const long long words = static_cast<long long>(bytes / 2) / 16;
  repeat([&](int s) { launch_reference_copy(src[s], dst[s], words, nullptr); });
  const double k = median(take("ref_copy"));
  repeat([&](int s) { cudaMemcpyAsync(dst[s], src[s], words * 16, cudaMemcpyDeviceToDevice); });
  const double m = median(take("memcpy " + std::to_string(words * 16)));
  return {k, m};
}

void launch_reference_copy(const Word* src, Word* dst, long long n, cudaStream_t s) {
  const long long grid = std::clamp<long long>((n + 255) / 256, 1, 132 * 16);
  ref_copy<<<grid, 256, 0, s>>>(src, dst, n);
}

double empty_kernel_us() {
  repeat([&](int) { ref_empty<<<1, 32>>>(); });
  return median(take("ref_empty"));
}

void print(const char* label, double bytes, const std::vector<double>& us, const Refs& r) {
  const double med = median(us);
  const double mn = us.empty() ? 0 : *std::min_element(us.begin(), us.end());
  std::printf(
      "%-46s %6.2f MB  median %6.2f us  min %6.2f  copy kernel %5.2f us (%3.0f%%)  memcpy %5.2f us "
      "(%3.0f%%)\n",
      label, bytes / 1e6, med, mn, r.copy_kernel_us, 100 * r.copy_kernel_us / med, r.memcpy_us,
      100 * r.memcpy_us / med);
}

}  // namespace fxbench
