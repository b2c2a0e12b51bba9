#pragma once
// GPU time of one piece of work, for max-autotune's choices (kernel configs, cuBLASLt algorithms,
// cuDNN plans, a GEMM epilogue against GEMM + kernel).

#include <cuda_runtime.h>

#include <functional>
#include <optional>
#include <vector>

namespace fxscope::gpu {

class CuptiActivity;

// The middle of V (the mean of the two middle values for an even count); 0 for none.
double median(std::vector<double> v);

// Microseconds of one LAUNCH (it enqueues the work on STREAM; false when that failed): one
// warm-up, then REPS launches captured into a CUDA graph and replayed, timed by CUDA events. In a
// graph the launches run back to back, so a kernel shorter than a host launch (2-4 us) is timed
// rather than the host's launch rate: timed as a loop of launches, GPT-2's 2 us layer norm took
// 8-9 us in every config and max-autotune's picks were noise (one ran at 11.6 us in the model).
// Work that cannot be captured is timed as that loop. nullopt when the work fails.
//
// While a KernelClock is in scope on this thread, the work is timed as the run times the model's
// kernels instead: CUPTI's kernel records, the sum of their durations a launch (REPS launches
// after one warm-up). The graph's figure also holds each launch's dispatch gap: for ResNet-50's
// 1.6 MB epilogues it read 3.5 us where CUPTI read 1.7 us in the model, and the config it picked
// for being faster by that measure ran 50% slower there.
std::optional<double> gpu_time_us(cudaStream_t stream, const std::function<bool()>& launch,
                                  int reps);

// Makes gpu_time_us read CUPTI's kernel records on this thread until destroyed (null: no effect).
// Records taken before it are dropped; recording is left on, as between the run's modes.
class KernelClock {
 public:
  explicit KernelClock(CuptiActivity* cupti);
  ~KernelClock();
  KernelClock(const KernelClock&) = delete;
  KernelClock& operator=(const KernelClock&) = delete;

 private:
  CuptiActivity* previous_;
};

}  // namespace fxscope::gpu
