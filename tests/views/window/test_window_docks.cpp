// The window around the canvas, offscreen: the inspector as a dock that follows the canvas and
// the Kernels tab, File > Open Recent, drag and drop of a log, graph breaks drawn as cuts
// between consecutive compile units, and the dock a screenshot asks for.
#include <QDockWidget>
#include <QDropEvent>
#include <QMenu>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUrl>

#include "canvas/cut_item.h"
#include "canvas/graph_scene.h"
#include "context/view_context.h"
#include "gpu_run/gpu_run_controller.h"
#include "layout/unit_cuts.h"
#include "panels/graph_panel.h"
#include "views_test_support.h"
#include "window/main_window.h"
#include "window/recent_files.h"
#include "window/window_screenshot.h"

namespace fxscope::test {
namespace {

using views::GraphPanel;
using views::MainWindow;

std::size_t unit_index(const report::Summary& summary, const std::string& id) {
  for (std::size_t u = 0; u < summary.units.size(); ++u) {
    if (summary.units[u].compile_id == id) return u;
  }
  FAIL("no unit " << id);
  return 0;
}

void show_unit(GraphPanel& panel, std::size_t unit) {
  QSignalSpy shown(&panel, &GraphPanel::graph_shown);
  panel.context().set_unit(unit);
  REQUIRE(shown.wait(kTimeoutMs));
}

std::vector<views::CutItem*> cuts_on(const GraphPanel& panel) {
  std::vector<views::CutItem*> cuts;
  for (QGraphicsItem* item : panel.scene().items()) {
    if (auto* cut = dynamic_cast<views::CutItem*>(item)) cuts.push_back(cut);
  }
  return cuts;
}

}  // namespace

TEST_CASE("Graph breaks link consecutive units of graph_breaks", "[views][cuts]") {
  const auto log = load_sample("graph_breaks");
  const auto& summary = log->summary;
  // 0/0 broke at capture.py:83 and resumed in frame 1.
  const auto first = views::unit_cuts(summary, unit_index(summary, "0/0"));
  REQUIRE(first.size() == 1);
  CHECK(first[0].below);
  CHECK(first[0].reason.find("capture.py:83: Unsupported Tensor.item()") != std::string::npos);
  CHECK(first[0].neighbour == "[1/0] torch_dynamo_resume_in_forward_at_83");
  // 1/0 resumes 0/0 and broke again at :85, resumed in frame 2 (named after forward again).
  const auto middle = views::unit_cuts(summary, unit_index(summary, "1/0"));
  REQUIRE(middle.size() == 2);
  CHECK_FALSE(middle[0].below);
  CHECK(middle[0].neighbour == "[0/0] forward");
  CHECK(middle[1].below);
  CHECK(middle[1].neighbour == "[2/0] torch_dynamo_resume_in_forward_at_85");
  // 3/0 resumes 2/0 and ends the frame; 4/0 is another function with no break.
  const auto last = views::unit_cuts(summary, unit_index(summary, "3/0"));
  REQUIRE(last.size() == 1);
  CHECK_FALSE(last[0].below);
  CHECK(last[0].neighbour == "[2/0] torch_dynamo_resume_in_forward_at_85");
  CHECK(last[0].reason.find("Dynamic shape operator") != std::string::npos);
  CHECK(views::unit_cuts(summary, unit_index(summary, "4/0")).empty());
  CHECK(views::unit_cuts(summary, 999).empty());
}

TEST_CASE("The canvas draws the cut under a unit that broke", "[views][cuts]") {
  qt_app();
  MainWindow window;
  window.show();
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  window.open_path(QString::fromStdString(sample("graph_breaks")));
  REQUIRE(loaded.wait(kTimeoutMs));
  GraphPanel& panel = window.graph_panel();
  show_unit(panel, unit_index(window.log()->summary, "1/0"));
  const auto cuts = cuts_on(panel);
  REQUIRE(cuts.size() == 2);
  REQUIRE(panel.shown());
  const QRectF graph = panel.shown()->layout.bounds;
  int above = 0;
  int below = 0;
  for (const auto* cut : cuts) {
    const QRectF box = cut->sceneBoundingRect();
    above += box.bottom() <= graph.top() ? 1 : 0;
    below += box.top() >= graph.bottom() ? 1 : 0;
    CHECK(panel.scene().sceneRect().contains(box));
  }
  CHECK(above == 1);
  CHECK(below == 1);
  // The Dynamo graph shows the same cuts.
  QSignalSpy shown(&panel, &GraphPanel::graph_shown);
  panel.context().set_level(views::GraphLevel::kDynamo);
  REQUIRE(shown.wait(kTimeoutMs));
  CHECK(cuts_on(panel).size() == 2);
  show_unit(panel, unit_index(window.log()->summary, "4/0"));
  CHECK(cuts_on(panel).empty());
}

TEST_CASE("The inspector is a dock that follows the canvas", "[views][docks]") {
  qt_app();
  MainWindow window;
  window.show();
  auto* dock = window.findChild<QDockWidget*>(QStringLiteral("inspector_dock"));
  REQUIRE(dock != nullptr);
  auto* inspector = qobject_cast<QPlainTextEdit*>(dock->widget());
  REQUIRE(inspector != nullptr);
  CHECK(inspector->objectName() == QStringLiteral("node_inspector"));
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  window.open_path(QString::fromStdString(sample("residual_mlp")));
  REQUIRE(loaded.wait(kTimeoutMs));
  show_unit(window.graph_panel(), 0);
  REQUIRE(window.graph_panel().search(QStringLiteral("erf")));
  CHECK(inspector->toPlainText().startsWith(QStringLiteral("erf")));
  CHECK(inspector->toPlainText().contains(QStringLiteral("predicted")));
  // Selecting a kernel's nodes (the Kernels tab's click) shows one of them.
  REQUIRE(window.graph_panel().highlight_nodes({QStringLiteral("addmm")}, QStringLiteral("test")) ==
          1);
  CHECK(inspector->toPlainText().startsWith(QStringLiteral("addmm")));
  CHECK(window.graph_panel().highlight_nodes({QStringLiteral("no_such_node")},
                                             QStringLiteral("test")) == 0);
}

TEST_CASE("A screenshot's dock is in front and roomy, even when a run loads after it was asked for",
          "[views][docks][screenshot]") {
  qt_app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  MainWindow window;
  auto* ab = window.findChild<QDockWidget*>(QStringLiteral("mode_comparison_dock"));
  auto* kernels = window.findChild<QDockWidget*>(QStringLiteral("kernels_dock"));
  REQUIRE(ab != nullptr);
  REQUIRE(kernels != nullptr);
  // As `fxscope PATH --run RUN.json --dock mode_comparison --screenshot FILE` sets it up.
  auto* shot =
      new views::WindowScreenshot(&window, dir.filePath(QStringLiteral("ab.png")), &window);
  shot->set_dock(ab);
  shot->wait_for_run(&window.gpu_runs());
  QSignalSpy finished(shot, &views::WindowScreenshot::finished);
  window.show();
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  window.open_path(QString::fromStdString(sample("residual_mlp")));
  REQUIRE(loaded.wait(kTimeoutMs));
  // The loaded run raises the Kernels tab, which shares the A/B tab's place.
  window.gpu_runs().load_run_file(
      QString::fromStdString(data("runs/residual_mlp_pytorch_h200.json")));
  REQUIRE(finished.wait(kTimeoutMs));
  CHECK(finished.takeFirst().at(0).toInt() == 0);
  // Tabs behind the front one keep their visible flag; what shows is their visible region.
  CHECK(window.tabifiedDockWidgets(ab).contains(kernels));
  CHECK_FALSE(ab->widget()->visibleRegion().isEmpty());
  CHECK(kernels->widget()->visibleRegion().isEmpty());
  // And it has room: half the window's height, where the default layout gives the tabs 190 px.
  CHECK(ab->height() >= window.height() / 3);
}

TEST_CASE("Open Recent remembers loaded paths only, newest first", "[views][docks]") {
  qt_app();
  MainWindow window;
  window.show();
  views::RecentFiles& recent = window.recent_files();
  recent.clear();
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  QSignalSpy failed(&window, &MainWindow::load_failed);
  window.open_path(QString::fromStdString(sample("residual_mlp")));
  REQUIRE(loaded.wait(kTimeoutMs));
  window.open_path(QStringLiteral("/no/such/trace"));
  REQUIRE(failed.wait(kTimeoutMs));
  window.open_path(QString::fromStdString(sample("pointwise_chain")));
  REQUIRE(loaded.wait(kTimeoutMs));
  REQUIRE(recent.paths().size() == 2);
  CHECK(recent.paths()[0].endsWith(QStringLiteral("sample_graphs/pointwise_chain")));
  CHECK(recent.paths()[1].endsWith(QStringLiteral("sample_graphs/residual_mlp")));
  // A second window reads the same list, and its menu opens the entry.
  MainWindow next;
  CHECK(next.recent_files().paths() == recent.paths());
  auto* menu = next.findChild<QMenu*>();
  REQUIRE(menu != nullptr);
  QSignalSpy next_loaded(&next, &MainWindow::log_loaded);
  emit next.recent_files().open_requested(recent.paths()[1]);
  REQUIRE(next_loaded.wait(kTimeoutMs));
  CHECK(next.log()->summary.path.find("residual_mlp") != std::string::npos);
  recent.clear();
}

TEST_CASE("Dropping a log directory on the window opens it", "[views][docks]") {
  qt_app();
  MainWindow window;
  window.show();
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(QString::fromStdString(sample("pointwise_chain")))});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(&window, &enter);
  CHECK(enter.isAccepted());
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(&window, &drop);
  CHECK(drop.isAccepted());
  REQUIRE(loaded.wait(kTimeoutMs));
  CHECK(window.log()->summary.path.find("pointwise_chain") != std::string::npos);
  // Text is not a path: refused, nothing loads.
  QMimeData text;
  text.setText(QStringLiteral("hello"));
  QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
  refused.setAccepted(false);
  QCoreApplication::sendEvent(&window, &refused);
  CHECK_FALSE(refused.isAccepted());
}

}  // namespace fxscope::test
