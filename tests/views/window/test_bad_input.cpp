// Bad input in the window, offscreen: a file that is not a log, a log cut off mid-line, a graph
// with an op fxscope does not know and a GPU run that fails each end in a message the user can
// read, and the window goes on to open, draw and search the next thing asked of it.
#include <QFile>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>

#include "gpu_run/gpu_run_controller.h"
#include "gpu_run/gpu_run_settings.h"
#include "models/compile_units_model.h"
#include "panels/graph_panel.h"
#include "views_test_support.h"
#include "window/main_window.h"
#include "window_test_support.h"

namespace fxscope::test {
namespace {

using views::GraphPanel;
using views::MainWindow;

QString message_log(const MainWindow& window) {
  return window.findChild<QPlainTextEdit*>(QStringLiteral("message_log"))->toPlainText();
}

QString status_of(const MainWindow& window) {
  return window.statusBar()->currentMessage();
}

void write_all(const QString& path, const QByteArray& bytes) {
  QFile file(path);
  REQUIRE(file.open(QIODevice::WriteOnly));
  REQUIRE(file.write(bytes) == bytes.size());
}

QString residual_mlp_log() {
  const QString path =
      QString::fromStdString(sample("residual_mlp/dedicated_log_torch_trace_ljqh8_c9.log"));
  REQUIRE(QFile::exists(path));
  return path;
}

// Opens PATH, selects its first unit and waits for the graph; the window must be usable.
void open_and_draw(MainWindow& window, const QString& path) {
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  window.open_path(path);
  REQUIRE(loaded.wait(kTimeoutMs));
  QSignalSpy shown(&window.graph_panel(), &GraphPanel::graph_shown);
  REQUIRE(window.select_first_unit());
  REQUIRE(shown.wait(kTimeoutMs));
  REQUIRE(window.graph_panel().shown());
}

}  // namespace

TEST_CASE("A corrupt log is a message and the window opens the next one", "[views][bad_input]") {
  qt_app();
  QtWarningCapture warnings;
  MainWindow window;
  window.show();
  QSignalSpy failed(&window, &MainWindow::load_failed);
  window.open_path(QString::fromStdString(data("trace/random.bin")));
  REQUIRE(failed.wait(kTimeoutMs));
  CHECK(failed.front().front().toString().contains(QStringLiteral("not a TORCH_TRACE log")));
  CHECK(status_of(window).startsWith(QStringLiteral("Could not open: ")));
  CHECK(status_of(window).contains(QStringLiteral("random.bin")));
  CHECK(message_log(window).contains(QStringLiteral("error: ")));
  CHECK_FALSE(window.loading());

  open_and_draw(window, residual_mlp_log());
  CHECK(window.graph_panel().shown()->problem.empty());
  CHECK(window.graph_panel().search(QStringLiteral("erf")));
  CHECK(app_warnings(warnings).empty());
}

TEST_CASE("A truncated log shows what it holds and warns in the Log tab", "[views][bad_input]") {
  qt_app();
  QtWarningCapture warnings;
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  // Cut mid-line, two thirds in, as a crashed or still-running process leaves it.
  const QByteArray whole = read_all(residual_mlp_log());
  const QString cut = dir.filePath(QStringLiteral("dedicated_log_torch_trace_cut.log"));
  write_all(cut, whole.left(whole.size() * 2 / 3 + 7));

  MainWindow window;
  window.show();
  QSignalSpy failed(&window, &MainWindow::load_failed);
  open_and_draw(window, cut);
  CHECK(failed.isEmpty());
  CHECK(window.compile_units().rowCount() > 0);
  CHECK(status_of(window).size() > 0);
  CHECK(message_log(window).contains(QStringLiteral("warning: ")));
  CHECK(message_log(window).contains(QStringLiteral("dedicated_log_torch_trace_cut.log")));

  // Whatever the cut left of the unit, the whole log opens in the same window afterwards.
  open_and_draw(window, residual_mlp_log());
  CHECK(window.graph_panel().shown()->problem.empty());
  CHECK(window.graph_panel().search(QStringLiteral("erf")));
  CHECK(app_warnings(warnings).empty());
}

TEST_CASE("An op fxscope does not know is planned alone and named in the status bar",
          "[views][bad_input]") {
  qt_app();
  QtWarningCapture warnings;
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  // Same length, so every payload keeps its size: only the op's name changes.
  QByteArray text = read_all(residual_mlp_log());
  REQUIRE(text.contains("torch.ops.aten.erf.default"));
  text.replace("torch.ops.aten.erf.default", "torch.ops.aten.zzz.default");
  const QString path = dir.filePath(QStringLiteral("dedicated_log_torch_trace_unknown_op.log"));
  write_all(path, text);

  MainWindow window;
  window.show();
  open_and_draw(window, path);
  const auto& shown = *window.graph_panel().shown();
  CHECK(shown.problem.empty());
  CHECK_FALSE(shown.graph.empty());
  INFO(status_of(window).toStdString());
  CHECK(status_of(window).contains(QStringLiteral("unknown op")));
  CHECK(status_of(window).contains(QStringLiteral("zzz")));
  CHECK(window.graph_panel().search(QStringLiteral("erf")));
  CHECK(app_warnings(warnings).empty());
}

TEST_CASE("A GPU run that cannot start is a message in the Log tab", "[views][bad_input]") {
  qt_app();
  MainWindow window;
  window.show();
  open_and_draw(window, residual_mlp_log());
  views::GpuRunController& runs = window.gpu_runs();
  views::GpuRunSettings settings;
  settings.executable = QStringLiteral("/no/such/fxscope-cli");
  runs.set_settings(settings);
  QSignalSpy failed(&runs, &views::GpuRunController::failed);
  runs.run_shown_unit();
  if (failed.isEmpty()) REQUIRE(failed.wait(kTimeoutMs));
  const QString message = failed.front().front().toString();
  INFO(message.toStdString());
  CHECK(message.contains(QStringLiteral("/no/such/fxscope-cli")));
  CHECK(message_log(window).contains(QStringLiteral("error: GPU run: ") + message));
  CHECK_FALSE(runs.running());
  // The graph is still there and takes the next request.
  CHECK(window.graph_panel().shown()->problem.empty());
  CHECK(window.graph_panel().search(QStringLiteral("erf")));
}

}  // namespace fxscope::test
