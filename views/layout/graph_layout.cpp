#include "layout/graph_layout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>

#include "layout/layered_layout.h"

namespace fxscope::views {
namespace {

// Graphviz works in points (1/72 inch) for positions and inches for node sizes.
constexpr double kPointsPerInch = 72.0;

std::mutex& graphviz_mutex() {
  static std::mutex mutex;
  return mutex;
}

// One context for the process: creating one reads the plugin configuration each time.
// Only touched under graphviz_mutex().
GVC_t* graphviz_context() {
  static GVC_t* context = gvContext();
  return context;
}

// cgraph takes char* for names and values it only reads (and copies).
char* c_str(std::string& s) {
  return s.data();
}

void set(void* object, const char* name, std::string value) {
  std::string key = name;
  agsafeset(object, c_str(key), c_str(value), c_str(value));
}

std::string inches(double pixels) {
  return std::to_string(pixels / kPointsPerInch);
}

// Graphviz's y grows upwards; the scene's grows downwards.
QPointF flipped(pointf p, double top) {
  return {p.x, top - p.y};
}

QRectF flipped(boxf box, double top) {
  return QRectF(flipped(pointf{box.LL.x, box.UR.y}, top), flipped(pointf{box.UR.x, box.LL.y}, top));
}

// The edge's bezier as one list: Graphviz may add an arrow end point beyond the curve, which
// the scene draws as the arrow head, so it is appended as a straight last segment.
std::vector<QPointF> edge_points(Agedge_t* edge, double top) {
  std::vector<QPointF> points;
  const splines* spl = ED_spl(edge);
  if (spl == nullptr || spl->size == 0) return points;
  const bezier& bz = spl->list[0];
  if (bz.sflag) points.push_back(flipped(bz.sp, top));
  for (int i = 0; i < bz.size; ++i) points.push_back(flipped(bz.list[i], top));
  if (bz.eflag) {
    const QPointF last = points.back();
    const QPointF end = flipped(bz.ep, top);
    points.insert(points.end(), {last, end, end});
  }
  if (bz.sflag && points.size() > 1) {
    const QPointF start = points.front();
    points.insert(points.begin() + 1, {start, points[1]});
  }
  return points;
}

GraphLayoutResult run_dot(const GraphLayoutInput& input) {
  std::string graph_name = "g";
  Agraph_t* graph = agopen(c_str(graph_name), Agdirected, nullptr);
  set(graph, "rankdir", "TB");
  set(graph, "nodesep", "0.25");
  set(graph, "ranksep", "0.35");
  std::vector<Agnode_t*> nodes;
  nodes.reserve(input.nodes.size());
  for (std::size_t i = 0; i < input.nodes.size(); ++i) {
    std::string name = "n" + std::to_string(i);
    Agnode_t* node = agnode(graph, c_str(name), 1);
    set(node, "shape", "box");
    set(node, "fixedsize", "true");
    set(node, "label", "");
    set(node, "width", inches(input.nodes[i].width));
    set(node, "height", inches(input.nodes[i].height));
    nodes.push_back(node);
  }
  std::vector<Agedge_t*> edges;
  edges.reserve(input.edges.size());
  for (const auto& e : input.edges) {
    edges.push_back(agedge(graph, nodes[e.from], nodes[e.to], nullptr, 1));
  }
  std::vector<Agraph_t*> clusters;
  for (std::size_t c = 0; c < input.clusters.size(); ++c) {
    std::string name = "cluster_" + std::to_string(c);
    Agraph_t* cluster = agsubg(graph, c_str(name), 1);
    set(cluster, "margin", "8");
    if (c < input.cluster_labels.size()) {
      // dot sizes the title band from the label's text and font size; the scene draws it.
      set(cluster, "label", input.cluster_labels[c]);
      set(cluster, "labeljust", "l");
      set(cluster, "fontsize", std::to_string(kClusterLabelPixels));
    }
    for (std::size_t member : input.clusters[c]) agsubnode(cluster, nodes[member], 1);
    clusters.push_back(cluster);
  }

  if (!input.bottom.empty()) {
    std::string name = "bottom";
    Agraph_t* sink = agsubg(graph, c_str(name), 1);
    set(sink, "rank", "sink");
    for (std::size_t member : input.bottom) agsubnode(sink, nodes[member], 1);
  }

  GVC_t* context = graphviz_context();
  GraphLayoutResult result;
  result.engine = "dot";
  if (gvLayout(context, graph, "dot") == 0) {
    const double top = GD_bb(graph).UR.y;
    result.bounds = flipped(GD_bb(graph), top);
    for (Agnode_t* node : nodes) {
      const QPointF centre = flipped(ND_coord(node), top);
      const double w = ND_width(node) * kPointsPerInch;
      const double h = ND_height(node) * kPointsPerInch;
      result.nodes.emplace_back(centre.x() - w / 2, centre.y() - h / 2, w, h);
    }
    for (Agedge_t* edge : edges) result.edges.push_back(edge_points(edge, top));
    for (Agraph_t* cluster : clusters) result.clusters.push_back(flipped(GD_bb(cluster), top));
    gvFreeLayout(context, graph);
  }
  agclose(graph);
  return result;
}

}  // namespace

GraphLayoutResult layout_with_dot(const GraphLayoutInput& input) {
  const auto start = std::chrono::steady_clock::now();
  GraphLayoutResult result;
  {
    const std::lock_guard lock(graphviz_mutex());
    result = run_dot(input);
  }
  // A failed layout (Graphviz printed why) still gives every node a place.
  if (result.nodes.size() != input.nodes.size()) result = layout_layered(input);
  result.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

GraphLayoutResult layout_graph(const GraphLayoutInput& input, std::size_t limit) {
  return input.nodes.size() > limit ? layout_layered(input) : layout_with_dot(input);
}

GraphLayoutInput::Node node_box(std::size_t chars) {
  constexpr double kCharWidth = 7.0;  // the canvas font's average advance
  constexpr double kMinNodeWidth = 70;
  constexpr double kMaxNodeWidth = 260;
  constexpr double kNodeHeight = 38;
  return {std::clamp(static_cast<double>(chars) * kCharWidth + 20, kMinNodeWidth, kMaxNodeWidth),
          kNodeHeight};
}

}  // namespace fxscope::views
