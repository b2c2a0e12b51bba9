#pragma once
// `fxscope PATH --screenshot FILE.png`: waits for the window's log, selects the first compile
// unit, grabs the window into FILE and reports an exit code. Used by docs and tests, offscreen.

#include <QObject>
#include <QPointer>
#include <QString>

namespace fxscope::views {

class MainWindow;

class WindowScreenshot : public QObject {
  Q_OBJECT

 public:
  // Connects to WINDOW before it starts loading, so no outcome is missed.
  WindowScreenshot(MainWindow* window, QString file, QObject* parent = nullptr);

 signals:
  // 0 when FILE was written; otherwise the message went to stderr first.
  void finished(int exit_code);

 private:
  void grab_window();
  void fail(const QString& message);

  QPointer<MainWindow> window_;
  QString file_;
};

}  // namespace fxscope::views
