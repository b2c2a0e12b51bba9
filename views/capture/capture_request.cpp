#include "capture/capture_request.h"

#include <QSettings>
#include <utility>

#include "fxscope/trace/capture.h"

namespace fxscope::views {
namespace {

const QString kCommand = QStringLiteral("capture/command");
const QString kWorkingDir = QStringLiteral("capture/working_dir");
const QString kExtraEnv = QStringLiteral("capture/extra_env");

// Words of LINE as a POSIX shell splits them: blanks separate words, '...' keeps what it holds
// as it is, "..." groups it, a backslash outside '...' takes the next character as it is; no
// expansion, since no shell runs the line. (QProcess::splitCommand knows double quotes only.)
QStringList shell_words(const QString& line) {
  QStringList words;
  QString word;
  bool in_word = false;
  QChar quote;
  for (qsizetype i = 0; i < line.size(); ++i) {
    const QChar c = line[i];
    if (!quote.isNull() && c == quote) {
      quote = QChar();
    } else if (c == QLatin1Char('\\') && quote != QLatin1Char('\'') && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (!quote.isNull()) {
      word += c;
    } else if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
      quote = c;
      in_word = true;
    } else if (c.isSpace()) {
      if (in_word) words << std::exchange(word, QString());
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words << word;
  return words;
}

bool is_assignment(const QString& word) {
  return word.indexOf(QLatin1Char('=')) > 0;
}

}  // namespace

CaptureRequest CaptureRequest::load(const QSettings& settings) {
  CaptureRequest r;
  r.command = settings.value(kCommand).toString();
  r.working_dir = settings.value(kWorkingDir).toString();
  r.extra_env = settings.value(kExtraEnv).toString();
  return r;
}

void CaptureRequest::save(QSettings& settings) const {
  settings.setValue(kCommand, command);
  settings.setValue(kWorkingDir, working_dir);
  settings.setValue(kExtraEnv, extra_env);
}

QStringList CaptureRequest::argv() const {
  return shell_words(command);
}

QStringList CaptureRequest::extra_variables(QString* error) const {
  const QStringList words = shell_words(extra_env);
  error->clear();
  for (const QString& word : words) {
    if (!is_assignment(word)) {
      *error = QStringLiteral("environment: \"%1\" is not NAME=VALUE").arg(word);
      break;
    }
  }
  return words;
}

QProcessEnvironment CaptureRequest::environment(const QString& trace_dir) const {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  QString ignored;
  for (const QString& word : extra_variables(&ignored)) {
    if (!is_assignment(word)) continue;
    const qsizetype eq = word.indexOf(QLatin1Char('='));
    env.insert(word.left(eq), word.mid(eq + 1));
  }
  const auto vars = trace::capture_environment(
      trace_dir.toStdString(),
      [&env](const std::string& name) { return env.contains(QString::fromStdString(name)); });
  for (const auto& v : vars) {
    env.insert(QString::fromStdString(v.name), QString::fromStdString(v.value));
  }
  return env;
}

}  // namespace fxscope::views
