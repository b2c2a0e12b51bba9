#include "view_forward.h"

#include <string_view>
#include <vector>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::codegen {
namespace {

using graph::NodeId;

bool carries_elements(std::string_view base) {
  return base == "permute" || base == "transpose" || base == "t" || base == "clone" ||
         base == "convert_element_type" || base == "_to_copy" || base == "view" ||
         base == "reshape" || base == "_unsafe_view" || base == "squeeze" || base == "unsqueeze" ||
         base == "alias" || base == "contiguous";
}

// IDX carried through view-like NODE, from its input's index to its own (FORWARD) or back:
// nullopt where the shapes are unknown or do not fit the index.
std::optional<Index> carry_index(const graph::Graph& g, const graph::Node& node, Index idx,
                                 bool forward, const ops::SymbolHints& hints) {
  const auto in = shape_of(g.node(node.args[0].as_node()), hints);
  const auto out = shape_of(node, hints);
  if (!in || !out || (forward ? in : out)->sizes.size() != idx.dims.size()) return std::nullopt;
  const std::string_view base = ops::op_base_name(node.target);
  if (base == "permute") {
    const std::vector<std::int64_t> perm = ints_at(node, 1);
    if (perm.size() != in->sizes.size()) return std::nullopt;
    Index next;
    next.dims.resize(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) {
      const auto p = static_cast<std::size_t>(wrap_dim(perm[i], in->sizes.size()));
      if (forward) {
        next.dims[i] = idx.dims[p];
      } else {
        next.dims[p] = idx.dims[i];
      }
    }
    return next;
  }
  if (base == "transpose" || base == "t") {
    const std::size_t rank = idx.dims.size();
    const auto d0 = static_cast<std::size_t>(wrap_dim(int_at(node, 1, 0), rank));
    const auto d1 = static_cast<std::size_t>(wrap_dim(int_at(node, 2, 1), rank));
    idx.linear.clear();
    if (rank >= 2 && d0 < rank && d1 < rank) std::swap(idx.dims[d0], idx.dims[d1]);
    return idx;
  }
  if (out->sizes != in->sizes) {
    // A reshape in any of its spellings keeps the row-major order of the elements.
    return forward ? delinearize(linearize(idx, in->sizes), out->sizes)
                   : delinearize(linearize(idx, out->sizes), in->sizes);
  }
  return idx;
}

}  // namespace

std::optional<Index> index_through_views(
    const graph::Graph& g, NodeId to, const ops::SymbolHints& hints,
    const std::function<std::optional<Index>(NodeId)>& base_index) {
  std::vector<NodeId> chain;  // from TO down to the base, TO first
  bool permutes = false;
  NodeId n = to;
  while (true) {
    const graph::Node& node = g.node(n);
    if (!node.is_op() || node.args.empty() || !node.args[0].is_node()) break;
    const std::string_view base = ops::op_base_name(node.target);
    if (!carries_elements(base)) break;
    permutes = permutes || base == "permute" || base == "transpose" || base == "t";
    chain.push_back(n);
    n = node.args[0].as_node();
  }
  if (!permutes) return std::nullopt;
  const std::optional<Index> at_base = base_index(n);
  if (!at_base) return std::nullopt;
  Index idx = *at_base;
  for (std::size_t k = chain.size(); k-- > 0;) {
    auto next = carry_index(g, g.node(chain[k]), std::move(idx), true, hints);
    if (!next) return std::nullopt;
    idx = std::move(*next);
  }
  if (const auto out = shape_of(g.node(to), hints); !out || out->sizes.size() != idx.dims.size()) {
    return std::nullopt;
  }
  return idx;
}

std::optional<Index> index_of_view_base(const graph::Graph& g, NodeId from, const Index& from_index,
                                        NodeId to, const ops::SymbolHints& hints) {
  Index idx = from_index;
  for (NodeId n = from; n != to;) {
    const graph::Node& node = g.node(n);
    if (!node.is_op() || node.args.empty() || !node.args[0].is_node()) return std::nullopt;
    const std::string_view base = ops::op_base_name(node.target);
    if (!carries_elements(base)) return std::nullopt;
    auto next = carry_index(g, node, std::move(idx), false, hints);
    if (!next) return std::nullopt;
    idx = std::move(*next);
    n = node.args[0].as_node();
  }
  if (const auto at = shape_of(g.node(to), hints); !at || at->sizes.size() != idx.dims.size()) {
    return std::nullopt;
  }
  return idx;
}

}  // namespace fxscope::codegen
