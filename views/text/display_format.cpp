#include "text/display_format.h"

#include <QFileInfo>

namespace fxscope::views {
namespace {

const QString kMissing = QStringLiteral("\u2013");

}  // namespace

QString short_location(const std::string& file, int line) {
  return QFileInfo(QString::fromStdString(file)).fileName() + QLatin1Char(':') +
         QString::number(line);
}

QString function_at(const trace::StackFrame& frame, const std::string& producer) {
  if (frame.file.empty()) {
    return producer.empty() ? QStringLiteral("(frame not logged)")
                            : QString::fromStdString(producer);
  }
  return QString::fromStdString(frame.function) + QStringLiteral("  ") +
         short_location(frame.file, frame.line);
}

QString count_text(const std::optional<std::size_t>& count) {
  return count ? QString::number(*count) : kMissing;
}

QString seconds_text(const std::optional<double>& seconds) {
  return seconds ? QStringLiteral("%1 s").arg(*seconds, 0, 'f', 2) : kMissing;
}

}  // namespace fxscope::views
