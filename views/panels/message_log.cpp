#include "panels/message_log.h"

#include <QFontDatabase>
#include <QTime>

namespace fxscope::views {

MessageLog::MessageLog(QWidget* parent) : QPlainTextEdit(parent) {
  setObjectName(QStringLiteral("message_log"));
  setReadOnly(true);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  // A log with thousands of bad lines must not grow the document without end.
  setMaximumBlockCount(20000);
}

void MessageLog::add_info(const QString& text) {
  add(QStringLiteral("info"), text);
}

void MessageLog::add_warning(const QString& text) {
  add(QStringLiteral("warning"), text);
}

void MessageLog::add_error(const QString& text) {
  add(QStringLiteral("error"), text);
}

void MessageLog::add(const QString& level, const QString& text) {
  appendPlainText(QStringLiteral("%1  %2: %3")
                      .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), level, text));
}

}  // namespace fxscope::views
