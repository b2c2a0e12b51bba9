#include "fxscope/gpu/conv_spec.h"

#include <algorithm>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/gpu/host_values.h"

namespace fxscope::gpu {
namespace {

constexpr int kMaxAlign = 16;

std::vector<int> int_list(const graph::Argument& a) {
  std::vector<int> out;
  for (const auto& x : a.items()) out.push_back(static_cast<int>(x.as_int()));
  return out;
}

bool contiguous(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides) {
  std::int64_t expect = 1;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] != 1 && strides[d] != expect) return false;
    expect *= sizes[d];
  }
  return true;
}

// Executable gives every buffer an aligned start (memory_plan, cudaMalloc); a view sits
// alias_of(view).offset elements further on.
int address_align(const graph::Graph& g, graph::NodeId node, const ops::SymbolHints& hints,
                  std::size_t element) {
  const auto alias = codegen::alias_of(g, node, hints);
  const auto bytes = static_cast<std::uint64_t>(alias ? alias->offset : 0) * element;
  int align = kMaxAlign;
  while (align > 1 && bytes % static_cast<std::uint64_t>(align) != 0) align /= 2;
  return align;
}

// NODE's sizes and strides (rank 3 or more: a convolution's tensors); false without them.
bool tensor_dims(const graph::Graph& g, graph::NodeId node, const ops::SymbolHints& hints,
                 std::vector<std::int64_t>& sizes, std::vector<std::int64_t>& strides) {
  const auto& m = g.node(node).meta;
  if (!m || m->rank() < 3 || m->strides.size() != m->rank()) return false;
  for (std::size_t d = 0; d < m->rank(); ++d) {
    sizes.push_back(ops::eval_dim(m->sizes[d], hints));
    strides.push_back(ops::eval_dim(m->strides[d], hints));
  }
  return true;
}

std::string joined(const auto& values, const char* sep) {
  std::string out;
  for (const auto& v : values) {
    if (!out.empty()) out += sep;
    out += std::to_string(v);
  }
  return out;
}

}  // namespace

WeightLayout weight_layout(const ConvSpec& s) {
  if (contiguous(s.w_sizes, s.w_strides)) return WeightLayout::contiguous;
  // Channels-last: the channel dim innermost, then the spatial dims, then the output channels.
  std::vector<std::int64_t> sizes{s.w_sizes[0]}, strides{s.w_strides[0]};
  for (std::size_t d = 2; d < s.w_sizes.size(); ++d) {
    sizes.push_back(s.w_sizes[d]);
    strides.push_back(s.w_strides[d]);
  }
  sizes.push_back(s.w_sizes[1]);
  strides.push_back(s.w_strides[1]);
  return contiguous(sizes, strides) ? WeightLayout::channels_last : WeightLayout::other;
}

bool is_conv_target(const std::string& t) {
  return t == "torch.ops.aten.convolution.default";
}

Result<ConvSpec> describe_conv(const graph::Graph& g, graph::NodeId id,
                               const ops::SymbolHints& hints) {
  const graph::Node& n = g.node(id);
  const std::string where = "node " + n.name + " (aten.convolution)";
  if (n.args.size() < 9 || !n.args[0].is_node() || !n.args[1].is_node()) {
    return make_error(where +
                      ": expected (input, weight, bias, stride, padding, dilation, "
                      "transposed, output_padding, groups)");
  }
  if (n.args[6].as_bool()) return make_error(where + ": transposed convolution is not supported");
  ConvSpec s;
  s.x = n.args[0].as_node();
  s.w = n.args[1].as_node();
  s.out = id;
  if (n.args[2].is_node()) s.bias = n.args[2].as_node();
  const auto dims = [&](graph::NodeId node, std::vector<std::int64_t>& sizes,
                        std::vector<std::int64_t>& strides) {
    return tensor_dims(g, node, hints, sizes, strides);
  };
  if (!dims(s.x, s.x_sizes, s.x_strides) || !dims(s.w, s.w_sizes, s.w_strides) ||
      !dims(id, s.out_sizes, s.out_strides)) {
    return make_error(where + ": input, weight or output lacks a tensor annotation");
  }
  s.dtype = g.node(id).meta->dtype;
  s.stride = int_list(n.args[3]);
  s.padding = int_list(n.args[4]);
  s.dilation = int_list(n.args[5]);
  s.groups = static_cast<int>(n.args[8].as_int());
  const std::size_t spatial = s.x_sizes.size() - 2;
  if (s.stride.size() != spatial || s.padding.size() != spatial || s.dilation.size() != spatial) {
    return make_error(where + ": stride, padding and dilation must name every spatial dim");
  }
  const std::size_t element = std::max<std::size_t>(element_bytes(s.dtype), 1);
  s.x_align = address_align(g, s.x, hints, element);
  s.w_align = address_align(g, s.w, hints, element);
  s.out_align = address_align(g, id, hints, element);
  if (s.bias) s.bias_align = address_align(g, *s.bias, hints, element);
  return s;
}

bool is_conv_backward_target(const std::string& t) {
  return t == "torch.ops.aten.convolution_backward.default";
}

Result<ConvBackwardSpec> describe_conv_backward(const graph::Graph& g, graph::NodeId id,
                                                const ops::SymbolHints& hints) {
  const graph::Node& n = g.node(id);
  const std::string where = "node " + n.name + " (aten.convolution_backward)";
  if (n.args.size() < 11 || !n.args[0].is_node() || !n.args[1].is_node() || !n.args[2].is_node()) {
    return make_error(where +
                      ": expected (grad_output, input, weight, bias_sizes, stride, padding, "
                      "dilation, transposed, output_padding, groups, output_mask)");
  }
  if (n.args[7].as_bool()) return make_error(where + ": transposed convolution is not supported");
  ConvBackwardSpec b;
  ConvSpec& s = b.conv;
  s.out = n.args[0].as_node();
  s.x = n.args[1].as_node();
  s.w = n.args[2].as_node();
  const auto dims = [&](graph::NodeId node, std::vector<std::int64_t>& sizes,
                        std::vector<std::int64_t>& strides) {
    return tensor_dims(g, node, hints, sizes, strides);
  };
  if (!dims(s.x, s.x_sizes, s.x_strides) || !dims(s.w, s.w_sizes, s.w_strides) ||
      !dims(s.out, s.out_sizes, s.out_strides)) {
    return make_error(where + ": the output's gradient, input or weight lacks a tensor annotation");
  }
  s.dtype = g.node(s.out).meta->dtype;
  s.stride = int_list(n.args[4]);
  s.padding = int_list(n.args[5]);
  s.dilation = int_list(n.args[6]);
  s.groups = static_cast<int>(n.args[9].as_int());
  const std::size_t spatial = s.x_sizes.size() - 2;
  if (s.stride.size() != spatial || s.padding.size() != spatial || s.dilation.size() != spatial) {
    return make_error(where + ": stride, padding and dilation must name every spatial dim");
  }
  // The tuple's elements the graph takes; output_mask says which were computed at all.
  const auto mask = n.args[10].items();
  for (graph::NodeId u = id + 1; u < g.size(); ++u) {
    const graph::Node& un = g.node(u);
    if (un.target != "operator.getitem" || un.args.size() != 2 || !un.args[0].is_node() ||
        un.args[0].as_node() != id) {
      continue;
    }
    const std::int64_t k = un.args[1].as_int();
    if (k < 0 || k > 2) continue;
    const auto at = static_cast<std::size_t>(k);
    if (at < mask.size() && !mask[at].as_bool()) continue;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides;
    if (!dims(u, sizes, strides) && k != 2) {
      return make_error(where + ": gradient " + un.name + " lacks a tensor annotation");
    }
    if (k == 0) {
      if (sizes != s.x_sizes)
        return make_error(where + ": " + un.name + " is not the input's size");
      b.grad_x = u;
      b.grad_x_strides = strides;
    } else if (k == 1) {
      if (sizes != s.w_sizes)
        return make_error(where + ": " + un.name + " is not the weight's size");
      b.grad_w = u;
      b.grad_w_strides = strides;
    } else {
      b.grad_bias = u;
    }
  }
  const std::size_t element = std::max<std::size_t>(element_bytes(s.dtype), 1);
  s.x_align = address_align(g, s.x, hints, element);
  s.w_align = address_align(g, s.w, hints, element);
  s.out_align = address_align(g, s.out, hints, element);
  return b;
}

ConvSpec with_two_spatial_dims(ConvSpec s) {
  if (s.x_sizes.size() != 3) return s;
  const auto widen = [](std::vector<std::int64_t>& sizes, std::vector<std::int64_t>& strides) {
    sizes.insert(sizes.begin() + 2, 1);
    strides.insert(strides.begin() + 2, strides[2] * sizes[3]);
  };
  widen(s.x_sizes, s.x_strides);
  widen(s.w_sizes, s.w_strides);
  widen(s.out_sizes, s.out_strides);
  s.stride.insert(s.stride.begin(), 1);
  s.padding.insert(s.padding.begin(), 0);
  s.dilation.insert(s.dilation.begin(), 1);
  return s;
}

std::string conv_shape_text(const ConvSpec& s) {
  return s.dtype + " x " + joined(s.x_sizes, "x") + " w " + joined(s.w_sizes, "x") + " -> " +
         joined(s.out_sizes, "x") + " stride " + joined(s.stride, ",") + " pad " +
         joined(s.padding, ",") + " dilation " + joined(s.dilation, ",") + " groups " +
         std::to_string(s.groups) + (s.bias ? " bias" : "");
}

}  // namespace fxscope::gpu
