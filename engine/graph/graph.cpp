#include "fxscope/graph/graph.h"

#include <algorithm>
#include <array>

namespace fxscope::graph {

namespace {

constexpr std::array<std::string_view, 6> kOpNames = {"placeholder", "call_function", "call_method",
                                                      "call_module", "get_attr",      "output"};

}  // namespace

std::string_view to_string(OpKind op) {
  return kOpNames[static_cast<std::size_t>(op)];
}

std::optional<OpKind> op_kind_from_string(std::string_view text) {
  if (text == "PlaceHolder") return OpKind::placeholder;
  for (std::size_t i = 0; i < kOpNames.size(); ++i) {
    if (kOpNames[i] == text) return static_cast<OpKind>(i);
  }
  return std::nullopt;
}

std::optional<NodeId> Graph::add_node(Node node) {
  const auto id = static_cast<NodeId>(nodes_.size());
  if (!index_.try_emplace(node.name, id).second) return std::nullopt;
  nodes_.push_back(std::move(node));
  return id;
}

std::optional<NodeId> Graph::find(std::string_view name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<NodeId> Graph::inputs(NodeId id) const {
  std::vector<NodeId> out;
  const auto add = [&out](NodeId ref) {
    if (std::find(out.begin(), out.end(), ref) == out.end()) out.push_back(ref);
  };
  const Node& n = nodes_[id];
  for (const Argument& a : n.args) a.for_each_node(add);
  for (const KeywordArgument& kw : n.kwargs) kw.second.for_each_node(add);
  return out;
}

std::vector<std::vector<NodeId>> Graph::users() const {
  std::vector<std::vector<NodeId>> users(nodes_.size());
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    for (const NodeId input : inputs(id)) {
      if (input < users.size()) users[input].push_back(id);
    }
  }
  return users;
}

std::size_t Graph::count(OpKind op) const {
  return static_cast<std::size_t>(
      std::count_if(nodes_.begin(), nodes_.end(), [op](const Node& n) { return n.op == op; }));
}

std::size_t Graph::op_count() const {
  return static_cast<std::size_t>(
      std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.is_op(); }));
}

const Graph* Graph::find_subgraph(std::string_view name) const {
  for (const Graph& g : subgraphs_) {
    if (g.name() == name) return &g;
  }
  return nullptr;
}

}  // namespace fxscope::graph
