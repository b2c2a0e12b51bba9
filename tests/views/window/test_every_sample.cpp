// Every bundled sample through the window as a user drives it, offscreen: open it, pick a unit
// with a graph, click a node, step through the four modes (the engine's fuse report is the
// oracle for the kernel count), flip the level, run every export and check what it wrote.
// Catches a sample that only breaks the GUI (a graph that lays out badly, an export that throws,
// a Qt warning) which the per-feature tests, written against two or three samples, would miss.
#include <QFile>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "canvas/graph_canvas.h"
#include "canvas/graph_scene.h"
#include "canvas/node_item.h"
#include "context/view_context.h"
#include "fxscope/cost/device_spec.h"
#include "fxscope/export/cluster_closure.h"
#include "fxscope/graph/graph_json.h"
#include "fxscope/report/fuse_report.h"
#include "log_payloads.h"
#include "models/kernels_model.h"
#include "panels/graph_panel.h"
#include "panels/kernels_panel.h"
#include "views_test_support.h"
#include "window/export_actions.h"
#include "window/main_window.h"
#include "window_test_support.h"

namespace fxscope::test {
namespace {

using views::ExportActions;
using views::GraphPanel;
using views::MainWindow;

// Painting a 5,000-node scene into an SVG or a 16k PNG takes seconds each on a 2-core CI
// machine; test_export_actions covers the pictures on small graphs and the size cap, so the big
// transformer samples here export DOT and JSON only.
constexpr std::size_t kMaxImageExportNodes = 1500;

// Runs ACTION (which starts a request on the panel) and waits for the graph it asked for.
template <class Action>
void wait_for_graph(GraphPanel& panel, Action action) {
  QSignalSpy shown(&panel, &GraphPanel::graph_shown);
  action();
  if (shown.isEmpty()) REQUIRE(shown.wait(kTimeoutMs));
  REQUIRE_FALSE(panel.busy());
  REQUIRE(panel.shown());
}

struct Planned {
  std::size_t launches = 0;  // kernels the engine plans
  std::size_t drawn = 0;     // those with a node no earlier kernel has
};

// What the engine plans for unit ID in MODE: the oracle for the canvas. A node is drawn in one
// cluster, its owner's (exporting::drawn_owners: the library kernel that runs it, else the first
// kernel that has it), so a kernel that owns none of its nodes (a split reduction's second pass)
// joins the cluster of one of them, and a layout copy (which computes none of the nodes it is
// named after) joins its convolution's; the canvas shows `drawn` groups.
Planned planned_kernels(const views::LoadedLog& log, fusion::Mode mode, const std::string& id) {
  const auto device = cost::find_device("H200");
  REQUIRE(device);
  auto report = report::build_fuse_report(log.log, mode, id, *device,
                                          report::ModeCoverage::requested_mode_only);
  REQUIRE(report.ok());
  REQUIRE_FALSE(report->units.empty());
  REQUIRE_FALSE(report->units[0].graphs.empty());
  const fusion::FusionPlan& plan = report->units[0].graphs[0].fusion.ours;
  Planned planned{plan.launches(), 0};
  const std::vector<int> owner =
      exporting::drawn_owners(plan, report->units[0].graphs[0].fusion.post_grad.size());
  for (std::size_t k = 0; k < plan.groups.size(); ++k) {
    if (fusion::is_layout_copy(plan.groups[k])) continue;
    planned.drawn += std::count(owner.begin(), owner.end(), int(k)) > 0 ? 1U : 0U;
  }
  return planned;
}

// Scrolls node ID into view and returns where on the canvas's viewport to click it.
QPoint node_on_screen(GraphPanel& panel, graph::NodeId id) {
  views::NodeItem* item = panel.scene().select_node(id);
  REQUIRE(item != nullptr);
  panel.scene().clearSelection();
  auto& canvas = panel.canvas();
  canvas.centerOn(item);
  return canvas.mapFromScene(item->sceneBoundingRect().center());
}

void check_sample(const std::string& name) {
  INFO("sample " << name);
  QtWarningCapture warnings;
  MainWindow window;
  window.show();
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  window.open_path(QString::fromStdString(sample(name)));
  REQUIRE(loaded.wait(kTimeoutMs));
  GraphPanel& panel = window.graph_panel();

  // The first unit with an ATen graph to draw (a unit whose compile failed has none).
  std::string unit;
  for (const QString& id : window.unit_ids()) {
    wait_for_graph(panel, [&] { REQUIRE(window.select_unit(id)); });
    if (panel.shown()->problem.empty() && !panel.shown()->graph.empty()) {
      unit = id.toStdString();
      break;
    }
  }
  REQUIRE_FALSE(unit.empty());
  INFO("unit " << unit);
  const views::CanvasGraph& first = *panel.shown();
  REQUIRE_FALSE(first.groups.empty());

  // A node of the first kernel: clicking it fills the inspector dock and selects it in the scene.
  const graph::NodeId node = first.groups.front().nodes.front();
  const std::string node_name = first.graph.node(node).name;
  const QPoint at = node_on_screen(panel, node);
  QSignalSpy selected(&panel, &GraphPanel::node_selected);
  QTest::mouseClick(panel.canvas().viewport(), Qt::LeftButton, {}, at);
  REQUIRE(panel.scene().selected_node() == node);
  REQUIRE(selected.count() == 1);
  CHECK(selected.front().front().toULongLong() == node);
  auto* inspector = window.findChild<QPlainTextEdit*>(QStringLiteral("node_inspector"));
  REQUIRE(inspector != nullptr);
  CHECK(inspector->toPlainText().contains(QString::fromStdString(node_name)));
  // The Kernels tab lists the shown graph's kernels.
  CHECK(window.kernels_panel().model().rowCount() == int(first.groups.size()));

  // Each mode re-plans: the canvas shows as many kernel groups as the engine plans, and says so.
  const auto& log = *window.log();
  std::vector<std::pair<fusion::Mode, std::size_t>> shown_kernels;
  for (const fusion::Mode mode : {fusion::Mode::eager, fusion::Mode::reduce_overhead,
                                  fusion::Mode::max_autotune, fusion::Mode::default_mode}) {
    wait_for_graph(panel, [&] { panel.context().set_mode(mode); });
    const views::CanvasGraph& graph = *panel.shown();
    REQUIRE(graph.request.mode == mode);
    REQUIRE(graph.problem.empty());
    const std::size_t expected = planned_kernels(log, mode, unit).drawn;
    CHECK(graph.groups.size() == expected);
    CHECK(window.statusBar()->currentMessage().contains(
        QStringLiteral("%1 kernel groups").arg(expected)));
    CHECK(window.kernels_panel().model().rowCount() == int(graph.groups.size()));
    // No planned kernel is dropped: one sharing another's nodes is counted in that cluster.
    const Planned planned = planned_kernels(log, mode, unit);
    CHECK(graph.kernels == planned.launches);
    if (mode != fusion::Mode::eager) {
      std::size_t in_clusters = 0;
      for (const auto& g : graph.groups) in_clusters += g.kernels;
      CHECK(in_clusters == planned.launches);
    }
    if (planned.launches != expected) {
      CHECK(window.statusBar()->currentMessage().contains(
          QStringLiteral("(%1 kernels:").arg(planned.launches)));
    }
    shown_kernels.emplace_back(mode, graph.groups.size());
  }
  // Eager launches one kernel per op and Inductor fuses: the fuse report's difference between the
  // two shows on the canvas in the same direction.
  const Planned eager = planned_kernels(log, fusion::Mode::eager, unit);
  const Planned fused = planned_kernels(log, fusion::Mode::default_mode, unit);
  CHECK(fused.launches <= eager.launches);
  CHECK(shown_kernels.front().second == eager.drawn);
  CHECK(shown_kernels.back().second == fused.drawn);
  if (fused.launches < eager.launches) {
    CHECK(shown_kernels.back().second < shown_kernels.front().second);
  }

  // The Dynamo graph, then back to ATen for the exports.
  wait_for_graph(panel, [&] { panel.context().set_level(views::GraphLevel::kDynamo); });
  CHECK(panel.shown()->request.level == views::GraphLevel::kDynamo);
  CHECK(panel.shown()->problem.empty());
  CHECK_FALSE(panel.shown()->graph.empty());
  wait_for_graph(panel, [&] { panel.context().set_level(views::GraphLevel::kAten); });
  const views::CanvasGraph& aten = *panel.shown();
  REQUIRE(aten.request.level == views::GraphLevel::kAten);

  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString base = dir.filePath(QString::fromStdString(name));
  if (aten.graph.size() <= kMaxImageExportNodes) {
    const QString svg = base + QStringLiteral(".svg");
    REQUIRE(run_export(window, ExportActions::Format::kSvg, svg).isEmpty());
    const QByteArray svg_text = read_all(svg);
    CHECK(svg_text.contains("</svg>"));
    // The clicked node's box is drawn with its op (long ones are elided, so only short ones).
    const std::string& op = aten.op_text[node];
    if (op.size() <= 12) {
      CHECK(svg_text.contains(op.c_str()));
    }

    const QString png = base + QStringLiteral(".png");
    REQUIRE(run_export(window, ExportActions::Format::kPng, png).isEmpty());
    CHECK(read_all(png).startsWith("\x89PNG\r\n\x1a\n"));
  }
  const QString dot = base + QStringLiteral(".dot");
  REQUIRE(run_export(window, ExportActions::Format::kDot, dot).isEmpty());
  const QByteArray dot_text = read_all(dot);
  CHECK(dot_text.startsWith("digraph"));
  CHECK(dot_text.contains(node_name.c_str()));

  const QString json = base + QStringLiteral(".json");
  REQUIRE(run_export(window, ExportActions::Format::kJson, json).isEmpty());
  const auto doc = graph::parse_document(read_all(json).toStdString());
  REQUIRE(doc.ok());
  bool same_graph = false;
  for (const auto& entry : doc->graphs()) {
    // A training unit has a forward and a backward post-grad graph; the canvas shows the first.
    if (entry.level == "post_grad")
      same_graph = same_graph || entry.graph.size() == aten.graph.size();
  }
  CHECK(same_graph);

  const QString trace = base + QStringLiteral(".trace.json");
  REQUIRE(run_export(window, ExportActions::Format::kChromeTrace, trace).isEmpty());
  CHECK(nlohmann::json::parse(read_all(trace).toStdString()).contains("traceEvents"));

  CHECK(app_warnings(warnings).empty());
}

}  // namespace

TEST_CASE("Every sample opens and selects and switches modes and exports in the window",
          "[views][every_sample]") {
  qt_app();
  for (const std::string& name : all_samples()) check_sample(name);
}

}  // namespace fxscope::test
