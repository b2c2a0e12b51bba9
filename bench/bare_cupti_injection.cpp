// libbench_bare_cupti.so: the reference bench_cupti_overhead measures fxscope's injection library
// against. The CUPTI Activity API by itself, loaded the same way (CUDA_INJECTION64_PATH): kernel
// records only (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), plain malloc'd buffers, records counted
// and dropped; the count is printed at exit ({"bare_cupti_kernels":N}) so the bench can check that
// CUPTI saw every launch. What fxscope costs beyond this is what fxscope adds to CUPTI's own
// instrumentation.
//
// BARE_CUPTI_VARIANT picks what the client does, to find where CUPTI's per-launch cost comes from:
// "load" (nothing enabled: the cost of being loaded as an injection), "monotonic" (timestamps
// from a CLOCK_MONOTONIC callback instead of CUPTI's own clock_gettime(CLOCK_REALTIME)), "kernel"
// (CUPTI_ACTIVITY_KIND_KERNEL, which serializes kernels, instead of the concurrent kind).
#include <cupti.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr std::size_t kBufferBytes = 8u << 20;

std::atomic<std::uint64_t> g_kernels{0};

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::malloc(kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        record->kind == CUPTI_ACTIVITY_KIND_KERNEL)
      ++g_kernels;
  }
  std::free(buffer);
}

// Every record reaches buffer_completed before the process ends, as in fxscope's library.
void report_at_exit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::printf("{\"bare_cupti_kernels\":%llu}\n", static_cast<unsigned long long>(g_kernels.load()));
}

std::uint64_t CUPTIAPI monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(t.tv_nsec);
}

bool variant_is(const char* name) {
  const char* v = std::getenv("BARE_CUPTI_VARIANT");
  return v && std::strcmp(v, name) == 0;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  if (variant_is("load")) return 1;
  if (variant_is("monotonic")) cuptiActivityRegisterTimestampCallback(monotonic_ns);
  const CUpti_ActivityKind kind =
      variant_is("kernel") ? CUPTI_ACTIVITY_KIND_KERNEL : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(kind) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "bench_bare_cupti: CUPTI refused the kernel activity\n");
    return 0;
  }
  std::atexit(report_at_exit);
  return 1;
}
