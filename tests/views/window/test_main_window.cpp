// The window as a user drives it, offscreen: logs load off the UI thread, a bad path is reported
// and the window keeps working, the dock layout survives a restart.
#include <QDockWidget>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTreeView>

#include "models/compile_units_model.h"
#include "models/graph_breaks_model.h"
#include "views_test_support.h"
#include "window/main_window.h"

namespace fxscope::test {
namespace {

using views::MainWindow;

constexpr int kLoadTimeoutMs = 60000;

std::string text_of(const MainWindow& window, const char* name) {
  return window.findChild<QPlainTextEdit*>(QString::fromLatin1(name))->toPlainText().toStdString();
}

std::string status_of(MainWindow& window) {
  return window.statusBar()->currentMessage().toStdString();
}

}  // namespace

TEST_CASE("MainWindow loads a log off the UI thread and shows its units", "[views]") {
  qt_app();
  MainWindow window;
  window.show();
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  window.open_path(QString::fromStdString(sample("graph_breaks")));
  // open_path returns before the log is read: the reading runs on the thread pool.
  CHECK(window.loading());
  REQUIRE(loaded.wait(kLoadTimeoutMs));
  CHECK_FALSE(window.loading());

  CHECK(window.compile_units().rowCount() == 5);
  CHECK(window.graph_breaks().rowCount() == 3);
  auto* tree = window.findChild<QTreeView*>(QStringLiteral("compile_units_view"));
  REQUIRE(tree != nullptr);
  CHECK(tree->model() == &window.compile_units());
  CHECK(tree->isExpanded(tree->model()->index(0, 0)));
  CHECK(status_of(window).starts_with("11 compile units in 5 frames, 3 graph breaks"));
  CHECK(text_of(window, "summary_panel").starts_with("fxscope summary of"));
  CHECK(text_of(window, "message_log").find("info: read ") != std::string::npos);

  REQUIRE(window.select_first_unit());
  const std::string summary = text_of(window, "summary_panel");
  CHECK(summary.starts_with("Compile unit 0/0   forward"));
  CHECK(summary.find("Graph breaks\n  ") != std::string::npos);
  CHECK(summary.find("[gb0124]") != std::string::npos);
  // The .item() break priced as the log summary ranks it.
  CHECK(summary.find("    predicted lost a call on H200: 94.0 us (eager 5.0, host sync 5.0") !=
        std::string::npos);
}

TEST_CASE("MainWindow reports a bad path and keeps working", "[views]") {
  qt_app();
  MainWindow window;
  window.show();
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  QSignalSpy failed(&window, &MainWindow::load_failed);

  window.open_path(QStringLiteral("/no/such/torch_trace"));
  REQUIRE(failed.wait(kLoadTimeoutMs));
  CHECK(failed.takeFirst().at(0).toString().contains("/no/such/torch_trace"));
  CHECK(status_of(window).starts_with("Could not open: /no/such/torch_trace"));
  CHECK(text_of(window, "message_log").find("error: /no/such/torch_trace") != std::string::npos);
  CHECK_FALSE(window.loading());
  CHECK(window.compile_units().rowCount() == 0);
  CHECK_FALSE(window.select_first_unit());

  // A file that exists but is not a log.
  window.open_path(QString::fromStdString(sample("graph_breaks/expected.json")));
  REQUIRE(failed.wait(kLoadTimeoutMs));
  CHECK(failed.takeFirst().at(0).toString().contains("not a TORCH_TRACE log"));

  window.open_path(QString::fromStdString(sample("graph_breaks")));
  REQUIRE(loaded.wait(kLoadTimeoutMs));
  CHECK(window.compile_units().rowCount() == 5);
  CHECK(window.select_first_unit());
}

TEST_CASE("MainWindow opens compressed logs: a .gz file, a directory holding a .zst log",
          "[views][compressed]") {
  qt_app();
  MainWindow window;
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  QSignalSpy failed(&window, &MainWindow::load_failed);
  for (const char* path : {"trace/small.log.gz", "trace/zst_only"}) {
    INFO(path);
    window.open_path(QString::fromStdString(data(path)));
    REQUIRE(loaded.wait(kLoadTimeoutMs));
    CHECK(window.compile_units().rowCount() == 1);
    CHECK(window.select_first_unit());
  }
  CHECK(failed.count() == 0);
}

TEST_CASE("MainWindow drops a load that a newer one replaced", "[views]") {
  qt_app();
  MainWindow window;
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  QSignalSpy failed(&window, &MainWindow::load_failed);
  window.open_path(QStringLiteral("/no/such/torch_trace"));
  window.open_path(QString::fromStdString(sample("graph_breaks")));
  REQUIRE(loaded.wait(kLoadTimeoutMs));
  CHECK(failed.count() == 0);
  CHECK(window.compile_units().rowCount() == 5);
}

TEST_CASE("MainWindow saves and restores its dock layout", "[views]") {
  qt_app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  QSettings settings(dir.filePath(QStringLiteral("fxscope.ini")), QSettings::IniFormat);
  {
    MainWindow window;
    window.show();
    window.findChild<QDockWidget*>(QStringLiteral("log_dock"))->hide();
    window.save_layout(settings);
  }
  MainWindow restored;
  restored.show();
  restored.restore_layout(settings);
  CHECK(restored.findChild<QDockWidget*>(QStringLiteral("log_dock"))->isHidden());
  CHECK_FALSE(restored.findChild<QDockWidget*>(QStringLiteral("compile_units_dock"))->isHidden());
  CHECK_FALSE(restored.findChild<QDockWidget*>(QStringLiteral("graph_breaks_dock"))->isHidden());
}

}  // namespace fxscope::test
