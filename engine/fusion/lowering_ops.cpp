#include "fxscope/fusion/lowering_ops.h"

#include <set>

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

}  // namespace fxscope::fusion
