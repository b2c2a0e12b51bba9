#pragma once
// `fxscope PATH --benchmark-open`: times the window from process start to the first complete
// paint of the first compile unit's graph, then scripts zooms and pans on the canvas, repainting
// each frame synchronously, and prints the frame times at reading zoom and in the fully fitted
// view. Offscreen.

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>
#include <vector>

namespace fxscope::views {

class MainWindow;

class OpenBenchmark : public QObject {
  Q_OBJECT

 public:
  // Connects to WINDOW before it starts loading, so no outcome is missed. SINCE_START was
  // started at the top of main.
  OpenBenchmark(MainWindow* window, QElapsedTimer since_start, QObject* parent = nullptr);

 signals:
  // 0 when both reports were printed; otherwise the message went to stderr first.
  void finished(int exit_code);

 private:
  void measure_open();
  std::vector<double> run_frames();
  void report(const QString& what, std::vector<double> times);
  void fail(const QString& message);

  QPointer<MainWindow> window_;
  QElapsedTimer since_start_;
};

}  // namespace fxscope::views
