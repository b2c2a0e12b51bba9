#include "window/log_loader.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace fxscope::views {

LogLoader::LogLoader(QObject* parent) : QObject(parent) {}

void LogLoader::load(const QString& path) {
  const std::uint64_t generation = ++generation_;
  newest_finished_ = false;
  emit started(path);

  // The watcher is a child of the loader and the connection's context is the loader: when the
  // window goes away first, the worker still finishes but its result reaches no one.
  auto* watcher = new QFutureWatcher<Result<LoadedLogPtr>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    if (generation != generation_) return;
    newest_finished_ = true;
    const Result<LoadedLogPtr> result = watcher->result();
    if (result) {
      emit loaded(*result);
    } else {
      emit failed(QString::fromStdString(result.error().message));
    }
  });
  watcher->setFuture(QtConcurrent::run([p = path.toStdString()] { return load_log(p); }));
}

}  // namespace fxscope::views
