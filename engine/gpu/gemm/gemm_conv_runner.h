#pragma once
// A convolution run as plan_gemm_conv describes it (fxscope/gpu/gemm_conv.h): the im2col kernel,
// compiled with NVRTC, then one cuBLASLt GEMM; or the GEMM alone for a direct 1x1 convolution.

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "fxscope/gpu/gemm_conv.h"
#include "gemm/lt_gemm.h"
#include "kernels/kernel_image.h"
#include "runtime/executable.h"

namespace fxscope::gpu {

struct GemmConvBuffers {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* bias = nullptr;
  void* out = nullptr;
  void* col = nullptr;  // plan.col_elements elements; unused when direct
};

class GemmConv {
 public:
  // WHERE names the group in errors; WORKSPACE is cuBLASLt's, shared by the stream's GEMMs.
  static Result<std::unique_ptr<GemmConv>> create(cublasLtHandle_t lt, const GemmConvPlan& plan,
                                                  const GemmConvBuffers& buffers,
                                                  const CompileFn& compile, void* workspace,
                                                  std::size_t workspace_bytes,
                                                  const std::string& where);
  // max-autotune: cuBLASLt's algorithms for the GEMM timed, the fastest kept; what was picked.
  Result<std::string> tune(cudaStream_t stream);
  // "" or the error naming the group.
  std::string launch(cudaStream_t stream) const;
  // "im2col + cuBLASLt GEMM" or "cuBLASLt GEMM on the input".
  std::string what() const;

 private:
  GemmConv() = default;
  GemmConvPlan plan_;
  std::unique_ptr<KernelImage> im2col_;
  mutable std::vector<void*> im2col_args_;
  std::unique_ptr<LtGemm> gemm_;
  std::string where_;
};

}  // namespace fxscope::gpu
