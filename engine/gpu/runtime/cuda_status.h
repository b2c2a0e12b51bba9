#pragma once
// CUDA runtime and driver results as one line for an fxscope::Error.

#include <cuda_runtime_api.h>

#include <string>

namespace fxscope::gpu {

inline std::string cuda_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

}  // namespace fxscope::gpu
