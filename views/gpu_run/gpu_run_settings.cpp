#include "gpu_run/gpu_run_settings.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QSettings>

namespace fxscope::views {
namespace {

const QString kExecutable = QStringLiteral("gpu_run/executable");
const QString kPrefix = QStringLiteral("gpu_run/command_prefix");
const QString kBackend = QStringLiteral("gpu_run/backend");
const QString kPython = QStringLiteral("gpu_run/python");
const QString kAllowTf32 = QStringLiteral("gpu_run/allow_tf32");

}  // namespace

GpuRunSettings GpuRunSettings::load(const QSettings& settings) {
  GpuRunSettings s;
  s.executable = settings.value(kExecutable).toString();
  s.command_prefix = settings.value(kPrefix).toString();
  s.backend = settings.value(kBackend, s.backend).toString();
  s.python = settings.value(kPython).toString();
  s.allow_tf32 = settings.value(kAllowTf32, false).toBool();
  return s;
}

void GpuRunSettings::save(QSettings& settings) const {
  settings.setValue(kExecutable, executable);
  settings.setValue(kPrefix, command_prefix);
  settings.setValue(kBackend, backend);
  settings.setValue(kPython, python);
  settings.setValue(kAllowTf32, allow_tf32);
}

QString GpuRunSettings::default_executable() {
  const QDir app(QCoreApplication::applicationDirPath());
  for (const QString& candidate : {app.filePath(QStringLiteral("fxscope-cli")),
                                   app.filePath(QStringLiteral("../cli/fxscope-cli"))}) {
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
  }
  return QStringLiteral("fxscope-cli");
}

QString GpuRunSettings::resolved_executable() const {
  return executable.trimmed().isEmpty() ? default_executable() : executable.trimmed();
}

QStringList GpuRunSettings::command(const QString& log_path, const QString& unit) const {
  QStringList argv = QProcess::splitCommand(command_prefix);
  argv << resolved_executable() << QStringLiteral("run") << log_path;
  if (!unit.isEmpty()) argv << QStringLiteral("--unit") << unit;
  argv << QStringLiteral("--mode") << QStringLiteral("all") << QStringLiteral("--json");
  if (!backend.trimmed().isEmpty()) argv << QStringLiteral("--backend") << backend.trimmed();
  if (!python.trimmed().isEmpty()) argv << QStringLiteral("--python") << python.trimmed();
  if (allow_tf32 && backend.trimmed() == QStringLiteral("pytorch")) {
    argv << QStringLiteral("--allow-tf32");
  }
  return argv;
}

}  // namespace fxscope::views
