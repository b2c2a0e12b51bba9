#include "cudnn/cudnn_library.h"

#include <cstdlib>

#include "runtime/cuda_libraries.h"

namespace fxscope::gpu {
namespace {

constexpr int kCudnnMajor = 9;

// FXSCOPE_CUDNN names a file to try first; PyTorch's wheel ships cuDNN as nvidia-cudnn beside
// torch, not under the CUDA toolkit.
LibrarySearch cudnn_search() {
  LibrarySearch s =
      cuda_library_search({"cuDNN", "libcudnn", kCudnnMajor,
                           "cuDNN 9 (libcudnn9-cuda-" + std::to_string(CUDART_VERSION / 1000) + ")",
                           "nvidia-cudnn-cu" + std::to_string(CUDART_VERSION / 1000), "cudnn"});
  if (const char* p = std::getenv("FXSCOPE_CUDNN"); p && *p) {
    s.candidates.insert(s.candidates.begin(), p);
  }
  s.install += " (or set FXSCOPE_CUDNN to its path)";
  return s;
}

std::optional<Error> bind_cudnn(const SharedLibrary& so, CudnnLibrary& l) {
  EntryPoints points(so);
  points.bind("cudnnBackendCreateDescriptor", l.backend_create)
      .bind("cudnnBackendDestroyDescriptor", l.backend_destroy)
      .bind("cudnnBackendSetAttribute", l.backend_set)
      .bind("cudnnBackendGetAttribute", l.backend_get)
      .bind("cudnnBackendFinalize", l.backend_finalize)
      .bind("cudnnBackendExecute", l.backend_execute)
      .bind("cudnnCreateTensorDescriptor", l.create_tensor)
      .bind("cudnnSetTensorNdDescriptor", l.set_tensor_nd)
      .bind("cudnnDestroyTensorDescriptor", l.destroy_tensor)
      .bind("cudnnCreateFilterDescriptor", l.create_filter)
      .bind("cudnnSetFilterNdDescriptor", l.set_filter_nd)
      .bind("cudnnDestroyFilterDescriptor", l.destroy_filter)
      .bind("cudnnCreateConvolutionDescriptor", l.create_conv)
      .bind("cudnnSetConvolutionNdDescriptor", l.set_conv_nd)
      .bind("cudnnSetConvolutionGroupCount", l.set_group_count)
      .bind("cudnnSetConvolutionMathType", l.set_math_type)
      .bind("cudnnDestroyConvolutionDescriptor", l.destroy_conv)
      .bind("cudnnGetConvolutionForwardAlgorithm_v7", l.get_algo_v7)
      .bind("cudnnGetConvolutionForwardWorkspaceSize", l.workspace_size)
      .bind("cudnnConvolutionForward", l.forward)
      .bind("cudnnAddTensor", l.add_tensor)
      .bind("cudnnGetConvolutionBackwardDataAlgorithm_v7", l.get_bwd_data_algo_v7)
      .bind("cudnnGetConvolutionBackwardDataWorkspaceSize", l.bwd_data_workspace_size)
      .bind("cudnnConvolutionBackwardData", l.backward_data)
      .bind("cudnnGetConvolutionBackwardFilterAlgorithm_v7", l.get_bwd_filter_algo_v7)
      .bind("cudnnGetConvolutionBackwardFilterWorkspaceSize", l.bwd_filter_workspace_size)
      .bind("cudnnConvolutionBackwardFilter", l.backward_filter)
      .bind("cudnnConvolutionBackwardBias", l.backward_bias)
      .bind("cudnnSetStream", l.set_stream)
      .bind("cudnnGetErrorString", l.error_string)
      .bind("cudnnGetVersion", l.version);
  // cudnnCreate is bound here only: the handle lives as long as the process.
  cudnn::Status (*create)(void**) = nullptr;
  points.bind("cudnnCreate", create);
  if (auto e = points.missing("cuDNN 9")) return e;
  if (l.version() < 90000) {
    return so.wrong_version("cuDNN " + std::to_string(l.version()), "cuDNN 9");
  }
  if (const cudnn::Status s = create(&l.handle); s != cudnn::CUDNN_STATUS_SUCCESS) {
    return make_error(so.path() + ": cudnnCreate failed: " + l.text(s));
  }
  l.path = so.path();
  return std::nullopt;
}

}  // namespace

int cudnn_data_type(const std::string& dtype) {
  return dtype == "f32"    ? cudnn::CUDNN_DATA_FLOAT
         : dtype == "f16"  ? cudnn::CUDNN_DATA_HALF
         : dtype == "bf16" ? cudnn::CUDNN_DATA_BFLOAT16
                           : -1;
}

std::string CudnnLibrary::text(Status s) const {
  return error_string ? error_string(s) : "cuDNN status " + std::to_string(s);
}

void CudnnLibrary::use_stream(cudaStream_t stream) const {
  if (stream_set_ && stream_ == stream) return;
  set_stream(handle, stream);
  stream_ = stream;
  stream_set_ = true;
}

Result<const CudnnLibrary*> cudnn_library() {
  static const LoadedLibrary<CudnnLibrary> loaded(cudnn_search(), bind_cudnn);
  return loaded.get();
}

}  // namespace fxscope::gpu
