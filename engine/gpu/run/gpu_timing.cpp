#include "run/gpu_timing.h"

#include <algorithm>

#include "cupti/cupti_activity.h"

namespace fxscope::gpu {
namespace {

thread_local CuptiActivity* t_kernel_clock = nullptr;

// Kernel microseconds a launch by CUPTI's records: nullopt when the work fails or left no
// kernel record (a copy, say), so that the caller times it as before.
std::optional<double> cupti_us(CuptiActivity& cupti, cudaStream_t stream,
                               const std::function<bool()>& launch, int reps) {
  bool ok = true;
  for (int r = 0; r < reps && ok; ++r) ok = launch();
  if (!ok || cudaStreamSynchronize(stream) != cudaSuccess) {
    cudaGetLastError();
    cupti.take();
    return std::nullopt;
  }
  double total = 0;
  int kernels = 0;
  for (const KernelRecord& k : cupti.take().records.kernels) {
    if (k.end <= k.start) continue;
    total += k.us();
    ++kernels;
  }
  if (kernels == 0) return std::nullopt;
  return total / reps;
}

// Events around RUN (which enqueues the timed work); nullopt on a CUDA error.
std::optional<double> event_ms(cudaStream_t stream, const std::function<bool()>& run) {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  const bool ok = run();
  cudaEventRecord(stop, stream);
  float ms = 0;
  const bool done = cudaEventSynchronize(stop) == cudaSuccess &&
                    cudaEventElapsedTime(&ms, start, stop) == cudaSuccess;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!ok || !done) {
    cudaGetLastError();
    return std::nullopt;
  }
  return static_cast<double>(ms);
}

// REPS launches as one CUDA graph; nullptr (the error cleared) when the work cannot be captured.
cudaGraphExec_t capture(cudaStream_t stream, const std::function<bool()>& launch, int reps) {
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  bool ok = true;
  for (int r = 0; r < reps && ok; ++r) ok = launch();
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec = nullptr;
  if (ok && ended == cudaSuccess && graph != nullptr &&
      cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
    exec = nullptr;
  }
  if (graph != nullptr) cudaGraphDestroy(graph);
  cudaGetLastError();
  return exec;
}

}  // namespace

std::optional<double> gpu_time_us(cudaStream_t stream, const std::function<bool()>& launch,
                                  int reps) {
  if (!launch() || cudaStreamSynchronize(stream) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  if (t_kernel_clock != nullptr) {
    t_kernel_clock->take();  // the warm-up's records
    if (const auto us = cupti_us(*t_kernel_clock, stream, launch, reps)) return us;
  }
  if (cudaGraphExec_t exec = capture(stream, launch, reps)) {
    // One replay to warm up (the graph's first upload), then the timed one.
    const auto replay = [&] { return cudaGraphLaunch(exec, stream) == cudaSuccess; };
    std::optional<double> ms = event_ms(stream, replay);
    if (ms) ms = event_ms(stream, replay);
    cudaGraphExecDestroy(exec);
    if (ms) return 1000.0 * *ms / reps;
  }
  const auto loop = [&] {
    bool ok = true;
    for (int r = 0; r < reps && ok; ++r) ok = launch();
    return ok;
  };
  const std::optional<double> ms = event_ms(stream, loop);
  if (!ms) return std::nullopt;
  return 1000.0 * *ms / reps;
}

KernelClock::KernelClock(CuptiActivity* cupti) : previous_(t_kernel_clock) {
  if (cupti == nullptr) return;
  cupti->record(true);
  cupti->take();
  t_kernel_clock = cupti;
}

KernelClock::~KernelClock() {
  t_kernel_clock = previous_;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace fxscope::gpu
