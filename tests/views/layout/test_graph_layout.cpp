// Graphviz's output converted into plain structs, on a real post-grad graph: every node placed,
// every edge with bezier points, every cluster box around its members; and the layered layout
// used for big graphs keeps the same promises.
#include <QImage>
#include <QPainter>
#include <QRectF>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "canvas/graph_canvas.h"
#include "canvas/graph_scene.h"
#include "fxscope/export/dot_writer.h"
#include "layout/canvas_graph.h"
#include "layout/graph_layout.h"
#include "layout/layered_layout.h"
#include "views_test_support.h"

namespace fxscope::test {
namespace {

using views::CanvasGraph;
using views::CanvasRequest;
using views::GraphLayoutResult;

void check_layout(const CanvasGraph& g, const GraphLayoutResult& layout) {
  REQUIRE(layout.nodes.size() == g.graph.size());
  for (const QRectF& box : layout.nodes) {
    CHECK(box.width() > 0);
    CHECK(box.height() > 0);
    CHECK(layout.bounds.contains(box));
  }
  REQUIRE(layout.edges.size() == g.edges.size());
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const auto& points = layout.edges[e];
    REQUIRE(points.size() >= 4);
    CHECK((points.size() - 1) % 3 == 0);
    // Edges run downwards, from the producer's box to the consumer's (y grows down).
    CHECK(points.front().y() < points.back().y());
    CHECK(layout.nodes[g.edges[e].to].adjusted(-2, -2, 2, 2).contains(points.back()));
  }
  REQUIRE(layout.clusters.size() == g.groups.size());
  for (std::size_t c = 0; c < g.groups.size(); ++c) {
    for (graph::NodeId member : g.groups[c].nodes) {
      CHECK(layout.clusters[c].contains(layout.nodes[member]));
    }
  }
}

}  // namespace

TEST_CASE("dot lays out residual_mlp's post-grad graph into plain structs", "[views][layout]") {
  const auto log = load_sample("residual_mlp");
  const auto g = views::build_canvas_graph(*log, CanvasRequest{});
  REQUIRE(g->problem.empty());
  CHECK(g->graph.size() > 10);
  CHECK(g->groups.size() == 3);
  CHECK(g->layout.engine == "dot");
  check_layout(*g, g->layout);
  // The inputs are above the output: the y axis was flipped from Graphviz's.
  const auto output = g->graph.find("output");
  REQUIRE(output);
  CHECK(g->layout.nodes[0].top() < g->layout.nodes[*output].top());
}

TEST_CASE("a unit with only a Dynamo graph says where it is drawn", "[views][layout]") {
  // tlparse's comp_metrics.log: its backend logged no ATen graph, only Dynamo's.
  const auto log = load_sample("public/tlparse/inputs/comp_metrics.log.zst");
  const auto aten = views::build_canvas_graph(*log, CanvasRequest{});
  CHECK(aten->problem.find("has no ATen graph in the log") != std::string::npos);
  CHECK(aten->problem.find("Level > Dynamo graph") != std::string::npos);
  CanvasRequest dynamo;
  dynamo.level = views::GraphLevel::kDynamo;
  const auto drawn = views::build_canvas_graph(*log, dynamo);
  CHECK(drawn->problem.empty());
  CHECK(drawn->graph.op_count() == 1);
}

TEST_CASE("the layered layout keeps the same promises", "[views][layout]") {
  const auto log = load_sample("residual_mlp");
  // A limit of 0 forces the layered layout on a small graph.
  const auto g = views::build_canvas_graph(*log, CanvasRequest{}, 0);
  CHECK(g->layout.engine == "layered");
  check_layout(*g, g->layout);
}

TEST_CASE("a training step's forward is drawn top to bottom, its saved tensors' edges left out",
          "[views][layout]") {
  if (!std::filesystem::exists(sample("corpus/tv_resnet18_train_bf16"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // The forward returns 109 values (the activations its backward saves). Drawn with an edge
  // each, and with the var_mean getitems outside their kernels' clusters, dot turns 45 edges
  // upwards and lays the 203-node chain out as one row 31,000 points wide and 1,900 high.
  const auto log = load_sample("corpus/tv_resnet18_train_bf16");
  const auto g = views::build_canvas_graph(*log, CanvasRequest{});
  REQUIRE(g->problem.empty());
  REQUIRE(g->layout.engine == "dot");
  check_layout(*g, g->layout);  // every drawn edge runs downwards
  const auto output = g->graph.find("output");
  REQUIRE(output);
  const std::size_t returned = g->graph.inputs(*output).size();
  CHECK(returned > exporting::kMostDrawnEdges);
  CHECK(g->shape_text[*output] == "returns " + std::to_string(returned) + " values");
  for (const auto& e : g->edges) CHECK(e.to != *output);
  // The output on the last rank: nothing below it.
  for (graph::NodeId id = 0; id < g->graph.size(); ++id) {
    CHECK(g->layout.nodes[id].top() <= g->layout.nodes[*output].top());
  }
  CHECK(g->layout.bounds.height() > g->layout.bounds.width() / 2);
  // The op, not its overload: var_mean.correction and sum.dim_IntList read var_mean and sum.
  const auto var_mean = g->graph.find("var_mean");
  REQUIRE(var_mean);
  CHECK(g->op_text[*var_mean] == "var_mean");
}

TEST_CASE("dot and the layered layout on an empty input", "[views][layout]") {
  const views::GraphLayoutInput empty;
  CHECK(views::layout_with_dot(empty).nodes.empty());
  CHECK(views::layout_layered(empty).nodes.empty());
}

}  // namespace fxscope::test

namespace fxscope::test {

// Hidden ([.]): prints how long planning, dot and the layered layout take on the big samples,
// the figures behind kDotNodeLimit. `test_views "[bench]"`.
TEST_CASE("layout times of the samples", "[.][bench]") {
  for (const char* name : {"residual_mlp", "resnet18", "llama_48layer"}) {
    const auto log = load_sample(name);
    const auto layered = views::build_canvas_graph(*log, CanvasRequest{}, 0);
    std::printf("%s: %zu nodes, %zu groups, plan %.0f ms, layered %.0f ms\n", name,
                layered->graph.size(), layered->groups.size(), layered->plan_ms,
                layered->layout.milliseconds);
    std::fflush(stdout);
    const auto dot = views::build_canvas_graph(*log, CanvasRequest{}, SIZE_MAX);
    std::printf("%s: dot %.0f ms\n", name, dot->layout.milliseconds);
    std::fflush(stdout);
  }
}

}  // namespace fxscope::test

namespace fxscope::test {

// Hidden ([.]): frame times of the canvas on llama_48layer's 4,969 nodes, fitted (every node a
// plain rectangle) and at a readable zoom, drawn offscreen into an image of a window's size.
TEST_CASE("canvas frame times on llama_48layer", "[.][bench]") {
  qt_app();
  const auto log = load_sample("llama_48layer");
  views::GraphScene scene;
  const auto start = std::chrono::steady_clock::now();
  scene.show_graph(views::build_canvas_graph(*log, CanvasRequest{}));
  const auto built = std::chrono::steady_clock::now();
  views::GraphCanvas canvas(&scene);
  canvas.resize(900, 600);
  QImage image(900, 600, QImage::Format_ARGB32_Premultiplied);
  const auto frame_ms = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    QPainter painter(&image);
    canvas.render(&painter);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  canvas.fit_to_view();
  const double fitted = frame_ms();
  canvas.show_start();
  const double readable = frame_ms();
  std::printf("llama_48layer: plan+layout+scene %.0f ms; frame fitted %.1f ms, readable %.1f ms\n",
              std::chrono::duration<double, std::milli>(built - start).count(), fitted, readable);
}

}  // namespace fxscope::test
