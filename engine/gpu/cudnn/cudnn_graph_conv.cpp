#include "cudnn/cudnn_graph_conv.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "cudnn/cudnn_engine_plans.h"
#include "run/gpu_timing.h"

namespace fxscope::gpu {

using namespace cudnn;

namespace {

constexpr std::int64_t kUidX = 1;
constexpr std::int64_t kUidW = 2;
constexpr std::int64_t kUidY = 3;
constexpr std::int64_t kUidBias = 4;
constexpr std::int64_t kUidConvOut = 5;

std::vector<std::int64_t> int64s(const std::vector<int>& v) {
  return {v.begin(), v.end()};
}

// Every call goes through ok(); the first failure is the one reported (a call on a descriptor
// whose set-up failed only fails again).
class Calls {
 public:
  explicit Calls(const CudnnLibrary& lib) : lib_(lib) {}
  bool ok(Status s, const char* what) {
    if (s == CUDNN_STATUS_SUCCESS) return true;
    if (error_.empty()) error_ = std::string(what) + ": " + lib_.text(s);
    return false;
  }
  const std::string& error() const { return error_; }

 private:
  const CudnnLibrary& lib_;
  std::string error_;
};

CudnnDescriptor tensor(const CudnnLibrary& lib, Calls& c, std::int64_t uid, int type,
                       const std::vector<std::int64_t>& sizes,
                       const std::vector<std::int64_t>& strides, int align, bool is_virtual) {
  CudnnDescriptor t(lib, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  c.ok(t.status(), "tensor descriptor");
  c.ok(t.set_int(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, type), "tensor data type");
  c.ok(t.set_int64s(CUDNN_ATTR_TENSOR_DIMENSIONS, sizes), "tensor dimensions");
  c.ok(t.set_int64s(CUDNN_ATTR_TENSOR_STRIDES, strides), "tensor strides");
  c.ok(t.set_int64(CUDNN_ATTR_TENSOR_UNIQUE_ID, uid), "tensor id");
  c.ok(t.set_int64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, align), "tensor alignment");
  c.ok(t.set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual), "tensor virtual");
  c.ok(t.finalize(), "tensor");
  return t;
}

// The operation graph of SPEC; its parts go to PARTS, which must outlive it.
CudnnDescriptor operation_graph(const CudnnLibrary& lib, Calls& c, const ConvSpec& s, ConvOp kind,
                                bool fuse_bias, std::vector<CudnnDescriptor>& parts) {
  const int type = cudnn_data_type(s.dtype);
  const float one = 1.0f;
  const float zero = 0.0f;
  CudnnDescriptor x = tensor(lib, c, kUidX, type, s.x_sizes, s.x_strides, s.x_align, false);
  CudnnDescriptor w = tensor(lib, c, kUidW, type, s.w_sizes, s.w_strides, s.w_align, false);
  CudnnDescriptor y = tensor(lib, c, kUidY, type, s.out_sizes, s.out_strides, s.out_align, false);

  CudnnDescriptor conv(lib, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const std::vector<std::int64_t> pad = int64s(s.padding);
  c.ok(conv.status(), "convolution descriptor");
  // Half types accumulate in fp32 too.
  c.ok(conv.set_int(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT),
       "convolution compute type");
  c.ok(conv.set_int(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
                    CUDNN_CROSS_CORRELATION),
       "convolution mode");
  c.ok(conv.set_int64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS,
                      static_cast<std::int64_t>(s.x_sizes.size() - 2)),
       "convolution rank");
  c.ok(conv.set_int64s(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, pad), "convolution padding");
  c.ok(conv.set_int64s(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, pad), "convolution padding");
  c.ok(conv.set_int64s(CUDNN_ATTR_CONVOLUTION_DILATIONS, int64s(s.dilation)),
       "convolution dilation");
  c.ok(conv.set_int64s(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, int64s(s.stride)),
       "convolution stride");
  c.ok(conv.finalize(), "convolution");

  // With a fused bias the convolution writes a virtual fp32 tensor the pointwise add reads.
  CudnnDescriptor conv_out;
  if (fuse_bias) {
    conv_out = tensor(lib, c, kUidConvOut, CUDNN_DATA_FLOAT, s.out_sizes, s.out_strides, 16, true);
  }
  // The attributes of the operation KIND: its descriptor type, then x, w, y, parameters, alpha
  // and beta (dx for x in backward data, dw for w in backward filter, dy for y in both).
  struct Attributes {
    int type, x, w, y, conv, alpha, beta;
  };
  const Attributes a =
      kind == ConvOp::backward_data
          ? Attributes{CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA}
      : kind == ConvOp::backward_filter
          ? Attributes{CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA}
          : Attributes{CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
  CudnnDescriptor op(lib, a.type);
  c.ok(op.status(), "convolution operation");
  c.ok(op.set_descriptor(a.x, x), "convolution input");
  c.ok(op.set_descriptor(a.w, w), "convolution weight");
  c.ok(op.set_descriptor(a.y, fuse_bias ? conv_out : y), "convolution output");
  c.ok(op.set_descriptor(a.conv, conv), "convolution parameters");
  c.ok(op.set(a.alpha, CUDNN_TYPE_FLOAT, 1, &one), "convolution alpha");
  c.ok(op.set(a.beta, CUDNN_TYPE_FLOAT, 1, &zero), "convolution beta");
  c.ok(op.finalize(), "convolution operation");
  std::vector<Descriptor> ops{op.get()};

  if (fuse_bias) {
    std::vector<std::int64_t> bsizes(s.out_sizes.size(), 1);
    std::vector<std::int64_t> bstrides(s.out_sizes.size(), 1);
    bsizes[1] = s.out_sizes[1];
    bstrides[0] = bsizes[1];
    CudnnDescriptor b = tensor(lib, c, kUidBias, type, bsizes, bstrides, s.bias_align, false);
    CudnnDescriptor add(lib, CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    c.ok(add.status(), "pointwise descriptor");
    c.ok(add.set_int(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, CUDNN_POINTWISE_ADD),
         "pointwise mode");
    c.ok(add.set_int(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT),
         "pointwise precision");
    c.ok(add.finalize(), "pointwise add");
    CudnnDescriptor add_op(lib, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    c.ok(add_op.status(), "bias operation");
    c.ok(add_op.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, add), "bias add");
    c.ok(add_op.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, conv_out), "bias input");
    c.ok(add_op.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b), "bias");
    c.ok(add_op.set_descriptor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y), "bias output");
    c.ok(add_op.set(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, &one), "alpha1");
    c.ok(add_op.set(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, 1, &one), "alpha2");
    c.ok(add_op.finalize(), "bias operation");
    ops.push_back(add_op.get());
    parts.push_back(std::move(b));
    parts.push_back(std::move(add));
    parts.push_back(std::move(add_op));
  }

  CudnnDescriptor graph(lib, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  c.ok(graph.status(), "operation graph");
  // Deprecated in cuDNN 9.19 in favour of device properties, still honoured and required before.
  c.ok(graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &lib.handle),
       "operation graph handle");
  c.ok(graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                 static_cast<std::int64_t>(ops.size()), ops.data()),
       "operation graph operations");
  c.ok(graph.finalize(), "operation graph");
  for (CudnnDescriptor* d : {&x, &w, &y, &conv, &conv_out, &op}) parts.push_back(std::move(*d));
  return graph;
}

}  // namespace

Result<std::unique_ptr<CudnnGraphConv>> CudnnGraphConv::create(const CudnnLibrary& lib,
                                                               const ConvSpec& s, ConvOp op) {
  if (cudnn_data_type(s.dtype) < 0) {
    return make_error("convolution in " + s.dtype + " is not supported");
  }
  // The bias fused where an engine takes it; else the convolution alone and cudnnAddTensor. A
  // backward computes no bias here (its gradient is a sum of dy, cudnn_conv_backward.h).
  if (!s.bias || op != ConvOp::forward) return create_with(lib, s, op, false, "");
  auto fused = create_with(lib, s, op, true, "");
  if (fused) return fused;
  return create_with(lib, s, op, false, fused.error().message);
}

Result<std::unique_ptr<CudnnGraphConv>> CudnnGraphConv::create_with(const CudnnLibrary& lib,
                                                                    const ConvSpec& s, ConvOp op,
                                                                    bool fuse,
                                                                    const std::string& unfused) {
  Calls calls(lib);
  std::vector<CudnnDescriptor> parts;
  CudnnDescriptor graph = operation_graph(lib, calls, s, op, fuse, parts);
  if (!calls.error().empty()) {
    return make_error("operation graph refused: " + calls.error());
  }
  auto plans = cudnn_plans(lib, graph, s.dtype == "f32", 1);
  if (!plans) return plans.error();
  CudnnPlan& plan = plans->front();
  std::unique_ptr<CudnnGraphConv> g(new CudnnGraphConv());
  g->lib_ = &lib;
  g->align_ = {s.x_align, s.w_align, s.bias_align, s.out_align};
  if (s.bias && !fuse && op == ConvOp::forward) {
    auto bias = CudnnBiasAdd::create(lib, s, "bias");
    if (!bias) return bias.error();
    g->bias_add_ = std::move(*bias);
  }
  g->bias_fused_ = fuse;
  g->parts_ = std::move(parts);
  g->parts_.push_back(std::move(graph));
  g->fp32_ = s.dtype == "f32";
  g->plan_ = std::move(plan.plan);
  g->workspace_bytes_ = static_cast<std::size_t>(plan.workspace);
  g->bias_note_ = std::string(fuse ? ", bias fused" : "") +
                  (unfused.empty() ? "" : ", bias added apart (fused: " + unfused + ")");
  g->engine_ = plan.engine + g->bias_note_;
  return g;
}

std::string CudnnGraphConv::build_pack(const std::array<const void*, 5>& p) const {
  static const char* const kNames[4] = {"input", "weight", "bias", "output"};
  for (std::size_t i = 0; i < 4; ++i) {
    if (p[i] && reinterpret_cast<std::uintptr_t>(p[i]) % static_cast<std::uintptr_t>(align_[i])) {
      return std::string("the ") + kNames[i] + "'s address is not aligned to " +
             std::to_string(align_[i]) + " bytes as planned";
    }
  }
  std::vector<std::int64_t> uids{kUidX, kUidW, kUidY};
  std::vector<void*> pointers{const_cast<void*>(p[0]), const_cast<void*>(p[1]),
                              const_cast<void*>(p[3])};
  if (bias_fused_) {
    uids.push_back(kUidBias);
    pointers.push_back(const_cast<void*>(p[2]));
  }
  void* workspace = const_cast<void*>(p[4]);
  CudnnDescriptor pack(*lib_, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  Calls c(*lib_);
  c.ok(pack.status(), "variant pack");
  c.ok(pack.set_int64s(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, uids), "variant pack ids");
  c.ok(pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
                static_cast<std::int64_t>(pointers.size()), pointers.data()),
       "variant pack pointers");
  c.ok(pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace),
       "variant pack workspace");
  c.ok(pack.finalize(), "variant pack");
  if (!c.error().empty()) return c.error();
  pack_ = std::move(pack);
  pack_pointers_ = p;
  return "";
}

std::string CudnnGraphConv::launch(const void* x, const void* w, const void* bias, void* out,
                                   void* workspace) const {
  const std::array<const void*, 5> p{x, w, bias_fused_ ? bias : nullptr, out, workspace};
  if (!pack_.get() || p != pack_pointers_) {
    if (std::string err = build_pack(p); !err.empty()) return err;
  }
  if (const Status s = lib_->backend_execute(lib_->handle, plan_.get(), pack_.get());
      s != CUDNN_STATUS_SUCCESS) {
    return "cudnnBackendExecute: " + lib_->text(s);
  }
  if (bias_add_) {
    if (const Status s = bias_add_->launch(bias, out); s != CUDNN_STATUS_SUCCESS) {
      return "cudnnAddTensor (bias): " + lib_->text(s);
    }
  }
  return "";
}

std::optional<std::string> CudnnGraphConv::tune(cudaStream_t stream, const void* x, const void* w,
                                                const void* bias, void* out,
                                                std::size_t candidates) {
  constexpr int kRepeats = 5;
  auto plans = cudnn_plans(*lib_, parts_.back(), fp32_, candidates);
  if (!plans || plans->size() < 2) return std::nullopt;
  std::int64_t most = 0;
  for (const CudnnPlan& p : *plans) most = std::max(most, p.workspace);
  void* workspace = nullptr;
  if (most > 0 && cudaMalloc(&workspace, static_cast<std::size_t>(most)) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  lib_->use_stream(stream);
  const bool packed = build_pack({x, w, bias_fused_ ? bias : nullptr, out, workspace}).empty();
  std::size_t best = 0;
  double best_us = -1;
  double first_us = -1;
  for (std::size_t i = 0; packed && i < plans->size(); ++i) {
    const Descriptor plan = (*plans)[i].plan.get();
    // A plan that fails on this device is passed over, not timed.
    const auto us = gpu_time_us(
        stream,
        [&] {
          return lib_->backend_execute(lib_->handle, plan, pack_.get()) == CUDNN_STATUS_SUCCESS;
        },
        kRepeats);
    if (!us) continue;
    if (i == 0) first_us = *us;
    if (best_us < 0 || *us < best_us) {
      best_us = *us;
      best = i;
    }
  }
  cudaFree(workspace);
  // The next launch packs the executor's own workspace.
  pack_ = CudnnDescriptor();
  pack_pointers_ = {};
  if (best_us < 0 || first_us < 0) return std::nullopt;
  CudnnPlan& pick = (*plans)[best];
  char text[96];
  std::snprintf(text, sizeof text, ", %zu plans timed: %.2f us (heuristics' pick %.2f us)",
                plans->size(), best_us, first_us);
  const std::string picked = pick.engine + text;
  plan_ = std::move(pick.plan);
  workspace_bytes_ = static_cast<std::size_t>(pick.workspace);
  engine_ = pick.engine + bias_note_;
  return picked;
}

}  // namespace fxscope::gpu
