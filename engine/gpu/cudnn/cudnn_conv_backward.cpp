#include "cudnn/cudnn_conv_backward.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "cudnn/cudnn_legacy_conv.h"

namespace fxscope::gpu {
CudnnConvBackward::~CudnnConvBackward() {
  for (void* d : {x_desc_, dx_desc_, dy_desc_, db_desc_}) {
    if (d) lib_->destroy_tensor(d);
  }
  for (void* d : {w_desc_, dw_desc_}) {
    if (d) lib_->destroy_filter(d);
  }
  if (conv_desc_) lib_->destroy_conv(conv_desc_);
}

Result<std::unique_ptr<CudnnConvBackward>> CudnnConvBackward::create(const ConvBackwardSpec& b,
                                                                     const std::string& where) {
  auto lib = cudnn_library();
  if (!lib) return make_error(where + ": " + lib.error().message);
  const CudnnLibrary& L = **lib;
  const ConvSpec& s = b.conv;
  const int rank = static_cast<int>(s.x_sizes.size());
  if (rank < 4 || rank > 5) {
    return make_error(where + ": " + conv_shape_text(s) +
                      ": the backward runs 2-d and 3-d convolutions only");
  }
  const int type = cudnn_data_type(s.dtype);
  if (type < 0) return make_error(where + ": convolution in " + s.dtype + " is not supported");
  std::unique_ptr<CudnnConvBackward> c(new CudnnConvBackward());
  c->lib_ = &L;
  c->where_ = where;
  const auto failed = [&](cudnn::Status status, const char* what) -> std::optional<Error> {
    if (status == cudnn::CUDNN_STATUS_SUCCESS) return std::nullopt;
    return make_error(where + ": cuDNN " + what + ": " + L.text(status) + " (" +
                      conv_shape_text(s) + ")");
  };
  const auto tensor = [&](void** desc, const std::vector<std::int64_t>& sizes,
                          const std::vector<std::int64_t>& strides,
                          const char* what) -> std::optional<Error> {
    if (L.create_tensor(desc) != 0) return make_error(where + ": cuDNN cannot create a descriptor");
    return failed(
        L.set_tensor_nd(*desc, type, rank, cudnn::ints(sizes).data(), cudnn::ints(strides).data()),
        what);
  };
  const auto filter = [&](void** desc, const std::vector<std::int64_t>& strides,
                          const char* what) -> std::optional<Error> {
    ConvSpec laid = s;
    laid.w_strides = strides;
    const WeightLayout layout = weight_layout(laid);
    if (layout == WeightLayout::other) {
      return make_error(where + ": the " + what +
                        " is neither contiguous nor channels-last: cuDNN's filter descriptor "
                        "takes one of the two");
    }
    if (L.create_filter(desc) != 0) return make_error(where + ": cuDNN cannot create a descriptor");
    const int format =
        layout == WeightLayout::contiguous ? cudnn::CUDNN_TENSOR_NCHW : cudnn::CUDNN_TENSOR_NHWC;
    return failed(L.set_filter_nd(*desc, type, format, rank, cudnn::ints(s.w_sizes).data()), what);
  };
  // The graph API first; the legacy API's heuristics offer no half-precision algorithm for many
  // shapes (ResNet-18's and EfficientNet's bf16 backward), and ATen goes through the graph API.
  std::string graph_refused;
  // The gradient WHAT on the graph API, its strides in STRIDES (put in the spec at GRADIENT);
  // null, and the reason kept, where no engine plans it.
  const auto on_graph = [&](ConvOp op, std::vector<std::int64_t> ConvSpec::*gradient,
                            const std::vector<std::int64_t>& strides,
                            const char* what) -> std::unique_ptr<CudnnGraphConv> {
    ConvSpec spec = s;
    spec.bias.reset();
    spec.*gradient = strides;
    auto g = CudnnGraphConv::create(L, spec, op);
    if (!g) {
      graph_refused += (graph_refused.empty() ? "" : "; ") + std::string(what) +
                       " on the graph API: " + g.error().message;
      return nullptr;
    }
    c->workspace_bytes_ = std::max(c->workspace_bytes_, (*g)->workspace_bytes());
    c->algorithms_ +=
        (c->algorithms_.empty() ? "" : ", ") + std::string(what) + " " + (*g)->engine();
    return std::move(*g);
  };
  if (b.grad_x) {
    c->data_graph_ =
        on_graph(ConvOp::backward_data, &ConvSpec::x_strides, b.grad_x_strides, "backward data");
  }
  if (b.grad_w) {
    c->filter_graph_ = on_graph(ConvOp::backward_filter, &ConvSpec::w_strides, b.grad_w_strides,
                                "backward filter");
  }
  if (auto e = tensor(&c->x_desc_, s.x_sizes, s.x_strides, "input descriptor")) return *e;
  if (auto e = tensor(&c->dy_desc_, s.out_sizes, s.out_strides, "gradient descriptor")) return *e;
  if (auto e = filter(&c->w_desc_, s.w_strides, "weight")) return *e;
  if (L.create_conv(&c->conv_desc_) != 0) {
    return make_error(where + ": cuDNN cannot create the convolution descriptor");
  }
  if (auto e = failed(set_legacy_convolution(L, c->conv_desc_, s), "convolution descriptor")) {
    return *e;
  }
  // The first of cuDNN's heuristic picks it can size a workspace for.
  const auto pick = [&](auto get, auto size, void* a, void* bdesc, void* out,
                        const char* what) -> Result<int> {
    cudnn::AlgoPerf perf[8];
    int returned = 0;
    if (auto e = failed(get(L.handle, a, bdesc, c->conv_desc_, out, 8, &returned, perf), what)) {
      return *e;
    }
    for (int i = 0; i < returned; ++i) {
      if (perf[i].status != cudnn::CUDNN_STATUS_SUCCESS) continue;
      std::size_t bytes = 0;
      if (size(L.handle, a, bdesc, c->conv_desc_, out, perf[i].algo, &bytes) ==
          cudnn::CUDNN_STATUS_SUCCESS) {
        c->workspace_bytes_ = std::max(c->workspace_bytes_, bytes);
        return perf[i].algo;
      }
    }
    return make_error(where + ": cuDNN offers no " + what + " for " + conv_shape_text(s) +
                      (graph_refused.empty() ? "" : " (" + graph_refused + ")"));
  };
  if (b.grad_x && !c->data_graph_) {
    if (auto e = tensor(&c->dx_desc_, s.x_sizes, b.grad_x_strides, "input gradient descriptor")) {
      return *e;
    }
    auto algo = pick(L.get_bwd_data_algo_v7, L.bwd_data_workspace_size, c->w_desc_, c->dy_desc_,
                     c->dx_desc_, "backward-data algorithm");
    if (!algo) return algo.error();
    c->data_algo_ = *algo;
    c->algorithms_ = "data algorithm " + std::to_string(*algo) +
                     (c->algorithms_.empty() ? "" : ", " + c->algorithms_);
  }
  if (b.grad_w && !c->filter_graph_) {
    if (auto e = filter(&c->dw_desc_, b.grad_w_strides, "weight's gradient")) return *e;
    auto algo = pick(L.get_bwd_filter_algo_v7, L.bwd_filter_workspace_size, c->x_desc_, c->dy_desc_,
                     c->dw_desc_, "backward-filter algorithm");
    if (!algo) return algo.error();
    c->filter_algo_ = *algo;
    c->algorithms_ += (c->algorithms_.empty() ? "" : ", ") + std::string("filter algorithm ") +
                      std::to_string(*algo);
  }
  if (b.grad_bias) {
    // 1 x C x 1 x 1: the sum of the output's gradient over every dim but the channels.
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(rank), 1);
    sizes[1] = s.out_sizes[1];
    std::vector<std::int64_t> strides(static_cast<std::size_t>(rank), 1);
    strides[0] = sizes[1];
    if (auto e = tensor(&c->db_desc_, sizes, strides, "bias gradient descriptor")) return *e;
    c->bias_ = true;
  }
  return c;
}

std::string CudnnConvBackward::launch(cudaStream_t stream, const void* dy, const void* x,
                                      const void* w, void* dx, void* dw, void* db,
                                      void* workspace) const {
  lib_->use_stream(stream);
  const float one = 1.0f;
  const float zero = 0.0f;
  const auto done = [&](cudnn::Status s, const char* what) {
    return s == cudnn::CUDNN_STATUS_SUCCESS
               ? std::string()
               : where_ + ": cuDNN " + what + " failed: " + lib_->text(s);
  };
  if (dx && data_graph_) {
    // The graph keeps the forward's roles: dx in the input's place, dy in the output's.
    if (std::string e = data_graph_->launch(dx, w, nullptr, const_cast<void*>(dy), workspace);
        !e.empty()) {
      return where_ + ": cuDNN backward data failed: " + e;
    }
  } else if (dx && data_algo_ >= 0) {
    const std::string e =
        done(lib_->backward_data(lib_->handle, &one, w_desc_, w, dy_desc_, dy, conv_desc_,
                                 data_algo_, workspace, workspace_bytes_, &zero, dx_desc_, dx),
             "backward data");
    if (!e.empty()) return e;
  }
  if (dw && filter_graph_) {
    if (std::string e = filter_graph_->launch(x, dw, nullptr, const_cast<void*>(dy), workspace);
        !e.empty()) {
      return where_ + ": cuDNN backward filter failed: " + e;
    }
  } else if (dw && filter_algo_ >= 0) {
    const std::string e =
        done(lib_->backward_filter(lib_->handle, &one, x_desc_, x, dy_desc_, dy, conv_desc_,
                                   filter_algo_, workspace, workspace_bytes_, &zero, dw_desc_, dw),
             "backward filter");
    if (!e.empty()) return e;
  }
  if (db && bias_) {
    return done(lib_->backward_bias(lib_->handle, &one, dy_desc_, dy, &zero, db_desc_, db),
                "backward bias");
  }
  return "";
}

}  // namespace fxscope::gpu
