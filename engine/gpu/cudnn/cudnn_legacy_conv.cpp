#include "cudnn/cudnn_legacy_conv.h"

#include <optional>
#include <vector>

namespace fxscope::gpu {
cudnn::Status set_legacy_convolution(const CudnnLibrary& L, void* desc, const ConvSpec& s) {
  const int spatial = static_cast<int>(s.x_sizes.size()) - 2;
  const cudnn::Status status =
      L.set_conv_nd(desc, spatial, s.padding.data(), s.stride.data(), s.dilation.data(),
                    cudnn::CUDNN_CROSS_CORRELATION, cudnn::CUDNN_DATA_FLOAT);
  if (status != cudnn::CUDNN_STATUS_SUCCESS) return status;
  L.set_group_count(desc, s.groups);
  // fp32 on plain FMA (no TF32, as eager with allow_tf32 off); fp16 and bf16 on tensor cores, as
  // ATen asks: cuDNN has no FMA kernels for most half-precision backward shapes.
  L.set_math_type(desc, s.dtype == "f32" ? cudnn::CUDNN_FMA_MATH : cudnn::CUDNN_TENSOR_OP_MATH);
  return cudnn::CUDNN_STATUS_SUCCESS;
}

CudnnLegacyConv::~CudnnLegacyConv() {
  if (x_desc_) lib_->destroy_tensor(x_desc_);
  if (y_desc_) lib_->destroy_tensor(y_desc_);
  if (w_desc_) lib_->destroy_filter(w_desc_);
  if (conv_desc_) lib_->destroy_conv(conv_desc_);
}

Result<std::unique_ptr<CudnnLegacyConv>> CudnnLegacyConv::create(const CudnnLibrary& L,
                                                                 const ConvSpec& s,
                                                                 const std::string& where) {
  std::unique_ptr<CudnnLegacyConv> c(new CudnnLegacyConv());
  c->lib_ = &L;
  const int type = cudnn_data_type(s.dtype);
  if (type < 0) return make_error(where + ": convolution in " + s.dtype + " is not supported");
  const auto failed = [&](cudnn::Status status, const char* what) -> std::optional<Error> {
    if (status == cudnn::CUDNN_STATUS_SUCCESS) return std::nullopt;
    return make_error(where + ": cuDNN " + what + ": " + L.text(status));
  };
  const int rank = static_cast<int>(s.x_sizes.size());
  if (L.create_tensor(&c->x_desc_) != 0 || L.create_tensor(&c->y_desc_) != 0 ||
      L.create_filter(&c->w_desc_) != 0 || L.create_conv(&c->conv_desc_) != 0) {
    return make_error(where + ": cuDNN cannot create the convolution's descriptors");
  }
  if (auto e = failed(L.set_tensor_nd(c->x_desc_, type, rank, cudnn::ints(s.x_sizes).data(),
                                      cudnn::ints(s.x_strides).data()),
                      "input descriptor")) {
    return *e;
  }
  if (auto e = failed(L.set_tensor_nd(c->y_desc_, type, rank, cudnn::ints(s.out_sizes).data(),
                                      cudnn::ints(s.out_strides).data()),
                      "output descriptor")) {
    return *e;
  }
  const WeightLayout layout = weight_layout(s);
  if (layout == WeightLayout::other) {
    return make_error(where + ": the weight is neither contiguous nor channels-last (" +
                      conv_shape_text(s) + "): cuDNN's filter descriptor takes one of the two");
  }
  // Sizes stay in KCRS order for either format; the format says how they lie in memory.
  const int format =
      layout == WeightLayout::contiguous ? cudnn::CUDNN_TENSOR_NCHW : cudnn::CUDNN_TENSOR_NHWC;
  if (auto e =
          failed(L.set_filter_nd(c->w_desc_, type, format, rank, cudnn::ints(s.w_sizes).data()),
                 "filter descriptor")) {
    return *e;
  }
  if (auto e = failed(set_legacy_convolution(L, c->conv_desc_, s), "convolution descriptor")) {
    return *e;
  }
  if (s.bias) {
    auto bias = CudnnBiasAdd::create(L, s, where);
    if (!bias) return bias.error();
    c->bias_ = std::move(*bias);
  }
  cudnn::AlgoPerf perf[8];
  int returned = 0;
  if (auto e = failed(L.get_algo_v7(L.handle, c->x_desc_, c->w_desc_, c->conv_desc_, c->y_desc_, 8,
                                    &returned, perf),
                      "algorithm heuristic")) {
    return *e;
  }
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != cudnn::CUDNN_STATUS_SUCCESS) continue;
    std::size_t bytes = 0;
    if (L.workspace_size(L.handle, c->x_desc_, c->w_desc_, c->conv_desc_, c->y_desc_, perf[i].algo,
                         &bytes) == cudnn::CUDNN_STATUS_SUCCESS) {
      c->algo_ = perf[i].algo;
      c->workspace_bytes_ = bytes;
      return c;
    }
  }
  return make_error(where + ": cuDNN offers no algorithm for this convolution");
}

cudnn::Status CudnnLegacyConv::launch(const void* x, const void* w, const void* bias, void* out,
                                      void* workspace) const {
  const float one = 1.0f;
  const float zero = 0.0f;
  cudnn::Status s = lib_->forward(lib_->handle, &one, x_desc_, x, w_desc_, w, conv_desc_, algo_,
                                  workspace, workspace_bytes_, &zero, y_desc_, out);
  if (s == cudnn::CUDNN_STATUS_SUCCESS && bias_) s = bias_->launch(bias, out);
  return s;
}

}  // namespace fxscope::gpu
