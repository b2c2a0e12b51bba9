#pragma once
// GPU time of one piece of work, for max-autotune's choices (kernel configs, cuBLASLt algorithms,
// cuDNN plans, a GEMM epilogue against GEMM + kernel).

#include <cuda_runtime.h>

#include <functional>
#include <optional>

namespace fxscope::gpu {

// Microseconds of one LAUNCH (it enqueues the work on STREAM; false when that failed): one
// warm-up, then REPS launches captured into a CUDA graph and replayed, timed by CUDA events. In a
// graph the launches run back to back, so a kernel shorter than a host launch (2-4 us) is timed
// rather than the host's launch rate: timed as a loop of launches, GPT-2's 2 us layer norm took
// 8-9 us in every config and max-autotune's picks were noise (one ran at 11.6 us in the model).
// Work that cannot be captured is timed as that loop. nullopt when the work fails.
std::optional<double> gpu_time_us(cudaStream_t stream, const std::function<bool()>& launch,
                                  int reps);

}  // namespace fxscope::gpu
