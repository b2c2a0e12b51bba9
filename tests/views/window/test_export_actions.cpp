// File > Export on real logs, offscreen: the current view as SVG and PNG, the unit as annotated
// DOT, fxscope JSON (reloaded) and a Chrome trace; a failed export is a message, not a crash.
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

#include "canvas/graph_scene.h"
#include "fxscope/graph/graph_json.h"
#include "panels/graph_panel.h"
#include "views_test_support.h"
#include "window/document_window.h"
#include "window/export_actions.h"
#include "window/main_window.h"
#include "window_test_support.h"

namespace fxscope::test {
namespace {

using views::ExportActions;
using views::MainWindow;

}  // namespace

TEST_CASE("File > Export writes the current view as SVG and PNG", "[views][export]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp");
  QTemporaryDir dir;
  REQUIRE(dir.isValid());

  const QString svg = dir.filePath(QStringLiteral("view.svg"));
  REQUIRE(run_export(window, ExportActions::Format::kSvg, svg).isEmpty());
  const QByteArray svg_text = read_all(svg);
  CHECK(svg_text.startsWith("<?xml"));
  CHECK(svg_text.contains("</svg>"));
  // The nodes' ops and the fused kernel's cluster title are drawn as text.
  CHECK(svg_text.contains("addmm"));
  CHECK(svg_text.contains("triton_poi_fused_add_erf_mul_0"));

  const QString png = dir.filePath(QStringLiteral("view.png"));
  REQUIRE(run_export(window, ExportActions::Format::kPng, png).isEmpty());
  CHECK(read_all(png).startsWith("\x89PNG\r\n\x1a\n"));
  const QImage image(png);
  REQUIRE_FALSE(image.isNull());
  // The whole scene with a 16 px margin on each side, at one pixel per scene unit.
  const QRectF scene = window.graph_panel().scene().itemsBoundingRect();
  CHECK(image.width() == Approx(scene.width() + 32).margin(1.5));
  CHECK(image.height() == Approx(scene.height() + 32).margin(1.5));
  // Not blank: the nodes are drawn.
  const QColor corner = image.pixelColor(0, 0);
  bool drawn = false;
  for (int y = 0; y < image.height() && !drawn; y += 4) {
    drawn = image.pixelColor(image.width() / 2, y) != corner;
  }
  CHECK(drawn);
}

TEST_CASE("File > Export writes annotated DOT, reloadable JSON and a Chrome trace",
          "[views][export]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "graph_breaks");
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const auto& shown = *window.graph_panel().shown();

  const QString dot = dir.filePath(QStringLiteral("unit.dot"));
  REQUIRE(run_export(window, ExportActions::Format::kDot, dot).isEmpty());
  const QByteArray dot_text = read_all(dot);
  CHECK(dot_text.startsWith("digraph fxscope {"));
  CHECK(dot_text.contains("graph break at"));

  const QString json = dir.filePath(QStringLiteral("unit.json"));
  REQUIRE(run_export(window, ExportActions::Format::kJson, json).isEmpty());
  auto doc = graph::parse_document(read_all(json).toStdString());
  REQUIRE(doc.ok());
  bool same_graph = false;
  for (const auto& entry : doc->graphs()) {
    if (entry.level == "post_grad") same_graph = entry.graph.size() == shown.graph.size();
  }
  CHECK(same_graph);

  // The app opens the exported file again: a window of its own with the same graph and groups.
  window.open_path(json);
  auto* document = window.findChild<views::DocumentWindow*>();
  REQUIRE(document != nullptr);
  if (!document->shown()) {
    QSignalSpy reread(document, &views::DocumentWindow::graph_shown);
    REQUIRE(reread.wait(kTimeoutMs));
  }
  REQUIRE(document->shown());
  CHECK(document->isVisible());
  CHECK(document->shown()->graph.size() == shown.graph.size());
  CHECK(document->shown()->groups.size() == shown.groups.size());
  CHECK(document->message().contains("kernel groups"));

  const QString trace = dir.filePath(QStringLiteral("unit.trace.json"));
  REQUIRE(run_export(window, ExportActions::Format::kChromeTrace, trace).isEmpty());
  const auto events = nlohmann::json::parse(read_all(trace).toStdString())["traceEvents"];
  std::size_t kernels = 0;
  for (const auto& e : events) kernels += e["ph"] == "X" ? 1U : 0U;
  CHECK(kernels == shown.groups.size());
}

TEST_CASE("A failed export is reported and the window keeps working", "[views][export]") {
  qt_app();
  MainWindow window;
  window.show();
  // Nothing open yet: nothing to export.
  CHECK_FALSE(
      run_export(window, ExportActions::Format::kSvg, QStringLiteral("/tmp/x.svg")).isEmpty());
  CHECK_FALSE(
      run_export(window, ExportActions::Format::kDot, QStringLiteral("/tmp/x.dot")).isEmpty());
  open_first_unit(window, "residual_mlp");
  const QString error =
      run_export(window, ExportActions::Format::kJson, QStringLiteral("/no/such/dir/unit.json"));
  CHECK(error.contains("/no/such/dir/unit.json"));
  QTemporaryDir dir;
  CHECK(run_export(window, ExportActions::Format::kPng, dir.filePath(QStringLiteral("ok.png")))
            .isEmpty());
}

}  // namespace fxscope::test
