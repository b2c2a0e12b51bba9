#include "gpu_run/gpu_runner.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

namespace fxscope::views {
namespace {

// What a failure message quotes of the child's stderr: its own one-line error is the last line.
constexpr qsizetype kLinesKept = 3;

}  // namespace

GpuRunner::GpuRunner(QObject* parent) : QObject(parent) {}

GpuRunner::~GpuRunner() {
  if (process_ != nullptr) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(1000);
  }
}

bool GpuRunner::start(const QStringList& argv) {
  if (running()) {
    emit failed(tr("a GPU run is already going; cancel it first"));
    return false;
  }
  if (argv.isEmpty()) {
    emit failed(tr("no command to run"));
    return false;
  }
  cancelled_ = false;
  stderr_tail_.clear();
  last_lines_.clear();
  program_ = argv.front();
  process_ = new QProcess(this);
  process_->setProgram(program_);
  process_->setArguments(argv.mid(1));
  connect(process_, &QProcess::readyReadStandardError, this, &GpuRunner::read_stderr);
  connect(process_, &QProcess::finished, this, &GpuRunner::on_finished);
  connect(process_, &QProcess::errorOccurred, this, &GpuRunner::on_error);
  emit progress(tr("starting %1").arg(argv.join(QLatin1Char(' '))));
  process_->start();
  return true;
}

void GpuRunner::cancel() {
  if (!running()) return;
  cancelled_ = true;
  process_->kill();  // on_finished reports the cancel
}

void GpuRunner::read_stderr() {
  stderr_tail_ += process_->readAllStandardError();
  qsizetype newline = 0;
  while ((newline = stderr_tail_.indexOf('\n')) >= 0) {
    const QString line = QString::fromUtf8(stderr_tail_.left(newline)).trimmed();
    stderr_tail_.remove(0, newline + 1);
    if (line.isEmpty()) continue;
    last_lines_ << line;
    if (last_lines_.size() > kLinesKept) last_lines_.removeFirst();
    emit progress(line);
  }
}

void GpuRunner::on_error(QProcess::ProcessError error) {
  // A child that started and then crashed also ends in finished(); only a failed start does not.
  if (error != QProcess::FailedToStart || process_ == nullptr) return;
  const QString message = tr("could not start %1: %2").arg(program_, process_->errorString());
  end();
  emit failed(message);
}

void GpuRunner::on_finished(int exit_code, QProcess::ExitStatus status) {
  read_stderr();
  if (!stderr_tail_.trimmed().isEmpty()) last_lines_ << QString::fromUtf8(stderr_tail_).trimmed();
  QByteArray out = process_->readAllStandardOutput();
  const QString said = last_lines_.isEmpty() ? QString() : last_lines_.join(QStringLiteral(" | "));
  end();
  if (cancelled_) {
    emit failed(tr("GPU run cancelled"));
  } else if (status == QProcess::CrashExit) {
    emit failed(tr("fxscope-cli run crashed%1").arg(said.isEmpty() ? QString() : ": " + said));
  } else if (exit_code != 0) {
    emit failed(tr("fxscope-cli run failed (exit status %1)%2")
                    .arg(exit_code)
                    .arg(said.isEmpty() ? QString() : ": " + said));
  } else {
    parse(std::move(out));
  }
}

void GpuRunner::parse(QByteArray json) {
  // QFuture wants a default-constructible result, which Result<T> is not.
  struct Parsed {
    RunResultPtr run;
    QString error;
  };
  auto* watcher = new QFutureWatcher<Parsed>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [self = QPointer<GpuRunner>(this), watcher] {
            watcher->deleteLater();
            if (!self) return;
            const Parsed parsed = watcher->result();
            if (parsed.run) {
              emit self->finished(parsed.run);
            } else {
              emit self->failed(parsed.error);
            }
          });
  watcher->setFuture(QtConcurrent::run([json = std::move(json)] {
    auto run =
        report::parse_run_result(std::string_view(json.constData(), std::size_t(json.size())),
                                 "the output of fxscope-cli run");
    if (!run) return Parsed{nullptr, QString::fromStdString(run.error().message)};
    return Parsed{std::make_shared<const report::RunResult>(std::move(*run)), {}};
  }));
}

void GpuRunner::end() {
  process_->disconnect(this);
  process_->deleteLater();
  process_ = nullptr;
}

}  // namespace fxscope::views
