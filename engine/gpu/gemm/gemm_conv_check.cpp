// run_gemm_conv (fxscope/gpu/gemm_conv.h): one convolution as im2col + GEMM on the local GPU.

#include <algorithm>

#include "fxscope/gpu/gemm_conv.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "gemm/gemm_conv_runner.h"
#include "runtime/cuda_device.h"
#include "runtime/cuda_status.h"
#include "runtime/device_buffers.h"

namespace fxscope::gpu {
namespace {

constexpr std::size_t kWorkspace = 32u << 20;

// Device memory and handles freed with the run, whatever path it leaves by.
struct Owned {
  DeviceBuffers memory;
  cublasLtHandle_t lt = nullptr;
  cudaStream_t stream = nullptr;
  ~Owned() {
    destroy_cublaslt_handle(lt);
    if (stream) cudaStreamDestroy(stream);
  }
};

}  // namespace

Result<std::vector<float>> run_gemm_conv(const ConvSpec& spec, const ConvData& data) {
  const std::string where = "convolution as GEMM";
  if (spec.dtype != "f32") return make_error(where + ": f32 data only, not " + spec.dtype);
  auto plan = plan_gemm_conv(spec);
  if (!plan) return plan.error();
  auto dev = open_cuda_device();
  if (!dev) return dev.error();
  Owned own;
  const std::size_t ny = strided_elements(spec.out_sizes, spec.out_strides);
  auto x = own.memory.upload(data.x, strided_elements(spec.x_sizes, spec.x_strides));
  auto w = own.memory.upload(data.w, strided_elements(spec.w_sizes, spec.w_strides));
  auto b = own.memory.upload(data.bias, data.bias.size());
  auto y = own.memory.upload({}, ny);
  auto col = own.memory.upload({}, static_cast<std::size_t>(plan->col_elements));
  auto ws = own.memory.upload({}, kWorkspace / sizeof(float));
  for (const auto* r : {&x, &w, &b, &y, &col, &ws}) {
    if (!*r) return make_error(where + ": " + r->error().message);
  }
  auto lt = create_cublaslt_handle();
  if (!lt) return make_error(where + ": " + lt.error().message);
  own.lt = *lt;
  if (cudaStreamCreate(&own.stream) != cudaSuccess) {
    return make_error(where + ": cannot create a stream");
  }
  const std::string arch = dev->arch();
  const CompileFn compile = [&](const std::string& source, const std::string& at) {
    NvrtcOptions o;
    o.arch = arch;
    auto built = compile_cuda(source, at, o);
    return built ? Result<CompiledKernel>(CompiledKernel{built->cubin, ""})
                 : Result<CompiledKernel>(built.error());
  };
  const GemmConvBuffers buffers{*x, *w, spec.bias ? *b : nullptr, *y, *col};
  auto conv = GemmConv::create(own.lt, *plan, buffers, compile, *ws, kWorkspace, where);
  if (!conv) return conv.error();
  if (auto pick = (*conv)->tune(own.stream); !pick) return pick.error();
  if (const std::string e = (*conv)->launch(own.stream); !e.empty()) return make_error(e);
  std::vector<float> out(ny);
  if (const cudaError_t e = cudaStreamSynchronize(own.stream); e != cudaSuccess) {
    return make_error(where + ": " + cuda_text(e));
  }
  if (const cudaError_t e = cudaMemcpy(out.data(), *y, ny * sizeof(float), cudaMemcpyDeviceToHost);
      e != cudaSuccess) {
    return make_error(where + ": download: " + cuda_text(e));
  }
  return out;
}

}  // namespace fxscope::gpu
