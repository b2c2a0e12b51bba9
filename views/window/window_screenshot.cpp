#include "window/window_screenshot.h"

#include <QPixmap>
#include <QStatusBar>
#include <QTimer>
#include <cstdio>
#include <utility>

#include "gpu_run/gpu_run_controller.h"
#include "panels/graph_panel.h"
#include "panels/ranks_panel.h"
#include "window/main_window.h"

namespace fxscope::views {

WindowScreenshot::WindowScreenshot(MainWindow* window, QString file, QObject* parent)
    : QObject(parent), window_(window), file_(std::move(file)) {
  connect(window, &MainWindow::log_loaded, this, [this] {
    if (!unit_.isEmpty()) {
      if (!window_->select_unit(unit_)) {
        const QStringList ids = window_->unit_ids();
        fail(ids.isEmpty() ? tr("no compile unit %1: the log has none").arg(unit_)
                           : tr("no compile unit %1: the log has %2")
                                 .arg(unit_, ids.join(QStringLiteral(", "))));
      }
      return;
    }
    if (!window_->select_first_unit()) {
      fail(tr("the log has no compile unit to show"));
      return;
    }
  });
  // Selecting the unit starts its layout on a worker; the grab waits for the drawn graph, then
  // for the queued events that lay out the selection and the new column widths.
  connect(&window->graph_panel(), &GraphPanel::graph_shown, this, [this] {
    graph_shown_ = true;
    grab_when_ready();
  });
  connect(window, &MainWindow::load_failed, this, &WindowScreenshot::fail);
  // A directory of ranks reads every rank after its first one shows: the picture waits for the
  // Ranks tab's table, which is then filled or says why not.
  connect(&window->ranks_panel(), &RanksPanel::loaded, this, &WindowScreenshot::grab_when_ready);
  connect(&window->ranks_panel(), &RanksPanel::failed, this, &WindowScreenshot::grab_when_ready);
}

void WindowScreenshot::wait_for_run(GpuRunController* runs) {
  run_pending_ = true;
  // Connected after the window's own handler, so the panel holds the run when this one runs.
  connect(runs, &GpuRunController::run_loaded, this, [this] {
    run_pending_ = false;
    grab_when_ready();
  });
  connect(runs, &GpuRunController::failed, this, &WindowScreenshot::fail);
}

void WindowScreenshot::wait_for_comparison() {
  comparison_pending_ = true;
  connect(window_, &MainWindow::comparison_loaded, this, [this] {
    comparison_pending_ = false;
    grab_when_ready();
  });
  connect(window_, &MainWindow::comparison_failed, this, &WindowScreenshot::fail);
}

void WindowScreenshot::grab_when_ready() {
  if (!window_ || !graph_shown_ || run_pending_ || comparison_pending_ || grabbed_ ||
      window_->ranks_panel().loading()) {
    return;
  }
  grabbed_ = true;
  show_dock();
  // Queued: the new dock sizes and column widths are laid out before the grab.
  QTimer::singleShot(0, this, &WindowScreenshot::grab_window);
}

void WindowScreenshot::show_dock() {
  if (!dock_ || !window_) return;
  dock_->raise();
  const Qt::DockWidgetArea area = window_->dockWidgetArea(dock_);
  const bool beside = area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea;
  window_->resizeDocks({dock_.data()}, {beside ? window_->width() / 2 : window_->height() / 2},
                       beside ? Qt::Horizontal : Qt::Vertical);
}

void WindowScreenshot::grab_window() {
  if (!window_) return fail(tr("the window closed before its screenshot"));
  if (!find_.isEmpty() && !window_->graph_panel().search(find_)) {
    return fail(tr("no node matches %1").arg(find_));
  }
  const QPixmap pixmap = window_->grab();
  if (!pixmap.save(file_, "PNG")) return fail(tr("cannot write %1").arg(file_));
  // What the shown graph is and how long it took, for docs scripts and the benchmark notes.
  std::printf("%s\n", qPrintable(window_->statusBar()->currentMessage()));
  // And where the colours come from, when a run is shown: what a docs script checks after --run.
  const HeatOverlay& heat = window_->graph_panel().heat();
  if (heat.mode != nullptr) std::printf("%s\n", heat.source().c_str());
  emit finished(0);
}

void WindowScreenshot::fail(const QString& message) {
  std::fprintf(stderr, "fxscope: %s\n", qPrintable(message));
  emit finished(1);
}

}  // namespace fxscope::views
