#include "cudnn/cudnn_conv.h"

#include <cstdlib>
#include <cstring>

namespace fxscope::gpu {
namespace {

bool legacy_forced() {
  const char* v = std::getenv("FXSCOPE_CUDNN_LEGACY");
  return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace

std::string cudnn_location() {
  auto lib = cudnn_library();
  return lib ? (*lib)->path : "";
}

CudnnConv::~CudnnConv() = default;

Result<std::unique_ptr<CudnnConv>> CudnnConv::create(const ConvSpec& spec,
                                                     const std::string& where) {
  auto lib = cudnn_library();
  if (!lib) return make_error(where + ": " + lib.error().message);
  const ConvSpec s = with_two_spatial_dims(spec);
  if (s.x_sizes.size() < 4 || s.x_sizes.size() > 5) {
    return make_error(where + ": " + conv_shape_text(spec) +
                      ": cuDNN takes 1-d, 2-d and 3-d convolutions only");
  }
  std::unique_ptr<CudnnConv> c(new CudnnConv());
  c->lib_ = *lib;
  c->where_ = where;
  std::string graph_error = "not tried (FXSCOPE_CUDNN_LEGACY)";
  if (!legacy_forced()) {
    auto graph = CudnnGraphConv::create(**lib, s);
    if (graph) {
      c->engine_ = (*graph)->engine();
      c->graph_ = std::move(*graph);
      return c;
    }
    graph_error = graph.error().message;
  }
  auto legacy = CudnnLegacyConv::create(**lib, s, "legacy API");
  if (!legacy) {
    return make_error(where + ": " + conv_shape_text(spec) + ": graph API: " + graph_error + "; " +
                      legacy.error().message);
  }
  c->engine_ = "legacy algorithm " + std::to_string((*legacy)->algorithm()) +
               " (graph API: " + graph_error + ")";
  c->legacy_ = std::move(*legacy);
  return c;
}

std::size_t CudnnConv::workspace_bytes() const {
  return graph_ ? graph_->workspace_bytes() : legacy_->workspace_bytes();
}

std::optional<std::string> CudnnConv::tune(cudaStream_t stream, const void* x, const void* w,
                                           const void* bias, void* out, std::size_t candidates) {
  if (!graph_) return std::nullopt;
  auto pick = graph_->tune(stream, x, w, bias, out, candidates);
  if (pick) engine_ = graph_->engine();
  return pick;
}

std::string CudnnConv::launch(cudaStream_t stream, const void* x, const void* w, const void* bias,
                              void* out, void* workspace) const {
  lib_->use_stream(stream);
  if (graph_) {
    const std::string err = graph_->launch(x, w, bias, out, workspace);
    return err.empty() ? "" : where_ + ": cuDNN convolution failed: " + err;
  }
  const cudnn::Status s = legacy_->launch(x, w, bias, out, workspace);
  return s == cudnn::CUDNN_STATUS_SUCCESS ? ""
                                          : where_ + ": cuDNN convolution failed: " + lib_->text(s);
}

}  // namespace fxscope::gpu
