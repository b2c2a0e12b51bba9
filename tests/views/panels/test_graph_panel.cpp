// The graph canvas in the window, offscreen: a unit's ATen graph with its kernel groups, the
// level, groups and mode switches re-planning off the UI thread, search, selection and the
// graph-break banner.
#include <QDockWidget>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

#include "canvas/graph_canvas.h"
#include "canvas/graph_scene.h"
#include "context/view_context.h"
#include "gpu_run/gpu_run_controller.h"
#include "panels/graph_panel.h"
#include "views_test_support.h"
#include "window/main_window.h"
#include "window_test_support.h"

namespace fxscope::test {
namespace {

using views::GraphPanel;
using views::MainWindow;

// Runs CHANGE and waits for the graph it asks for.
template <typename Change>
void replan(GraphPanel& panel, Change change) {
  QSignalSpy shown(&panel, &GraphPanel::graph_shown);
  change();
  CHECK(panel.busy());  // the work runs on the pool, not inside the call
  REQUIRE(shown.wait(kTimeoutMs));
  CHECK_FALSE(panel.busy());
}

std::size_t group_count(const GraphPanel& panel) {
  REQUIRE(panel.shown());
  return panel.shown()->groups.size();
}

}  // namespace

TEST_CASE("The Graph tab shows residual_mlp's ATen graph with fxscope's and Inductor's groups",
          "[views][canvas]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp");
  auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("centre_tabs"));
  REQUIRE(tabs != nullptr);
  CHECK(tabs->currentWidget() == &window.graph_panel());
  GraphPanel& panel = window.graph_panel();
  REQUIRE(panel.shown()->problem.empty());
  CHECK(panel.shown()->graph.size() > 10);
  CHECK(group_count(panel) == 3);
  CHECK(std::size_t(panel.scene().items().size()) > panel.shown()->graph.size());

  replan(panel, [&] { panel.context().set_groups(views::GroupSource::kInductor); });
  CHECK(group_count(panel) == 3);

  replan(panel, [&] { panel.context().set_groups(views::GroupSource::kFxscope); });
  replan(panel, [&] { panel.context().set_mode(fusion::Mode::eager); });
  // Eager launches one kernel per ATen op: more groups than the fused modes.
  CHECK(group_count(panel) > 3);

  replan(panel, [&] { panel.context().set_mode(fusion::Mode::default_mode); });
  replan(panel, [&] { panel.context().set_level(views::GraphLevel::kDynamo); });
  CHECK(panel.shown()->request.level == views::GraphLevel::kDynamo);
  CHECK(panel.shown()->graph.size() == 12);
  // Through Inductor's provenance, each of the three kernels covers its own Dynamo ops.
  CHECK(group_count(panel) == 3);
}

TEST_CASE("Search selects a node and the inspector describes it", "[views][canvas]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp");
  GraphPanel& panel = window.graph_panel();
  QSignalSpy selected(&panel, &GraphPanel::node_selected);
  REQUIRE(panel.search(QStringLiteral("addmm")));
  REQUIRE(selected.count() == 1);
  const auto id = panel.scene().selected_node();
  REQUIRE(id);
  CHECK(selected.takeFirst().at(0).value<std::size_t>() == *id);
  const std::string text = panel.inspector_text().toStdString();
  CHECK(text.find("target   torch.ops.aten.addmm") != std::string::npos);
  CHECK(text.find("shape    [") != std::string::npos);
  CHECK(text.find("strides  [") != std::string::npos);
  CHECK(text.find("kernel   ") != std::string::npos);
  CHECK(text.find("predicted ") != std::string::npos);
  CHECK_FALSE(panel.search(QStringLiteral("no_such_node_anywhere")));

  // A click on another node selects it: the canvas drags only where no node is.
  const auto output = panel.shown()->graph.find("output");
  REQUIRE(output);
  views::GraphCanvas& canvas = panel.canvas();
  const QRectF box = panel.shown()->layout.nodes[*output];
  canvas.centerOn(box.center());
  QTest::mouseClick(canvas.viewport(), Qt::LeftButton, {}, canvas.mapFromScene(box.center()));
  REQUIRE(selected.count() == 1);
  CHECK(selected.takeFirst().at(0).value<std::size_t>() == *output);
  CHECK(panel.inspector_text().startsWith(QStringLiteral("output\n  op       output")));
}

TEST_CASE("The Kernel source dock shows the CUDA C of the selected node's kernel",
          "[views][canvas]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp");
  GraphPanel& panel = window.graph_panel();
  auto* dock = window.findChild<QDockWidget*>(QStringLiteral("kernel_source_dock"));
  REQUIRE(dock != nullptr);
  // The erf of the GELU: fxscope fuses bias, GELU and residual into one generated kernel.
  REQUIRE(panel.search(QStringLiteral("erf")));
  const std::string gelu = panel.kernel_source().toStdString();
  INFO(gelu);
  CHECK(gelu.starts_with("// fxscope: generated for [0/0]"));
  CHECK(gelu.find("// group ") != std::string::npos);
  CHECK(gelu.find("erff(") != std::string::npos);
  CHECK(gelu.find("extern \"C\" __global__") != std::string::npos);
  CHECK(gelu.find("prelude of helpers left out") != std::string::npos);
  // The GEMM runs in cuBLAS: no source, and the view says so.
  REQUIRE(panel.search(QStringLiteral("addmm")));
  CHECK(panel.kernel_source().contains(QStringLiteral("runs in a library")));
  // Inductor's groups have no fxscope source.
  replan(panel, [&] { panel.context().set_groups(views::GroupSource::kInductor); });
  CHECK(panel.kernel_source().isEmpty());  // cleared with the new graph
  REQUIRE(panel.search(QStringLiteral("erf")));
  CHECK(panel.kernel_source().contains(QStringLiteral("is Inductor's kernel")));
}

TEST_CASE("A unit that ended in a graph break shows the break above its graph", "[views][canvas]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "graph_breaks");
  GraphPanel& panel = window.graph_panel();
  REQUIRE(panel.shown());
  CHECK(panel.shown()->compile_id == "0/0");
  CHECK(panel.shown()->graph.size() > 0);
  CHECK(panel.banner_text().startsWith(QStringLiteral("Graph break after 0/0 at ")));
  CHECK(panel.banner_text().contains(QStringLiteral("Unsupported Tensor.item()")));

  // A frame row shows its first unit, unmerged, and says the frame has more.
  auto* tree = window.findChild<QTreeView*>(QStringLiteral("compile_units_view"));
  REQUIRE(tree != nullptr);
  QSignalSpy shown(&panel, &GraphPanel::graph_shown);
  tree->setCurrentIndex(tree->model()->index(1, 0));
  REQUIRE(shown.wait(kTimeoutMs));
  CHECK(panel.shown()->compile_id == "1/0");
  CHECK(panel.banner_text().startsWith(
      QStringLiteral("Frame 1 compiled as 2 units; showing 1/0, select a unit")));
}

}  // namespace fxscope::test

namespace fxscope::test {

TEST_CASE("A training unit's backward graph has its own level, kernels and no forward timings",
          "[views][canvas]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp_train");
  GraphPanel& panel = window.graph_panel();
  REQUIRE(panel.shown()->problem.empty());
  const std::string forward_where = panel.shown()->where;
  CHECK(std::find(panel.shown()->notes.begin(), panel.shown()->notes.end(),
                  "the backward graph is under Level > ATen graph, backward") !=
        panel.shown()->notes.end());

  replan(panel, [&] { panel.context().set_level(views::GraphLevel::kAtenBackward); });
  const views::CanvasGraph& backward = *panel.shown();
  REQUIRE(backward.problem.empty());
  CHECK(backward.where != forward_where);
  CHECK(backward.where.find("inductor_post_grad_graph") != std::string::npos);
  // The backward graph's 29 post-grad ops plan as 6 kernels (fxscope fuse, second graph).
  CHECK(backward.kernels == 6);
  CHECK(backward.graph.find("tangents_1").has_value());
  CHECK_FALSE(backward.groups.empty());

  // A run measures the forward graph: its times never land on the backward one, whose node
  // names (mm, mul, ...) repeat the forward's. (residual_mlp's H200 run is of unit 0/0 too.)
  load_run(window, "runs/residual_mlp_pytorch_h200.json");
  CHECK(panel.heat().mode == nullptr);
  CHECK(panel.heat().mismatch == "the GPU run measured the forward graph");
  CHECK(panel.heat().measured_groups == 0);
  replan(panel, [&] { panel.context().set_level(views::GraphLevel::kAten); });
  CHECK(panel.heat().mode != nullptr);
}

TEST_CASE("An inference unit says it has no backward graph", "[views][canvas]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp");
  GraphPanel& panel = window.graph_panel();
  replan(panel, [&] { panel.context().set_level(views::GraphLevel::kAtenBackward); });
  CHECK_THAT(panel.shown()->problem, Catch::Contains("has no backward graph"));
  CHECK(panel.shown()->graph.empty());
}

}  // namespace fxscope::test
