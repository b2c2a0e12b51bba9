#include "cudnn_conv.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace fxscope::gpu {

// The few cuDNN 9 entry points used, declared here (handles are opaque pointers; enums ints).
class CudnnLibrary {
 public:
  using Status = int;
  Status (*create)(void**) = nullptr;
  Status (*set_stream)(void*, cudaStream_t) = nullptr;
  Status (*create_tensor)(void**) = nullptr;
  Status (*set_tensor_nd)(void*, int, int, const int*, const int*) = nullptr;
  Status (*destroy_tensor)(void*) = nullptr;
  Status (*create_filter)(void**) = nullptr;
  Status (*set_filter_nd)(void*, int, int, int, const int*) = nullptr;
  Status (*destroy_filter)(void*) = nullptr;
  Status (*create_conv)(void**) = nullptr;
  Status (*set_conv_nd)(void*, int, const int*, const int*, const int*, int, int) = nullptr;
  Status (*set_group_count)(void*, int) = nullptr;
  Status (*set_math_type)(void*, int) = nullptr;
  Status (*destroy_conv)(void*) = nullptr;
  Status (*get_algo_v7)(void*, void*, void*, void*, void*, int, int*, void*) = nullptr;
  Status (*workspace_size)(void*, void*, void*, void*, void*, int, std::size_t*) = nullptr;
  Status (*forward)(void*, const void*, void*, const void*, void*, const void*, void*, int, void*,
                    std::size_t, const void*, void*, void*) = nullptr;
  Status (*add_tensor)(void*, const void*, void*, const void*, const void*, void*, void*) = nullptr;
  const char* (*error_string)(Status) = nullptr;
  void* handle = nullptr;  // the cudnnHandle_t
  std::string path;

  std::string text(Status s) const {
    return error_string ? error_string(s) : "cuDNN status " + std::to_string(s);
  }
};

namespace {

// cudnnConvolutionFwdAlgoPerf_t as cuDNN 9 lays it out.
struct AlgoPerf {
  int algo;
  int status;
  float time;
  std::size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};

constexpr int kDataFloat = 0;
constexpr int kDataHalf = 2;
constexpr int kDataBfloat16 = 9;
constexpr int kTensorNchw = 0;
constexpr int kCrossCorrelation = 1;
constexpr int kFmaMath = 3;  // no TF32, as the captures ran

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

Result<const CudnnLibrary*> load_library() {
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
    const bool ok = bind(so, "cudnnCreate", l->create) &&
                    bind(so, "cudnnSetStream", l->set_stream) &&
                    bind(so, "cudnnCreateTensorDescriptor", l->create_tensor) &&
                    bind(so, "cudnnSetTensorNdDescriptor", l->set_tensor_nd) &&
                    bind(so, "cudnnDestroyTensorDescriptor", l->destroy_tensor) &&
                    bind(so, "cudnnCreateFilterDescriptor", l->create_filter) &&
                    bind(so, "cudnnSetFilterNdDescriptor", l->set_filter_nd) &&
                    bind(so, "cudnnDestroyFilterDescriptor", l->destroy_filter) &&
                    bind(so, "cudnnCreateConvolutionDescriptor", l->create_conv) &&
                    bind(so, "cudnnSetConvolutionNdDescriptor", l->set_conv_nd) &&
                    bind(so, "cudnnSetConvolutionGroupCount", l->set_group_count) &&
                    bind(so, "cudnnSetConvolutionMathType", l->set_math_type) &&
                    bind(so, "cudnnDestroyConvolutionDescriptor", l->destroy_conv) &&
                    bind(so, "cudnnGetConvolutionForwardAlgorithm_v7", l->get_algo_v7) &&
                    bind(so, "cudnnGetConvolutionForwardWorkspaceSize", l->workspace_size) &&
                    bind(so, "cudnnConvolutionForward", l->forward) &&
                    bind(so, "cudnnAddTensor", l->add_tensor) &&
                    bind(so, "cudnnGetErrorString", l->error_string);
    if (!ok) {
      why = path + ": a cuDNN entry point is missing (cuDNN 9 expected)";
      return;
    }
    if (const int s = l->create(&l->handle); s != 0) {
      why = path + ": cudnnCreate failed: " + l->text(s);
      return;
    }
    lib = std::move(l);
  });
  if (!lib) return make_error(why);
  return static_cast<const CudnnLibrary*>(lib.get());
}

std::vector<int> ints(const std::vector<std::int64_t>& v) {
  return {v.begin(), v.end()};
}

}  // namespace

std::string cudnn_location() {
  auto lib = load_library();
  return lib ? (*lib)->path : "";
}

CudnnConv::~CudnnConv() {
  if (!lib_) return;
  if (x_desc_) lib_->destroy_tensor(x_desc_);
  if (y_desc_) lib_->destroy_tensor(y_desc_);
  if (b_desc_) lib_->destroy_tensor(b_desc_);
  if (w_desc_) lib_->destroy_filter(w_desc_);
  if (conv_desc_) lib_->destroy_conv(conv_desc_);
}

Result<std::unique_ptr<CudnnConv>> CudnnConv::create(const ConvSpec& s, const std::string& where) {
  auto lib = load_library();
  if (!lib) return make_error(where + ": " + lib.error().message);
  const CudnnLibrary& L = **lib;
  std::unique_ptr<CudnnConv> c(new CudnnConv());
  c->lib_ = &L;
  c->where_ = where;
  const int type = s.dtype == "f32"    ? kDataFloat
                   : s.dtype == "f16"  ? kDataHalf
                   : s.dtype == "bf16" ? kDataBfloat16
                                       : -1;
  if (type < 0) return make_error(where + ": convolution in " + s.dtype + " is not supported");
  const auto check = [&](int status, const char* what) -> std::optional<Error> {
    if (status == 0) return std::nullopt;
    return make_error(where + ": cuDNN " + what + ": " + L.text(status));
  };
  const int rank = static_cast<int>(s.x_sizes.size());
  L.create_tensor(&c->x_desc_);
  L.create_tensor(&c->y_desc_);
  L.create_filter(&c->w_desc_);
  L.create_conv(&c->conv_desc_);
  if (auto e = check(
          L.set_tensor_nd(c->x_desc_, type, rank, ints(s.x_sizes).data(), ints(s.x_strides).data()),
          "input descriptor")) {
    return *e;
  }
  if (auto e = check(L.set_tensor_nd(c->y_desc_, type, rank, ints(s.out_sizes).data(),
                                     ints(s.out_strides).data()),
                     "output descriptor")) {
    return *e;
  }
  if (auto e = check(L.set_filter_nd(c->w_desc_, type, kTensorNchw, rank, ints(s.w_sizes).data()),
                     "filter descriptor")) {
    return *e;
  }
  // Half types accumulate in fp32 too.
  if (auto e = check(L.set_conv_nd(c->conv_desc_, rank - 2, s.padding.data(), s.stride.data(),
                                   s.dilation.data(), kCrossCorrelation, kDataFloat),
                     "convolution descriptor")) {
    return *e;
  }
  L.set_group_count(c->conv_desc_, s.groups);
  L.set_math_type(c->conv_desc_, kFmaMath);
  if (s.bias) {
    std::vector<int> bdims(static_cast<std::size_t>(rank), 1);
    std::vector<int> bstrides(static_cast<std::size_t>(rank), 1);
    bdims[1] = static_cast<int>(s.out_sizes[1]);
    bstrides[0] = bdims[1];
    L.create_tensor(&c->b_desc_);
    if (auto e = check(L.set_tensor_nd(c->b_desc_, type, rank, bdims.data(), bstrides.data()),
                       "bias descriptor")) {
      return *e;
    }
  }
  AlgoPerf perf[8];
  int returned = 0;
  if (auto e = check(L.get_algo_v7(L.handle, c->x_desc_, c->w_desc_, c->conv_desc_, c->y_desc_, 8,
                                   &returned, perf),
                     "algorithm heuristic")) {
    return *e;
  }
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != 0) continue;
    c->algo_ = perf[i].algo;
    std::size_t bytes = 0;
    if (L.workspace_size(L.handle, c->x_desc_, c->w_desc_, c->conv_desc_, c->y_desc_, c->algo_,
                         &bytes) == 0) {
      c->workspace_bytes_ = bytes;
      return c;
    }
  }
  return make_error(where + ": cuDNN offers no algorithm for this convolution");
}

std::string CudnnConv::launch(cudaStream_t stream, const void* x, const void* w, const void* bias,
                              void* out, void* workspace) const {
  const float one = 1.0f;
  const float zero = 0.0f;
  lib_->set_stream(lib_->handle, stream);
  int s = lib_->forward(lib_->handle, &one, x_desc_, x, w_desc_, w, conv_desc_, algo_, workspace,
                        workspace_bytes_, &zero, y_desc_, out);
  if (s == 0 && bias) s = lib_->add_tensor(lib_->handle, &one, b_desc_, bias, &one, y_desc_, out);
  return s == 0 ? "" : where_ + ": cuDNN convolution failed: " + lib_->text(s);
}

}  // namespace fxscope::gpu
