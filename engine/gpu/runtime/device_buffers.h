#pragma once
// f32 device buffers for the convolution checks (cudnn_conv_check.cpp, gemm_conv_check.cpp),
// freed with the check whatever path it leaves by.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "fxscope/core/result.h"
#include "runtime/cuda_status.h"

namespace fxscope::gpu {

class DeviceBuffers {
 public:
  ~DeviceBuffers() {
    for (void* p : owned_) cudaFree(p);
  }
  Result<void*> upload(const std::vector<float>& host, std::size_t elements) {
    void* p = nullptr;
    if (const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(elements * sizeof(float), 256));
        e != cudaSuccess) {
      return make_error("cudaMalloc: " + cuda_text(e));
    }
    owned_.push_back(p);
    if (!host.empty()) {
      if (const cudaError_t e =
              cudaMemcpy(p, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
          e != cudaSuccess) {
        return make_error("upload: " + cuda_text(e));
      }
    }
    return p;
  }

 private:
  std::vector<void*> owned_;
};

}  // namespace fxscope::gpu
