#pragma once
// Convolutions on cuDNN, found at run time with dlopen (on a PyTorch machine it sits inside the
// wheel, not under the CUDA toolkit). Only the legacy C entry points below are declared; without
// cuDNN a convolution's group is reported as "no cuDNN" and the rest of the plan still runs.

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/gpu/conv_spec.h"

namespace fxscope::gpu {

class CudnnLibrary;

// One convolution with its descriptors and algorithm chosen once.
class CudnnConv {
 public:
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  // WORKSPACE is shared by every convolution of the stream; its size must cover workspace_bytes().
  static Result<std::unique_ptr<CudnnConv>> create(const ConvSpec& spec, const std::string& where);
  std::size_t workspace_bytes() const { return workspace_bytes_; }
  // "" on success, else the error naming the group.
  std::string launch(cudaStream_t stream, const void* x, const void* w, const void* bias, void* out,
                     void* workspace) const;

 private:
  CudnnConv() = default;
  const CudnnLibrary* lib_ = nullptr;
  void* x_desc_ = nullptr;
  void* w_desc_ = nullptr;
  void* y_desc_ = nullptr;
  void* b_desc_ = nullptr;
  void* conv_desc_ = nullptr;
  int algo_ = 0;
  std::size_t workspace_bytes_ = 0;
  std::string where_;
};

// Where cuDNN was found ("" when it was not), for the report.
std::string cudnn_location();

}  // namespace fxscope::gpu
