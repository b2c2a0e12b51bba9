#pragma once
// A convolution through cuDNN's legacy API (cudnnConvolutionForward, about 90 us of host time per
// call in cuDNN 9): what runs where the graph API plans no engine, and the reference the graph
// API's plans are checked and timed against.

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "cudnn/cudnn_bias_add.h"
#include "cudnn/cudnn_library.h"
#include "fxscope/core/result.h"
#include "fxscope/gpu/conv_spec.h"

namespace fxscope::gpu {

// Sets DESC (a legacy convolution descriptor) to SPEC's padding, stride, dilation and groups:
// cross-correlation accumulating in fp32 (half types too), FMA math (no TF32, as the captures
// ran). The forward and the backward calls take the same.
cudnn::Status set_legacy_convolution(const CudnnLibrary& lib, void* desc, const ConvSpec& spec);

class CudnnLegacyConv {
 public:
  ~CudnnLegacyConv();
  CudnnLegacyConv(const CudnnLegacyConv&) = delete;
  CudnnLegacyConv& operator=(const CudnnLegacyConv&) = delete;

  // SPEC has two or three spatial dims (with_two_spatial_dims).
  static Result<std::unique_ptr<CudnnLegacyConv>> create(const CudnnLibrary& lib,
                                                         const ConvSpec& spec,
                                                         const std::string& where);
  std::size_t workspace_bytes() const { return workspace_bytes_; }
  int algorithm() const { return algo_; }
  // On the stream the library's handle was last given (CudnnLibrary::use_stream).
  cudnn::Status launch(const void* x, const void* w, const void* bias, void* out,
                       void* workspace) const;

 private:
  CudnnLegacyConv() = default;
  const CudnnLibrary* lib_ = nullptr;
  void* x_desc_ = nullptr;
  void* w_desc_ = nullptr;
  void* y_desc_ = nullptr;
  void* conv_desc_ = nullptr;
  std::unique_ptr<CudnnBiasAdd> bias_;
  int algo_ = 0;
  std::size_t workspace_bytes_ = 0;
};

}  // namespace fxscope::gpu
