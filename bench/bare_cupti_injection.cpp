// libbench_bare_cupti.so: the reference bench_cupti_overhead measures fxscope's injection library
// against. The CUPTI Activity API by itself, loaded the same way (CUDA_INJECTION64_PATH): kernel
// records only (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), plain malloc'd buffers, records counted
// and dropped; the count is printed at exit ({"bare_cupti_kernels":N}) so the bench can check that
// CUPTI saw every launch. What fxscope costs beyond this is what fxscope adds to CUPTI's own
// instrumentation.
#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

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
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++g_kernels;
  }
  std::free(buffer);
}

// Every record reaches buffer_completed before the process ends, as in fxscope's library.
void report_at_exit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::printf("{\"bare_cupti_kernels\":%llu}\n", static_cast<unsigned long long>(g_kernels.load()));
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "bench_bare_cupti: CUPTI refused the kernel activity\n");
    return 0;
  }
  std::atexit(report_at_exit);
  return 1;
}
