#include "fxscope/fusion/lowering_ops.h"

#include <set>
#include <vector>

#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {

bool plain_reduction(std::string_view target) {
  static const std::set<std::string_view> kPlain = {
      "sum", "mean",   "amax",   "amin", "max", "min",      "prod",      "any",
      "all", "argmax", "argmin", "var",  "std", "var_mean", "logsumexp", "prepare_softmax_online"};
  return kPlain.count(ops::op_base_name(target)) > 0;
}

std::size_t pool_window_positions(const graph::Node& node) {
  const std::string_view base = ops::op_base_name(node.target);
  const bool avg = base == "avg_pool2d";
  if (!avg && base != "max_pool2d_with_indices" && base != "_low_memory_max_pool_with_offsets") {
    return 0;
  }
  if (node.args.size() < 2) return 0;
  std::size_t window = 1;
  std::size_t dims = 0;
  for (const graph::Argument& k : node.args[1].items()) {
    if (k.kind() != graph::Argument::Kind::integer || k.as_int() < 1) return 0;
    window *= static_cast<std::size_t>(k.as_int());
    ++dims;
  }
  if (dims == 1) window *= window;
  if (dims == 0 || (avg && window > 25)) return 0;
  return window;
}

std::optional<std::size_t> indirect_indices_position(std::string_view target) {
  const std::string_view base = ops::op_base_name(target);
  if (base == "index" || base == "_unsafe_index" || base == "embedding") return 1;
  if (base == "gather" || base == "index_select") return 2;
  return std::nullopt;
}

bool needs_fixed_layout(std::string_view target, bool layout_opt) {
  const std::string_view base = ops::op_base_name(target);
  return base == "mm" || base == "_int_mm" || base == "convolution_backward" ||
         (base == "convolution" && !layout_opt);
}

bool pointless_view(const graph::Graph& graph, graph::NodeId id) {
  const graph::Node& node = graph.node(id);
  const std::string_view base = ops::op_base_name(node.target);
  static const std::set<std::string_view> kSkipping = {"expand", "view", "_unsafe_view", "reshape",
                                                       "squeeze"};
  if (!kSkipping.count(base) || node.args.empty() || !node.args[0].is_node() || !node.meta) {
    return false;
  }
  const graph::Node& input = graph.node(node.args[0].as_node());
  if (!input.meta || input.meta->is_sym_scalar() || input.meta->sizes != node.meta->sizes) {
    return false;
  }
  if (base != "expand") return true;
  // lowering.expand compares the sizes as written: a -1 among them makes an ExpandView.
  if (node.args.size() < 2) return false;
  const std::vector<graph::Argument>& sizes = node.args[1].items();
  if (sizes.size() != input.meta->sizes.size()) return false;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    const graph::Dim& dim = input.meta->sizes[d];
    const graph::Argument& s = sizes[d];
    if (s.kind() == graph::Argument::Kind::integer) {
      if (dim.is_symbolic() || s.as_int() != dim.value) return false;
    } else if (!s.is_node() || !graph.node(s.as_node()).meta ||
               graph.node(s.as_node()).meta->sym != dim.expr || !dim.is_symbolic()) {
      return false;
    }
  }
  return true;
}

}  // namespace fxscope::fusion
