#include "cudnn/cudnn_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

namespace fxscope::gpu {
namespace {

std::vector<std::string> candidate_paths() {
  std::vector<std::string> out;
  if (const char* p = std::getenv("FXSCOPE_CUDNN"); p && *p) out.emplace_back(p);
  out.emplace_back("libcudnn.so.9");
  // PyTorch's wheel ships cuDNN as the nvidia-cudnn package beside torch.
  std::error_code ec;
  for (const char* root : {"/opt/torch/.venv/lib", "/usr/local/lib", "/usr/lib"}) {
    for (const auto& py : std::filesystem::directory_iterator(root, ec)) {
      for (const char* site : {"site-packages", "dist-packages"}) {
        const auto lib = py.path() / site / "nvidia" / "cudnn" / "lib" / "libcudnn.so.9";
        if (std::filesystem::exists(lib, ec)) out.push_back(lib.string());
      }
    }
  }
  return out;
}

template <class F>
bool bind(void* so, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(so, name));
  return fn != nullptr;
}

bool bind_all(void* so, CudnnLibrary& l) {
  return bind(so, "cudnnBackendCreateDescriptor", l.backend_create) &&
         bind(so, "cudnnBackendDestroyDescriptor", l.backend_destroy) &&
         bind(so, "cudnnBackendSetAttribute", l.backend_set) &&
         bind(so, "cudnnBackendGetAttribute", l.backend_get) &&
         bind(so, "cudnnBackendFinalize", l.backend_finalize) &&
         bind(so, "cudnnBackendExecute", l.backend_execute) &&
         bind(so, "cudnnCreateTensorDescriptor", l.create_tensor) &&
         bind(so, "cudnnSetTensorNdDescriptor", l.set_tensor_nd) &&
         bind(so, "cudnnDestroyTensorDescriptor", l.destroy_tensor) &&
         bind(so, "cudnnCreateFilterDescriptor", l.create_filter) &&
         bind(so, "cudnnSetFilterNdDescriptor", l.set_filter_nd) &&
         bind(so, "cudnnDestroyFilterDescriptor", l.destroy_filter) &&
         bind(so, "cudnnCreateConvolutionDescriptor", l.create_conv) &&
         bind(so, "cudnnSetConvolutionNdDescriptor", l.set_conv_nd) &&
         bind(so, "cudnnSetConvolutionGroupCount", l.set_group_count) &&
         bind(so, "cudnnSetConvolutionMathType", l.set_math_type) &&
         bind(so, "cudnnDestroyConvolutionDescriptor", l.destroy_conv) &&
         bind(so, "cudnnGetConvolutionForwardAlgorithm_v7", l.get_algo_v7) &&
         bind(so, "cudnnGetConvolutionForwardWorkspaceSize", l.workspace_size) &&
         bind(so, "cudnnConvolutionForward", l.forward) &&
         bind(so, "cudnnAddTensor", l.add_tensor) && bind(so, "cudnnSetStream", l.set_stream) &&
         bind(so, "cudnnGetErrorString", l.error_string) && bind(so, "cudnnGetVersion", l.version);
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
  static std::once_flag once;
  static std::unique_ptr<CudnnLibrary> lib;
  static std::string why;
  std::call_once(once, [] {
    void* so = nullptr;
    std::string path;
    for (const auto& p : candidate_paths()) {
      so = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (so) {
        path = p;
        break;
      }
    }
    if (!so) {
      why = "no cuDNN (libcudnn.so.9 not found; set FXSCOPE_CUDNN to its path)";
      return;
    }
    auto l = std::make_unique<CudnnLibrary>();
    l->path = path;
    if (!bind_all(so, *l)) {
      why = path + ": a cuDNN entry point is missing (cuDNN 9 expected)";
      return;
    }
    if (l->version() < 90000) {
      why = path + ": cuDNN " + std::to_string(l->version()) + " found, cuDNN 9 expected";
      return;
    }
    // cudnnCreate is looked up here only: the handle lives as long as the process.
    cudnn::Status (*create)(void**) = nullptr;
    if (!bind(so, "cudnnCreate", create)) {
      why = path + ": cudnnCreate is missing";
      return;
    }
    if (const cudnn::Status s = create(&l->handle); s != cudnn::CUDNN_STATUS_SUCCESS) {
      why = path + ": cudnnCreate failed: " + l->text(s);
      return;
    }
    lib = std::move(l);
  });
  if (!lib) return make_error(why);
  return static_cast<const CudnnLibrary*>(lib.get());
}

}  // namespace fxscope::gpu
