#include "fxscope/report/kernel_shape.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "fxscope/ops/op_registry.h"
#include "fxscope/ops/reduction_layout.h"

namespace fxscope::report {
namespace {

// The static sizes of META, or nullopt where one is symbolic.
std::optional<std::vector<std::int64_t>> static_sizes(
    const std::optional<graph::TensorMeta>& meta) {
  if (!meta) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const auto& d : meta->sizes) {
    if (d.is_symbolic()) return std::nullopt;
    out.push_back(d.value);
  }
  return out;
}

const graph::Argument* positional(const graph::Node& node, std::size_t index) {
  return index < node.args.size() ? &node.args[index] : nullptr;
}

const graph::Argument* keyword(const graph::Node& node, std::string_view name) {
  for (const auto& [key, value] : node.kwargs) {
    if (key == name) return &value;
  }
  return nullptr;
}

// The first node of GROUP whose op is of class WANTED (the op the library kernel runs).
const graph::Node* library_node(const fusion::KernelGroup& group, const graph::Graph& graph,
                                ops::OpClass wanted) {
  for (const auto id : group.nodes) {
    if (ops::classify(graph.node(id).target).op_class == wanted) return &graph.node(id);
  }
  return nullptr;
}

const std::optional<graph::TensorMeta>& meta_of(const graph::Graph& graph,
                                                const graph::Argument* arg) {
  static const std::optional<graph::TensorMeta> kNone;
  return arg && arg->is_node() ? graph.node(arg->as_node()).meta : kNone;
}

// aten.convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
// groups); aten.convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
// dilation, transposed, output_padding, groups, output_mask).
// TUNED: max-autotune, where the engine times cuDNN's engines for a forward convolution (and the
// convolution as a GEMM) and keeps the fastest: another kernel than the heuristic's pick at the
// same sizes (HuBERT-style 128-wide grouped 1-d convolution: 1,202 us by default, 123 us tuned).
// The backward keeps the heuristic's algorithms in every mode.
std::string conv_shape(const graph::Node& node, const graph::Graph& graph, bool tuned) {
  const bool backward = node.target.find("convolution_backward") != std::string::npos;
  const std::size_t base = backward ? 1 : 0;
  // Of the input only its rank, channels and layout: a dynamic batch or image size leaves the
  // kernel cuDNN picks of the same class.
  const auto& x_meta = meta_of(graph, positional(node, base));
  const auto w = static_sizes(meta_of(graph, positional(node, base + 1)));
  if (!x_meta || !w || x_meta->sizes.size() < 3 || w->size() != x_meta->sizes.size() ||
      x_meta->sizes[1].is_symbolic()) {
    return "";
  }
  std::string direction = "fwd";
  if (backward) {
    direction = "bwd";
    const auto* mask = positional(node, 10);
    if (mask && mask->items().size() >= 2) {
      const bool data = mask->items()[0].as_bool();
      const bool weight = mask->items()[1].as_bool();
      if (!data) direction = "bwd_w";
      if (!weight) direction = "bwd_d";
    }
  }
  // Channels-last: the channel dimension walks memory with stride 1.
  const std::int64_t c_in = x_meta->sizes[1].value;
  const auto& strides = x_meta->strides;
  const bool channels_last =
      strides.size() == w->size() && c_in > 1 && !strides[1].is_symbolic() && strides[1].value == 1;
  std::int64_t kernel = 1;
  for (std::size_t d = 2; d < w->size(); ++d) kernel = std::max(kernel, (*w)[d]);
  std::int64_t stride = 1;
  if (const auto* s = positional(node, base + 3)) {
    for (const auto& item : s->items()) stride = std::max(stride, item.as_int());
  }
  const std::int64_t c_out = (*w)[0];
  const std::int64_t per_group = (*w)[1];
  std::string channels;
  if (per_group < c_in) {
    channels = per_group == 1 ? "dw" : "g";
  } else if (c_in <= 4) {
    channels = "cin<=4";
  } else {
    channels = std::min(c_in, c_out) < 64 ? "c<64" : "c>=64";
  }
  // The kernel's extent, once per spatial dimension: 3x3 for a 2-d convolution, 3x3x3 for a 3-d.
  const std::string extent = kernel == 1 ? "1" : kernel <= 3 ? "3" : "k";
  std::string window = extent;
  for (std::size_t d = 3; d < w->size(); ++d) window += "x" + extent;
  return direction + (channels_last ? "/cl/" : "/nchw/") + window + (stride > 1 ? "/s2/" : "/s1/") +
         channels + (tuned && !backward ? "/tuned" : "");
}

// Where each SDPA op keeps its attention mask and its causal flag (native_functions.yaml).
struct AttentionArgs {
  std::string_view op;
  int bias = -1;  // -1: the op takes no mask
  int causal = -1;
};
constexpr AttentionArgs kAttentionArgs[] = {
    {"_scaled_dot_product_flash_attention_backward", -1, 11},
    {"_scaled_dot_product_efficient_attention_backward", 4, 11},
    {"_scaled_dot_product_cudnn_attention_backward", 8, 14},
    {"_scaled_dot_product_flash_attention", -1, 4},
    {"_scaled_dot_product_efficient_attention", 3, 6},
    {"_scaled_dot_product_cudnn_attention", 3, 6},
    {"scaled_dot_product_attention", 3, 5},
};

// EAGER: an eager call, which runs the op on the model's own tensors; a compiled graph hands it
// inputs laid out for it (the aligned mask among them), and the engine's kernel takes 2.3x as long
// on the former at the same FLOPs, whatever the mask.
std::string attention_shape(const graph::Node& node, const graph::Graph& graph, bool eager) {
  const AttentionArgs* args = nullptr;
  for (const auto& a : kAttentionArgs) {
    if (node.target.find(a.op) != std::string::npos) {
      args = &a;
      break;
    }
  }
  if (!args) return "";
  const bool backward = node.target.find("backward") != std::string::npos;
  // The query: [batch, heads, length, head dim] (the backward's first argument is the output's
  // gradient, of the query's shape).
  const auto q = static_sizes(meta_of(graph, positional(node, 0)));
  if (!q || q->size() != 4) return "";
  std::string mask = "none";
  if (const auto* bias =
          args->bias >= 0 ? positional(node, static_cast<std::size_t>(args->bias)) : nullptr;
      bias && bias->is_node()) {
    mask = "bias";
  } else {
    const auto* causal = keyword(node, "is_causal");
    if (!causal && args->causal >= 0)
      causal = positional(node, static_cast<std::size_t>(args->causal));
    if (causal && causal->kind() == graph::Argument::Kind::boolean && causal->as_bool()) {
      mask = "causal";
    }
  }
  return std::string(backward ? "bwd/" : "fwd/") + (eager ? "eager/" : "") + mask +
         ((*q)[3] <= 64 ? "/d<=64" : "/d>64") + ((*q)[2] <= 256 ? "/l<=256" : "/l>256");
}

// Whether GROUP's first reduction reduces dims that are not the innermost of its input's logical
// sizes (a batch norm's statistics over N, H and W of [N, C, H, W]), as codegen's reduction_shape
// tells them. False where the sizes or the dims are not known, or the reduction reduces every dim.
bool reduces_leading_dims(const fusion::KernelGroup& group, const graph::Graph& graph) {
  for (const auto id : group.nodes) {
    const graph::Node& node = graph.node(id);
    if (ops::classify(node.target).op_class != ops::OpClass::reduction) continue;
    const auto sizes = static_sizes(meta_of(graph, positional(node, 0)));
    const graph::Argument* dims = positional(node, 1);
    if (!dims || dims->is_node()) dims = keyword(node, "dim");
    if (!sizes || !dims) return false;
    std::vector<bool> reduced(sizes->size(), false);
    const auto mark = [&](std::int64_t d) {
      const auto rank = static_cast<std::int64_t>(sizes->size());
      if (d < 0) d += rank;
      if (d >= 0 && d < rank) reduced[static_cast<std::size_t>(d)] = true;
    };
    if (dims->kind() == graph::Argument::Kind::integer) {
      mark(dims->as_int());
    } else {
      for (const auto& item : dims->items()) {
        if (item.kind() == graph::Argument::Kind::integer) mark(item.as_int());
      }
    }
    return !ops::reduces_trailing_dims(*sizes, reduced);
  }
  return false;
}

// A reduction's width (elements reduced per output row) decides how a row maps onto a block: a
// few elements per thread, a warp's worth, a block's; its rows how many blocks fill the device
// (fewer than 1024 rows: under 8 a streaming multiprocessor on an H100, where latency is not
// hidden). Fitted per width, a persistent reduction's time spans 2x at the same bytes without it.
// Last, how the reduced axis lies in memory: `inner` where a row's elements are contiguous,
// `outer` where they lie a row apart (a batch norm's statistics over N, H and W per channel),
// whose loads do not coalesce along the row (a batch norm backward's first split pass runs at a
// fifth of the bandwidth of an inner reduction of its bytes).
// Last, `thread` where the engine's kernel takes one thread a row (codegen's default_config: 4,096
// rows or more of a reduction whose reduced dims are not the innermost), so that each thread walks
// its row's elements one after another and the kernel reaches its bandwidth only with enough rows
// in flight (ResNet-18's batch norm backward: 1,024 bytes a row take 75 us over 6,272 or 12,544
// rows alike; a global average pool over the innermost H and W, a team a row, moves the same
// bytes a row in 3 us). max-autotune times other launches and keeps the fastest.
std::string reduction_shape(const fusion::KernelGroup& group, const graph::Graph& graph,
                            fusion::Mode mode) {
  const std::int64_t r = group.rnumel;
  const std::int64_t rows = group.numel;
  const char* width = r <= 16 ? "r<=16" : r <= 128 ? "r<=128" : r <= 1024 ? "r<=1024" : "r>1024";
  const char* count = rows < 1024 ? "rows<1k" : rows < 65536 ? "rows<64k" : "rows>=64k";
  const bool thread_per_row = mode != fusion::Mode::max_autotune &&
                              ops::one_thread_per_row(rows, !reduces_leading_dims(group, graph));
  return std::string(width) + "/" + count + (group.outer_reduction ? "/outer" : "/inner") +
         (thread_per_row ? "/thread" : "");
}

}  // namespace

std::string kernel_shape(const fusion::KernelGroup& group, const graph::Graph& graph,
                         cost::KernelClass kernel_class, fusion::Mode mode) {
  switch (kernel_class) {
    case cost::KernelClass::conv:
    case cost::KernelClass::grouped_conv:
      if (const auto* node = library_node(group, graph, ops::OpClass::conv)) {
        return conv_shape(*node, graph, mode == fusion::Mode::max_autotune);
      }
      break;
    case cost::KernelClass::attention:
      if (const auto* node = library_node(group, graph, ops::OpClass::attention)) {
        return attention_shape(*node, graph, group.kind == fusion::GroupKind::eager_op);
      }
      break;
    case cost::KernelClass::reduction:
    case cost::KernelClass::persistent_reduction:
      return reduction_shape(group, graph, mode);
    case cost::KernelClass::gemm:
      // max-autotune's generated template is another kernel than cuBLAS's at the same sizes:
      // priced by one curve, held-out fp32 templates were predicted at 0.65x of their time.
      return group.kind == fusion::GroupKind::template_gemm ? "template" : "library";
    default:
      break;
  }
  return "";
}

}  // namespace fxscope::report
