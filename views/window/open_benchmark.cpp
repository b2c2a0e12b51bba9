#include "window/open_benchmark.h"

#include <QCoreApplication>
#include <QScrollBar>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "canvas/graph_canvas.h"
#include "panels/graph_panel.h"
#include "window/main_window.h"

namespace fxscope::views {
namespace {

// 60 frames: zoom in around the centre, pan right and down, zoom out, pan back.
constexpr int kStepsPerPhase = 15;
constexpr double kZoomStep = 1.1;
constexpr int kPanStepPixels = 40;
constexpr double kTargetFrameMs = 16;

double milliseconds(const QElapsedTimer& timer) {
  return double(timer.nsecsElapsed()) / 1e6;
}

// The value at fraction Q of the sorted TIMES, by the nearest-rank rule.
double percentile(const std::vector<double>& times, double q) {
  const auto rank = std::size_t(std::ceil(q * double(times.size())));
  return times[std::clamp<std::size_t>(rank, 1, times.size()) - 1];
}

void zoom_around_centre(GraphCanvas& canvas, double factor) {
  const QPointF centre = canvas.mapToScene(canvas.viewport()->rect().center());
  canvas.scale(factor, factor);
  canvas.centerOn(centre);
}

void pan(GraphCanvas& canvas, int dx, int dy) {
  canvas.horizontalScrollBar()->setValue(canvas.horizontalScrollBar()->value() + dx);
  canvas.verticalScrollBar()->setValue(canvas.verticalScrollBar()->value() + dy);
}

}  // namespace

OpenBenchmark::OpenBenchmark(MainWindow* window, QElapsedTimer since_start, QObject* parent)
    : QObject(parent), window_(window), since_start_(since_start) {
  connect(window, &MainWindow::log_loaded, this, [this] {
    if (!window_->select_first_unit()) fail(tr("the log has no compile unit to show"));
  });
  // The graph is in the scene and the canvas transform set when graph_shown arrives; the
  // synchronous repaint that follows is the first complete paint of it.
  connect(&window->graph_panel(), &GraphPanel::graph_shown, this, &OpenBenchmark::measure_open,
          Qt::SingleShotConnection);
  connect(window, &MainWindow::load_failed, this, &OpenBenchmark::fail);
}

void OpenBenchmark::measure_open() {
  if (!window_) return fail(tr("the window closed before the benchmark"));
  const CanvasGraphPtr& graph = window_->graph_panel().shown();
  if (!graph || !graph->problem.empty()) {
    return fail(graph ? QString::fromStdString(graph->problem) : tr("no graph was shown"));
  }
  window_->graph_panel().canvas().viewport()->repaint();
  std::printf("open: %.0f ms to first complete paint (%zu nodes, %s layout)\n",
              milliseconds(since_start_), graph->graph.size(), graph->layout.engine.c_str());

  // What the window does while the user looks at the new graph (the canvas draws its overview
  // picture then), before the first input could arrive.
  QCoreApplication::processEvents();
  report(tr("frames at reading zoom"), run_frames());
  // The fully fitted view: every node on screen at once.
  GraphCanvas& canvas = window_->graph_panel().canvas();
  QElapsedTimer first;
  first.start();
  canvas.fit_to_view();
  canvas.viewport()->repaint();
  std::printf("fitted view: first frame %.1f ms%s\n", milliseconds(first),
              canvas.drew_overview() ? " (from the overview picture)" : "");
  report(tr("frames of the fitted view"), run_frames());
  std::fflush(stdout);
  emit finished(0);
}

void OpenBenchmark::report(const QString& what, std::vector<double> times) {
  std::sort(times.begin(), times.end());
  std::printf("%s: %zu, median %.1f ms, p95 %.1f ms, max %.1f ms (target < %.0f ms)\n",
              qPrintable(what), times.size(), percentile(times, 0.5), percentile(times, 0.95),
              times.back(), kTargetFrameMs);
}

std::vector<double> OpenBenchmark::run_frames() {
  GraphCanvas& canvas = window_->graph_panel().canvas();
  std::vector<double> times;
  times.reserve(4 * kStepsPerPhase);
  const auto frame = [&](auto&& change) {
    QElapsedTimer timer;
    timer.start();
    change();
    canvas.viewport()->repaint();
    times.push_back(milliseconds(timer));
  };
  for (int i = 0; i < kStepsPerPhase; ++i) {
    frame([&] { zoom_around_centre(canvas, kZoomStep); });
  }
  for (int i = 0; i < kStepsPerPhase; ++i) {
    frame([&] { pan(canvas, kPanStepPixels, kPanStepPixels); });
  }
  for (int i = 0; i < kStepsPerPhase; ++i) {
    frame([&] { zoom_around_centre(canvas, 1 / kZoomStep); });
  }
  for (int i = 0; i < kStepsPerPhase; ++i) {
    frame([&] { pan(canvas, -kPanStepPixels, -kPanStepPixels); });
  }
  return times;
}

void OpenBenchmark::fail(const QString& message) {
  std::fprintf(stderr, "fxscope: %s\n", qPrintable(message));
  emit finished(1);
}

}  // namespace fxscope::views
