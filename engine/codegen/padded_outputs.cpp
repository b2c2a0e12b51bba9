// Padded copies stored apart from a reduction's rows (padded_outputs.h).

#include "fxscope/codegen/padded_outputs.h"

#include <algorithm>
#include <set>
#include <vector>

#include "fxscope/ops/op_registry.h"

namespace fxscope::codegen {
namespace {

bool is_pad(const graph::Node& n) {
  return n.is_op() && ops::op_base_name(n.target) == "constant_pad_nd";
}

void add_unique(std::vector<graph::NodeId>& v, graph::NodeId n) {
  if (std::find(v.begin(), v.end(), n) == v.end()) v.push_back(n);
}

}  // namespace

std::optional<std::pair<fusion::KernelGroup, fusion::KernelGroup>> split_padded_outputs(
    const graph::Graph& g, const fusion::KernelGroup& group) {
  const std::set<graph::NodeId> members(group.nodes.begin(), group.nodes.end());
  // Readers of each member within the group.
  const auto read_in_group = [&](graph::NodeId n, const std::set<graph::NodeId>& besides) {
    return std::any_of(group.nodes.begin(), group.nodes.end(), [&](graph::NodeId u) {
      if (besides.count(u)) return false;
      const auto in = g.inputs(u);
      return std::find(in.begin(), in.end(), n) != in.end();
    });
  };
  fusion::KernelGroup pads = group;
  pads.name = group.name + "_pad";
  pads.kind = fusion::GroupKind::pointwise;
  pads.nodes.clear();
  pads.inputs.clear();
  pads.outputs.clear();
  pads.rnumel = 1;
  fusion::KernelGroup rest = group;
  std::set<graph::NodeId> moved;
  for (const graph::NodeId w : group.outputs) {
    if (!is_pad(g.node(w)) || g.inputs(w).empty()) continue;
    // The pad and the views down to the value it pads.
    std::vector<graph::NodeId> tail = {w};
    graph::NodeId from = g.inputs(w).front();
    while (members.count(from) && ops::is_view_op(g.node(from)) && g.inputs(from).size() == 1) {
      tail.push_back(from);
      from = g.inputs(from).front();
    }
    const std::set<graph::NodeId> tail_set(tail.begin(), tail.end());
    // A view something else in the group reads stays there too (it is no buffer of its own).
    if (std::any_of(tail.begin() + 1, tail.end(),
                    [&](graph::NodeId v) { return read_in_group(v, tail_set); })) {
      continue;
    }
    moved.insert(tail.begin(), tail.end());
    for (auto it = tail.rbegin(); it != tail.rend(); ++it) pads.nodes.push_back(*it);
    add_unique(pads.inputs, from);
    pads.outputs.push_back(w);
    if (members.count(from)) add_unique(rest.outputs, from);
  }
  if (pads.outputs.empty()) return std::nullopt;
  std::erase_if(rest.nodes, [&](graph::NodeId n) { return moved.count(n) > 0; });
  std::erase_if(rest.outputs, [&](graph::NodeId n) { return moved.count(n) > 0; });
  std::sort(pads.nodes.begin(), pads.nodes.end());
  return std::make_pair(std::move(rest), std::move(pads));
}

}  // namespace fxscope::codegen
