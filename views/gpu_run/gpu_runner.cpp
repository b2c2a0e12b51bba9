#include "gpu_run/gpu_runner.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

#include "process/line_process.h"

namespace fxscope::views {

GpuRunner::GpuRunner(QObject* parent)
    : QObject(parent), process_(new LineProcess(LineProcess::Lines::kStderr, this)) {
  connect(process_, &LineProcess::line, this, &GpuRunner::progress);
  connect(process_, &LineProcess::ended, this, &GpuRunner::on_ended);
  connect(process_, &LineProcess::failed_to_start, this, &GpuRunner::failed);
}

bool GpuRunner::running() const {
  return process_->running();
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
  emit progress(tr("starting %1").arg(argv.join(QLatin1Char(' '))));
  return process_->start(argv);
}

void GpuRunner::cancel() {
  process_->cancel();  // on_ended reports the cancel
}

void GpuRunner::on_ended(int exit_code, bool crashed, bool cancelled) {
  const QString said = process_->last_words();
  if (cancelled) {
    emit failed(tr("GPU run cancelled"));
  } else if (crashed) {
    emit failed(tr("fxscope-cli run crashed%1").arg(said.isEmpty() ? QString() : ": " + said));
  } else if (exit_code != 0) {
    emit failed(tr("fxscope-cli run failed (exit status %1)%2")
                    .arg(exit_code)
                    .arg(said.isEmpty() ? QString() : ": " + said));
  } else {
    parse(process_->take_output());
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

}  // namespace fxscope::views
