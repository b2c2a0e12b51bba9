#pragma once
// An FX graph as a flat vector of nodes addressed by NodeId (its index), with a name index.
// Users and inputs are derived from the arguments rather than stored twice. Parsed readable code
// is topologically ordered; a graph merged from Inductor fragments may not be.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fxscope/graph/node.h"

namespace fxscope::graph {

// A graph of one GraphModule, with the graphs of its nested submodules (higher-order ops).
class Graph {
 public:
  Graph() = default;
  explicit Graph(std::string name) : name_(std::move(name)) {}

  // "GraphModule", "<lambda>", "wrap_body_0": the class name the readable code printed.
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  const std::vector<Node>& nodes() const { return nodes_; }
  std::size_t size() const { return nodes_.size(); }
  bool empty() const { return nodes_.empty(); }
  const Node& node(NodeId id) const { return nodes_[id]; }
  // The name index refers to each node's name: replace a node only by one of the same name.
  Node& node(NodeId id) { return nodes_[id]; }

  // Makes room for COUNT nodes so that a parser that knows its input's size appends without
  // moving nodes or rehashing the name index.
  void reserve(std::size_t count);
  // Appends NODE; nullopt (graph unchanged) when its name is taken.
  std::optional<NodeId> add_node(Node node);
  std::optional<NodeId> find(std::string_view name) const;

  // The distinct nodes NODE's args and kwargs reference, in first-use order.
  std::vector<NodeId> inputs(NodeId id) const;
  // For each node, the nodes that reference it (one pass over all arguments).
  std::vector<std::vector<NodeId>> users() const;

  std::size_t count(OpKind op) const;
  // Number of call_function + call_method + call_module nodes.
  std::size_t op_count() const;

  const std::vector<Graph>& subgraphs() const { return subgraphs_; }
  void add_subgraph(Graph graph) { subgraphs_.push_back(std::move(graph)); }
  const Graph* find_subgraph(std::string_view name) const;

 private:
  // One slot of the name index: open addressing over a power-of-two table, linear probing.
  // The name itself is not copied; a hit compares against nodes_[id].name.
  struct Slot {
    NodeId id = kEmpty;
    std::uint32_t hash = 0;  // low bits of the name's hash, to skip most string compares
  };
  static constexpr NodeId kEmpty = static_cast<NodeId>(-1);

  std::size_t slot_of(std::string_view name, std::size_t hash) const;
  void rehash(std::size_t slot_count);

  std::string name_;
  std::vector<Node> nodes_;
  std::vector<Slot> index_;
  std::vector<Graph> subgraphs_;
};

}  // namespace fxscope::graph
