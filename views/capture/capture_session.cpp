#include "capture/capture_session.h"

#include <QDir>
#include <QFileInfo>

#include "fxscope/trace/capture.h"
#include "process/line_process.h"

namespace fxscope::views {
namespace {

// How long a stopped program has to end (and stop its children) before it is killed.
constexpr int kStopGraceMs = 3000;

}  // namespace

CaptureSession::CaptureSession(QObject* parent)
    : QObject(parent), process_(new LineProcess(LineProcess::Lines::kMerged, this)) {
  connect(process_, &LineProcess::line, this, &CaptureSession::output);
  connect(process_, &LineProcess::ended, this, &CaptureSession::on_ended);
  connect(process_, &LineProcess::failed_to_start, this, [this](const QString& message) {
    QDir().rmdir(dir_);  // made for this run, still empty: not left behind
    emit failed(message);
  });
}

bool CaptureSession::running() const {
  return process_->running();
}

bool CaptureSession::start(const CaptureRequest& request) {
  const auto refuse = [this](const QString& message) {
    emit failed(message);
    return false;
  };
  if (running()) return refuse(tr("a capture is already running; stop it first"));
  const QStringList argv = request.argv();
  if (argv.isEmpty()) return refuse(tr("no command to run: enter one such as python3 train.py"));
  QString bad_variable;
  request.extra_variables(&bad_variable);
  if (!bad_variable.isEmpty()) return refuse(bad_variable);
  const QString work_dir = request.working_dir.trimmed();
  if (!work_dir.isEmpty() && !QFileInfo(work_dir).isDir()) {
    return refuse(tr("working directory %1: no such folder").arg(work_dir));
  }
  const auto made = trace::make_capture_dir(QDir::tempPath().toStdString());
  if (!made) return refuse(QString::fromStdString(made.error().message));
  dir_ = QString::fromStdString(*made);
  program_ = argv.front();
  emit output(tr("capturing into %1 (TORCH_TRACE)").arg(dir_));
  return process_->start(argv, request.environment(dir_), work_dir);
}

void CaptureSession::cancel() {
  process_->cancel(kStopGraceMs);
}

void CaptureSession::on_ended(int exit_code, bool crashed, bool cancelled) {
  ChildExit exit;
  (crashed ? exit.signal : exit.code) = exit_code;
  const auto outcome = trace::capture_outcome(dir_.toStdString(), exit);
  CaptureResult result;
  result.dir = dir_;
  result.verdict = QString::fromStdString(outcome.verdict(program_.toStdString()));
  if (cancelled) result.verdict = tr("stopped: %1").arg(result.verdict);
  result.has_log = outcome.has_log();
  result.success = outcome.success() && !cancelled;
  result.cancelled = cancelled;
  emit finished(result);
}

}  // namespace fxscope::views
