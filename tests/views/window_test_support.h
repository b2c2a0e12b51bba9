#pragma once
// What the window-level views tests share: opening a sample in a MainWindow, running an export,
// reading a written file, and Qt's warnings less the offscreen platform's own note.

#include <QFile>
#include <QSignalSpy>
#include <QString>
#include <QStringList>
#include <string>

#include <catch2/catch.hpp>

#include "gpu_run/gpu_run_controller.h"
#include "panels/graph_panel.h"
#include "views_test_support.h"
#include "window/export_actions.h"
#include "window/main_window.h"

namespace fxscope::test {

// Loading and laying out the largest sample on a busy 2-core CI machine stays well under this.
inline constexpr int kWindowTimeoutMs = 120000;

// Opens SAMPLE_NAME in WINDOW, selects its first unit and waits for the graph.
inline void open_first_unit(views::MainWindow& window, const std::string& sample_name) {
  QSignalSpy loaded(&window, &views::MainWindow::log_loaded);
  window.open_path(QString::fromStdString(sample(sample_name)));
  REQUIRE(loaded.wait(kWindowTimeoutMs));
  QSignalSpy shown(&window.graph_panel(), &views::GraphPanel::graph_shown);
  REQUIRE(window.select_first_unit());
  REQUIRE(shown.wait(kWindowTimeoutMs));
}

// Overlays the saved run tests/data/RUN_FILE on WINDOW's graph and waits until it is shown.
inline void load_run(views::MainWindow& window, const std::string& run_file) {
  QSignalSpy loaded(&window.gpu_runs(), &views::GpuRunController::run_loaded);
  window.gpu_runs().load_run_file(QString::fromStdString(data(run_file)));
  REQUIRE(loaded.wait(kWindowTimeoutMs));
}

// Runs one export of WINDOW's current view and returns its error text (empty: written).
inline QString run_export(views::MainWindow& window, views::ExportActions::Format format,
                          const QString& path) {
  QSignalSpy finished(&window.exports(), &views::ExportActions::finished);
  window.exports().export_to(format, path);
  if (finished.isEmpty()) REQUIRE(finished.wait(kWindowTimeoutMs));
  return finished.takeFirst().at(1).toString();
}

inline QByteArray read_all(const QString& path) {
  QFile file(path);
  REQUIRE(file.open(QIODevice::ReadOnly));
  return file.readAll();
}

// What Qt warned about, less the offscreen platform's note that it cannot honour a window's
// size hints (printed whenever a window with docks is shown offscreen; not fxscope's doing).
inline std::string app_warnings(const QtWarningCapture& capture) {
  QStringList lines = QString::fromStdString(capture.text()).split(QLatin1Char('\n'));
  lines.removeAll(QStringLiteral("This plugin does not support propagateSizeHints()"));
  lines.removeAll(QString());
  return lines.join(QLatin1Char('\n')).toStdString();
}

}  // namespace fxscope::test
