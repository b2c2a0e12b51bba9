#pragma once
// Reads and diffs the second log of File > Compare with... on Qt's thread pool, like LogLoader
// reads the first; the result comes back on the UI thread as a value.

#include <QObject>
#include <QString>
#include <cstdint>

#include "compare/comparison.h"

namespace fxscope::views {

// The newest request wins; cancel() drops the one under way (the comparison was cleared, or
// another log opened, so its result would describe a log no longer shown).
class ComparisonLoader : public QObject {
  Q_OBJECT

 public:
  explicit ComparisonLoader(QObject* parent = nullptr);

  void compare(LoadedLogPtr before, const QString& after_path);
  void cancel();

 signals:
  void loaded(fxscope::views::ComparisonPtr comparison);
  void failed(const QString& message);

 private:
  std::uint64_t generation_ = 0;
};

}  // namespace fxscope::views
