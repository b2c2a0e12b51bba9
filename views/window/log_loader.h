#pragma once
// Loads logs on Qt's thread pool and hands the result back on the UI thread as a value.

#include <QObject>
#include <QString>
#include <cstdint>

#include "window/loaded_log.h"

namespace fxscope::views {

// The newest request wins: a load started while another runs makes the older one's result be
// dropped when it arrives, so a slow big log never replaces the one the user opened after it.
class LogLoader : public QObject {
  Q_OBJECT

 public:
  explicit LogLoader(QObject* parent = nullptr);

  void load(const QString& path);
  bool loading() const { return !newest_finished_; }

 signals:
  void started(const QString& path);
  void loaded(fxscope::views::LoadedLogPtr log);
  void failed(const QString& message);

 private:
  std::uint64_t generation_ = 0;
  bool newest_finished_ = true;
};

}  // namespace fxscope::views
