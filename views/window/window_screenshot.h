#pragma once
// `fxscope PATH [--unit ID] --screenshot FILE.png`: waits for the window's log, selects the
// first compile unit (or ID), waits for its graph (and for a directory's ranks), grabs the window
// into FILE and reports an exit code. Offscreen.

#include <QDockWidget>
#include <QObject>
#include <QPointer>
#include <QString>

namespace fxscope::views {

class GpuRunController;
class MainWindow;

class WindowScreenshot : public QObject {
  Q_OBJECT

 public:
  // Connects to WINDOW before it starts loading, so no outcome is missed.
  WindowScreenshot(MainWindow* window, QString file, QObject* parent = nullptr);
  // Before the grab, selects the first node whose name or op contains TEXT, so that the
  // picture shows the inspector too.
  void set_find(const QString& text) { find_ = text; }
  // Selects the unit with compile id ID ("3/1") instead of the first one; an id the log lacks
  // fails with the ids it has, so a docs script learns what to ask for.
  void set_unit(const QString& id) { unit_ = id; }
  // With a run loading (`--run RUN.json`), grabs only once RUNS has it, so the picture shows its
  // timings; a run that fails to load fails the screenshot with its message.
  void wait_for_run(GpuRunController* runs);
  // With a comparison loading (`--compare LOG`), grabs only once the window shows it; one that
  // fails (an unreadable log) fails the screenshot with its message.
  void wait_for_comparison();
  // Brings DOCK to the front of its tabs right before the grab (`--dock NAME`), after whatever
  // loading raised in between (a loaded run brings the Kernels tab forward), and gives it half
  // the window across its side: the dock is what the picture is of, and its tables and source
  // lines are cut off at the default layout's size.
  void set_dock(QDockWidget* dock) { dock_ = dock; }

 signals:
  // 0 when FILE was written; otherwise the message went to stderr first.
  void finished(int exit_code);

 private:
  void grab_when_ready();
  void show_dock();
  void grab_window();
  void fail(const QString& message);

  QPointer<MainWindow> window_;
  QString file_;
  QString find_;
  QString unit_;
  QPointer<QDockWidget> dock_;
  bool graph_shown_ = false;
  bool run_pending_ = false;
  bool comparison_pending_ = false;
  bool grabbed_ = false;
};

}  // namespace fxscope::views
