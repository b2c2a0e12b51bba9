#pragma once
// "Run on GPU" and its neighbours in the Run menu: starts `fxscope-cli run` on the shown compile
// unit through a GpuRunner, shows its progress with Cancel, sets the finished run on the view
// context (heat overlay, Kernels and A/B tabs), loads a saved run JSON, and edits the settings.
// Failures are a message; the window stays as it was.

#include <QObject>
#include <QPointer>

#include "gpu_run/gpu_run_settings.h"
#include "gpu_run/gpu_runner.h"

class QAction;
class QMenu;
class QProgressDialog;
class QWidget;

namespace fxscope::views {

class ViewContext;

class GpuRunController : public QObject {
  Q_OBJECT

 public:
  // WINDOW parents the dialogs; CONTEXT gives the unit shown and takes the run. Settings are
  // read from (and saved to) the default QSettings.
  GpuRunController(QWidget* window, ViewContext& context);

  void add_actions(QMenu* menu);
  // Runs the shown unit; false (with failed()) when there is none or a run is going.
  bool run_shown_unit();
  void cancel();
  // Reads a run saved with `fxscope-cli run --json > FILE` off the UI thread.
  void load_run_file(const QString& path);
  bool running() const { return runner_->running(); }
  const GpuRunSettings& settings() const { return settings_; }
  void set_settings(const GpuRunSettings& settings);
  GpuRunner& runner() const { return *runner_; }

 signals:
  void status(const QString& message);
  void failed(const QString& message);
  void run_loaded(fxscope::views::RunResultPtr run);

 private:
  void edit_settings();
  void open_run_dialog();
  void on_finished(RunResultPtr run);
  void on_failed(const QString& message);
  void close_progress();

  QWidget* window_;
  ViewContext& context_;
  GpuRunner* runner_;
  GpuRunSettings settings_;
  QPointer<QProgressDialog> progress_;
  QAction* run_action_ = nullptr;
  QAction* cancel_action_ = nullptr;
};

}  // namespace fxscope::views
