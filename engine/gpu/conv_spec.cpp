#include "fxscope/gpu/conv_spec.h"

namespace fxscope::gpu {
namespace {

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

}  // namespace

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
    const auto& m = g.node(node).meta;
    if (!m || m->rank() < 3 || m->strides.size() != m->rank()) return false;
    for (std::size_t d = 0; d < m->rank(); ++d) {
      sizes.push_back(ops::eval_dim(m->sizes[d], hints));
      strides.push_back(ops::eval_dim(m->strides[d], hints));
    }
    return true;
  };
  if (!dims(s.x, s.x_sizes, s.x_strides) || !dims(s.w, s.w_sizes, s.w_strides) ||
      !dims(id, s.out_sizes, s.out_strides)) {
    return make_error(where + ": input, weight or output lacks a tensor annotation");
  }
  if (!contiguous(s.w_sizes, s.w_strides)) {
    return make_error(where + ": the weight is not contiguous (channels-last weights unsupported)");
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
  return s;
}

}  // namespace fxscope::gpu
