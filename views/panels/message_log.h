#pragma once
// The "Log" tab: what happened while loading, and every warning the engine met in the log.

#include <QPlainTextEdit>

namespace fxscope::views {

class MessageLog : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit MessageLog(QWidget* parent = nullptr);

  void add_info(const QString& text);
  void add_warning(const QString& text);
  void add_error(const QString& text);

 private:
  void add(const QString& level, const QString& text);
};

}  // namespace fxscope::views
