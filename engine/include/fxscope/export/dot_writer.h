#pragma once
// Annotated Graphviz DOT: one cluster per fusion group (kernel name, kind, predicted time), nodes
// labelled with name, op and shape, and the unit's graph breaks and guards in the graph's label.

#include <string>
#include <vector>

#include "fxscope/graph/document.h"
#include "fxscope/graph/graph.h"

namespace fxscope::exporting {

// One kernel group drawn as a cluster.
struct DotGroup {
  std::string name;  // "triton_poi_fused_add_0"
  std::string kind;  // fusion::to_string(GroupKind): "pointwise", "extern" ...
  double predicted_us = 0;
};

// One graph to draw: the nodes' groups (-1: none) and the lines of its title.
struct DotGraph {
  std::string title;               // "[0/0] post_grad, mode default"
  std::vector<std::string> notes;  // graph breaks, recompiles, totals
  const graph::Graph* graph = nullptr;
  std::vector<int> group_of;  // per node; may be shorter than the graph (no group)
  std::vector<DotGroup> groups;
};

// One digraph; several graphs (forward and backward) become one cluster each.
std::string write_dot(const std::vector<DotGraph>& graphs, const std::string& title = {});

// The graphs of DOC worth drawing (its post-grad graphs, else all), with the groups that its
// "kernel" / "kernel_kind" / "fusion_group" / "predicted_us" annotations give. Points into DOC.
std::vector<DotGraph> dot_graphs(const graph::Document& doc);

// One graph of a document with the groups its annotations give. Points into ENTRY.
DotGraph document_graph(const graph::DocumentGraph& entry);

// The DOT of DOC's graphs with their groups (write_dot of dot_graphs).
std::string document_dot(const graph::Document& doc);

// Per node of GRAPH, the line a drawing puts in its box in place of edges it leaves out, or ""
// where it draws them all. An output returning more than kMostDrawnEdges values is drawn below
// everything else without the edges into it ("returns 109 values"): a training step's forward
// returns every activation its backward saves, each an edge from where it is computed down to the
// output, and with them dot lays ResNet-18's forward out as one row 74,000 points wide and takes
// over a minute on EfficientNet-B0's. A symbolic size read by more than kMostDrawnEdges nodes is
// drawn without the edges out of it ("read by 28 nodes"): a dynamic-shape graph's sizes feed
// every view and reshape, and their edges from the top widen GPT-2's training forward 3.7 times.
inline constexpr std::size_t kMostDrawnEdges = 8;
std::vector<std::string> undrawn_edge_notes(const graph::Graph& graph);

// Whether a drawing with NOTES (undrawn_edge_notes) draws GRAPH's edge FROM -> TO.
bool draws_edge(const graph::Graph& graph, const std::vector<std::string>& notes,
                graph::NodeId from, graph::NodeId to);

// "name\nop\nshape" text of a node, as the DOT label and the app's canvas show it.
std::string node_op_text(const graph::Node& node);
std::string node_shape_text(const graph::Node& node);

}  // namespace fxscope::exporting
