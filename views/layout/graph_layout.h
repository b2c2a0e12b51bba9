#pragma once
// Graph layout as plain values: the scene asks with a GraphLayoutInput (sizes, edges, clusters)
// and gets a GraphLayoutResult (boxes, edge points, cluster boxes) in scene coordinates, y down.
// Graphviz stays inside graph_layout.cpp; nothing of it outlives one call.

#include <QPointF>
#include <QRectF>
#include <cstddef>
#include <string>
#include <vector>

namespace fxscope::views {

// What to lay out. Node ids are indices into `nodes`; sizes are in scene pixels.
struct GraphLayoutInput {
  struct Node {
    double width = 120;
    double height = 40;
  };
  struct Edge {
    std::size_t from = 0;
    std::size_t to = 0;
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  // Each cluster lists its member nodes; a node belongs to at most one cluster.
  std::vector<std::vector<std::size_t>> clusters;
  // Optional, parallel to clusters: a title the layout keeps room for above the members.
  std::vector<std::string> cluster_labels;
  // Nodes placed below every other: an output whose edges are not drawn
  // (exporting::undrawn_edge_notes).
  std::vector<std::size_t> bottom;
};

// The scene draws cluster titles at this pixel size, in the band the layout leaves for them.
inline constexpr double kClusterLabelPixels = 10;

// Where everything went. `edges` and `clusters` are parallel to the input's.
struct GraphLayoutResult {
  std::vector<QRectF> nodes;
  // The edge's cubic bezier control points: start, then three points per segment; an edge
  // the layout dropped (a self loop) has none.
  std::vector<std::vector<QPointF>> edges;
  std::vector<QRectF> clusters;
  QRectF bounds;
  std::string engine;  // "dot" or "layered"
  double milliseconds = 0;
};

// Runs Graphviz dot. Graphviz's cgraph is not thread-safe, so calls from any thread are
// serialized behind one process-wide mutex. Slow on thousands of nodes: see layout_graph.
// The box of a node whose longer text line (op or shape) has CHARS characters, in the canvas
// font: what every view lays its graph out with.
GraphLayoutInput::Node node_box(std::size_t chars);

GraphLayoutResult layout_with_dot(const GraphLayoutInput& input);

// dot grows much faster than linearly: measured on one core here, resnet18 (475 nodes) 25-85 ms,
// gpt2_12layer (931) 0.4 s, llama_48layer (4,969) 35 s. Above this many nodes layout_graph uses
// the layered layout instead (llama_48layer: 2 ms), so a big graph opens within the 2 s budget.
inline constexpr std::size_t kDotNodeLimit = 1500;

// dot up to LIMIT nodes, the layered layout above it.
GraphLayoutResult layout_graph(const GraphLayoutInput& input, std::size_t limit = kDotNodeLimit);

}  // namespace fxscope::views
