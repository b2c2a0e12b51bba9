#include "gpu_run/gpu_run_controller.h"

#include <QAction>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QMenu>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSettings>
#include <QtConcurrent/QtConcurrentRun>

#include "context/view_context.h"
#include "gpu_run/gpu_run_settings_dialog.h"
#include "layout/heat_overlay.h"

namespace fxscope::views {
namespace {

struct Loaded {
  RunResultPtr run;
  QString error;
};

}  // namespace

GpuRunController::GpuRunController(QWidget* window, ViewContext& context)
    : QObject(window), window_(window), context_(context), runner_(new GpuRunner(this)) {
  setObjectName(QStringLiteral("gpu_run_controller"));
  settings_ = GpuRunSettings::load(QSettings());
  connect(runner_, &GpuRunner::progress, this, [this](const QString& line) {
    if (progress_) progress_->setLabelText(line);
    emit status(tr("GPU run: %1").arg(line));
  });
  connect(runner_, &GpuRunner::finished, this, &GpuRunController::on_finished);
  connect(runner_, &GpuRunner::failed, this, &GpuRunController::on_failed);
}

void GpuRunController::add_actions(QMenu* menu) {
  run_action_ = menu->addAction(tr("&Run on GPU"), this, [this] { run_shown_unit(); });
  run_action_->setObjectName(QStringLiteral("run_on_gpu"));
  run_action_->setShortcut(QKeySequence(tr("Ctrl+R")));
  run_action_->setStatusTip(tr("Re-run the shown compile unit in every mode with fxscope-cli run"));
  cancel_action_ = menu->addAction(tr("&Cancel GPU Run"), this, &GpuRunController::cancel);
  cancel_action_->setEnabled(false);
  menu->addAction(tr("Open Run &JSON..."), this, &GpuRunController::open_run_dialog);
  menu->addSeparator();
  menu->addAction(tr("GPU Run &Settings..."), this, &GpuRunController::edit_settings);
}

void GpuRunController::set_settings(const GpuRunSettings& settings) {
  settings_ = settings;
  QSettings stored;
  settings_.save(stored);
}

bool GpuRunController::run_shown_unit() {
  const CanvasGraphPtr& graph = context_.graph();
  if (!context_.log() || !graph || graph->compile_id.empty()) {
    on_failed(tr("Select a compile unit to run first."));
    return false;
  }
  const QString log_path = QString::fromStdString(context_.log()->summary.path);
  const QStringList argv = settings_.command(log_path, QString::fromStdString(graph->compile_id));
  if (!runner_->start(argv)) return false;
  if (run_action_ != nullptr) run_action_->setEnabled(false);
  if (cancel_action_ != nullptr) cancel_action_->setEnabled(true);
  // Not modal: the graph stays usable while the GPU works (minutes with max-autotune).
  progress_ = new QProgressDialog(tr("Starting fxscope-cli run ..."), tr("Cancel"), 0, 0, window_);
  progress_->setObjectName(QStringLiteral("gpu_run_progress"));
  progress_->setWindowTitle(
      tr("Running %1 on the GPU").arg(QString::fromStdString(graph->compile_id)));
  progress_->setWindowModality(Qt::NonModal);
  progress_->setMinimumWidth(520);
  progress_->setAttribute(Qt::WA_DeleteOnClose);
  connect(progress_, &QProgressDialog::canceled, this, &GpuRunController::cancel);
  progress_->show();
  return true;
}

void GpuRunController::cancel() {
  runner_->cancel();
}

void GpuRunController::close_progress() {
  if (run_action_ != nullptr) run_action_->setEnabled(true);
  if (cancel_action_ != nullptr) cancel_action_->setEnabled(false);
  if (progress_) {
    progress_->disconnect(this);
    progress_->close();
  }
}

void GpuRunController::on_finished(RunResultPtr run) {
  close_progress();
  context_.set_run(run);
  QString message = tr("GPU run of %1 on %2: %3 modes measured")
                        .arg(QString::fromStdString(run->unit), QString::fromStdString(run->device))
                        .arg(run->modes.size());
  // Why the drawn graph keeps its predictions (another unit, a mode not run), as the legend says.
  if (const CanvasGraphPtr& graph = context_.graph()) {
    const std::string mismatch = build_heat_overlay(*graph, run.get()).mismatch;
    if (!mismatch.empty()) message += QStringLiteral("; ") + QString::fromStdString(mismatch);
  }
  emit status(message);
  emit run_loaded(run);
}

void GpuRunController::on_failed(const QString& message) {
  close_progress();
  emit status(message);
  emit failed(message);
  // Window-modal but not blocking: nothing waits on it, and tests can run past it.
  auto* box =
      new QMessageBox(QMessageBox::Warning, tr("GPU run"), message, QMessageBox::Ok, window_);
  box->setObjectName(QStringLiteral("gpu_run_failure"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void GpuRunController::edit_settings() {
  auto* dialog = new GpuRunSettingsDialog(settings_, window_);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] { set_settings(dialog->settings()); });
  dialog->open();
}

void GpuRunController::open_run_dialog() {
  const QString path = QFileDialog::getOpenFileName(
      window_, tr("Open GPU Run JSON"), {}, tr("fxscope-cli run --json (*.json);;All files (*)"));
  if (!path.isEmpty()) load_run_file(path);
}

void GpuRunController::load_run_file(const QString& path) {
  auto* watcher = new QFutureWatcher<Loaded>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    watcher->deleteLater();
    const Loaded loaded = watcher->result();
    if (loaded.run) {
      on_finished(loaded.run);
    } else {
      on_failed(loaded.error);
    }
  });
  watcher->setFuture(QtConcurrent::run([file = path.toStdString()] {
    auto run = report::read_run_result(file);
    if (!run) return Loaded{nullptr, QString::fromStdString(run.error().message)};
    return Loaded{std::make_shared<const report::RunResult>(std::move(*run)), {}};
  }));
}

}  // namespace fxscope::views
