#pragma once
// A convolution's bias added to its output in place with cudnnAddTensor (legacy API): for the
// convolutions whose bias no engine of the graph API fuses, and for the legacy convolution.

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "cudnn/cudnn_library.h"
#include "fxscope/core/result.h"
#include "fxscope/gpu/conv_spec.h"

namespace fxscope::gpu {

class CudnnBiasAdd {
 public:
  ~CudnnBiasAdd();
  CudnnBiasAdd(const CudnnBiasAdd&) = delete;
  CudnnBiasAdd& operator=(const CudnnBiasAdd&) = delete;

  // SPEC has two or three spatial dims (with_two_spatial_dims) and a bias.
  static Result<std::unique_ptr<CudnnBiasAdd>> create(const CudnnLibrary& lib, const ConvSpec& spec,
                                                      const std::string& where);
  // out += bias broadcast over every dim but the channels.
  cudnn::Status launch(const void* bias, void* out) const;

 private:
  CudnnBiasAdd() = default;
  const CudnnLibrary* lib_ = nullptr;
  void* b_desc_ = nullptr;
  void* y_desc_ = nullptr;
};

}  // namespace fxscope::gpu
