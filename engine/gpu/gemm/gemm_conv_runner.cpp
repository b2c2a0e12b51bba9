#include "gemm/gemm_conv_runner.h"

#include "runtime/cuda_status.h"

namespace fxscope::gpu {

Result<std::unique_ptr<GemmConv>> GemmConv::create(cublasLtHandle_t lt, const GemmConvPlan& plan,
                                                   const GemmConvBuffers& buffers,
                                                   const CompileFn& compile, void* workspace,
                                                   std::size_t workspace_bytes,
                                                   const std::string& where) {
  std::unique_ptr<GemmConv> c(new GemmConv());
  c->plan_ = plan;
  c->where_ = where;
  if (!plan.direct) {
    if (!buffers.col) return make_error(where + ": im2col has no buffer");
    auto image = compile(im2col_source(plan), where);
    if (!image) return image.error();
    auto kernel = KernelImage::load(image->cubin, image->entry_or(kIm2colEntry), where);
    if (!kernel) return kernel.error();
    c->im2col_ = std::move(*kernel);
    c->im2col_args_ = {const_cast<void*>(buffers.x), buffers.col};
  }
  const auto pointer = [&](GemmConvOperand o) -> const void* {
    switch (o) {
      case GemmConvOperand::input:
        return buffers.x;
      case GemmConvOperand::col:
        return buffers.col;
      case GemmConvOperand::weight:
        break;
    }
    return buffers.w;
  };
  GemmPointers p;
  p.a = pointer(plan.a_reads);
  p.b = pointer(plan.b_reads);
  p.out = buffers.out;
  p.bias = buffers.bias;
  auto gemm = LtGemm::create(lt, plan.gemm, p, workspace, workspace_bytes, where);
  if (!gemm) return gemm.error();
  c->gemm_ = std::move(*gemm);
  return c;
}

Result<std::string> GemmConv::tune(cudaStream_t stream) {
  return gemm_->tune(stream, 8);
}

std::string GemmConv::launch(cudaStream_t stream) const {
  if (im2col_) {
    void* args[2] = {&im2col_args_[0], &im2col_args_[1]};
    if (const cudaError_t e = im2col_->launch(im2col_grid(plan_), kIm2colBlock, 0, args, stream);
        e != cudaSuccess) {
      return where_ + ": im2col launch failed: " + cuda_text(e);
    }
  }
  const cublasStatus_t r = gemm_->launch(stream);
  return r == CUBLAS_STATUS_SUCCESS ? "" : where_ + ": cuBLASLt failed: " + cublas_text(r);
}

std::string GemmConv::what() const {
  return plan_.direct ? "cuBLASLt GEMM on the input" : kIm2colGemm;
}

}  // namespace fxscope::gpu
