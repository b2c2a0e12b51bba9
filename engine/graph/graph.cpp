#include "fxscope/graph/graph.h"

#include <algorithm>
#include <array>
#include <functional>

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

void Graph::reserve(std::size_t count) {
  nodes_.reserve(count);
  if (count * 2 > index_.size()) rehash(count * 2);
}

// The slot holding NAME, or the empty slot where it would go.
std::size_t Graph::slot_of(std::string_view name, std::size_t hash) const {
  const std::size_t mask = index_.size() - 1;
  const auto tag = static_cast<std::uint32_t>(hash);
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = index_[i];
    if (slot.id == kEmpty || (slot.hash == tag && nodes_[slot.id].name == name)) return i;
  }
}

void Graph::rehash(std::size_t slot_count) {
  std::size_t size = 16;
  while (size < slot_count) size *= 2;
  index_.assign(size, Slot{});
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    const std::size_t hash = std::hash<std::string_view>{}(nodes_[id].name);
    index_[slot_of(nodes_[id].name, hash)] = Slot{id, static_cast<std::uint32_t>(hash)};
  }
}

std::optional<NodeId> Graph::add_node(Node node) {
  const auto id = static_cast<NodeId>(nodes_.size());
  // Keep the table at most half full so that probes stay short.
  if ((nodes_.size() + 1) * 2 > index_.size()) rehash((nodes_.size() + 1) * 4);
  const std::size_t hash = std::hash<std::string_view>{}(node.name);
  const std::size_t slot = slot_of(node.name, hash);
  if (index_[slot].id != kEmpty) return std::nullopt;
  index_[slot] = Slot{id, static_cast<std::uint32_t>(hash)};
  nodes_.push_back(std::move(node));
  return id;
}

std::optional<NodeId> Graph::find(std::string_view name) const {
  if (index_.empty()) return std::nullopt;
  const std::size_t slot = slot_of(name, std::hash<std::string_view>{}(name));
  if (index_[slot].id == kEmpty) return std::nullopt;
  return index_[slot].id;
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
