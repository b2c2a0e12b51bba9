#include "window_screenshot.h"

#include <QPixmap>
#include <QTimer>
#include <cstdio>
#include <utility>

#include "main_window.h"

namespace fxscope::views {

WindowScreenshot::WindowScreenshot(MainWindow* window, QString file, QObject* parent)
    : QObject(parent), window_(window), file_(std::move(file)) {
  connect(window, &MainWindow::log_loaded, this, [this] {
    if (!window_->select_first_unit()) {
      fail(tr("the log has no compile unit to show"));
      return;
    }
    // The selection and the new column widths are laid out by queued events: grab after them.
    QTimer::singleShot(0, this, &WindowScreenshot::grab_window);
  });
  connect(window, &MainWindow::load_failed, this, &WindowScreenshot::fail);
}

void WindowScreenshot::grab_window() {
  if (!window_) return fail(tr("the window closed before its screenshot"));
  const QPixmap pixmap = window_->grab();
  if (!pixmap.save(file_, "PNG")) return fail(tr("cannot write %1").arg(file_));
  emit finished(0);
}

void WindowScreenshot::fail(const QString& message) {
  std::fprintf(stderr, "fxscope: %s\n", qPrintable(message));
  emit finished(1);
}

}  // namespace fxscope::views
