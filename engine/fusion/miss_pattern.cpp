// Keys for missed Inductor kernels: shape, deciding ops, and the closest group's relation.

#include "fxscope/fusion/miss_pattern.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <string_view>
#include <vector>

#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {
namespace {

using graph::NodeId;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The ops whose lowering decides where Inductor cuts kernels, by the tag they give a key.
std::string_view tag_of(std::string_view base) {
  if (base == "cat") return "cat";
  if (base.find("scatter") != std::string_view::npos || base == "index_put" ||
      base == "index_add") {
    return "scatter";
  }
  if (base == "embedding" || base == "gather" || base == "index" || base == "index_select") {
    return "indirect";
  }
  if (base == "convert_element_type" || base == "_to_copy") return "convert";
  if (base == "constant_pad_nd") return "pad";
  if (ends_with(base, "_backward")) return base;
  return {};
}

// The kernel's shape: its reductions, and whether pointwise work runs before (prologue) or after
// (epilogue, reading a reduction's result) them.
std::string shape_of(const graph::Graph& graph, const std::vector<NodeId>& members) {
  const auto member = [&](NodeId id) {
    return std::binary_search(members.begin(), members.end(), id);
  };
  std::set<NodeId> after_reduction;
  std::size_t reductions = 0;
  bool prologue = false;
  bool epilogue = false;
  for (const NodeId id : members) {
    const graph::Node& node = graph.node(id);
    if (!node.is_op()) continue;
    const ops::Lowering lowering = ops::classify(node.target).lowering;
    const std::vector<NodeId> inputs = graph.inputs(id);
    const bool downstream = std::any_of(inputs.begin(), inputs.end(), [&](NodeId a) {
      return member(a) && after_reduction.count(a) > 0;
    });
    if (ops::reduces(lowering) || lowering == ops::Lowering::scan) {
      ++reductions;
      after_reduction.insert(id);
    } else if (lowering == ops::Lowering::pointwise) {
      (downstream ? epilogue : prologue) = true;
      if (downstream) after_reduction.insert(id);
    } else if (downstream) {
      after_reduction.insert(id);  // a view or getitem of a reduction's result
    }
  }
  if (reductions == 0) return "pointwise";
  std::string shape = reductions == 1 ? "reduction" : std::to_string(reductions) + " reductions";
  if (prologue) shape += " + prologue";
  if (epilogue) shape += " + epilogue";
  return shape;
}

std::string relation(const KernelGroup& theirs, const KernelGroup* closest) {
  if (closest == nullptr) return "fxscope has none";
  std::vector<NodeId> common;
  std::set_intersection(theirs.nodes.begin(), theirs.nodes.end(), closest->nodes.begin(),
                        closest->nodes.end(), std::back_inserter(common));
  if (common.empty()) return "fxscope has none";
  if (common.size() == theirs.nodes.size()) return "fxscope fuses more";
  if (common.size() == closest->nodes.size()) return "fxscope fuses less";
  return "fxscope overlaps";
}

}  // namespace

std::string miss_pattern(const graph::Graph& graph, const KernelGroup& theirs,
                         const KernelGroup* closest) {
  std::set<std::string_view> tags;
  for (const NodeId id : theirs.nodes) {
    const graph::Node& node = graph.node(id);
    if (!node.is_op()) continue;
    const std::string_view tag = tag_of(ops::op_base_name(node.target));
    if (!tag.empty()) tags.insert(tag);
  }
  std::string key = shape_of(graph, theirs.nodes);
  if (!tags.empty()) {
    key += " [";
    for (auto t = tags.begin(); t != tags.end(); ++t) {
      key += (t == tags.begin() ? "" : ", ") + std::string(*t);
    }
    key += "]";
  }
  return key + " / " + relation(theirs, closest);
}

}  // namespace fxscope::fusion
