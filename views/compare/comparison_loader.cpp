#include "compare/comparison_loader.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

namespace fxscope::views {

ComparisonLoader::ComparisonLoader(QObject* parent) : QObject(parent) {}

void ComparisonLoader::compare(LoadedLogPtr before, const QString& after_path) {
  const std::uint64_t generation = ++generation_;
  // A child watcher and the loader as the connection's context: a window closed first drops
  // the result.
  auto* watcher = new QFutureWatcher<Result<ComparisonPtr>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    if (generation != generation_) return;
    const Result<ComparisonPtr> result = watcher->result();
    if (result) {
      emit loaded(*result);
    } else {
      emit failed(QString::fromStdString(result.error().message));
    }
  });
  watcher->setFuture(
      QtConcurrent::run([before = std::move(before), path = after_path.toStdString()] {
        return compare_logs(before, path);
      }));
}

void ComparisonLoader::cancel() {
  ++generation_;
}

}  // namespace fxscope::views
