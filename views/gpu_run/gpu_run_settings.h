#pragma once
// How "Run on GPU" starts `fxscope-cli run`: which executable, a command prefix that runs it on
// another host (`ssh gpu-box`), the backend, the Python with PyTorch and whether PyTorch may use
// TF32. Kept in QSettings.

#include <QString>
#include <QStringList>

class QSettings;

namespace fxscope::views {

struct GpuRunSettings {
  QString executable;      // empty: fxscope-cli beside the app (or in the build tree)
  QString command_prefix;  // split like a shell line: "ssh gpu-box", "env CUDA_VISIBLE_DEVICES=1"
  QString backend = QStringLiteral("pytorch");
  QString python;  // empty: the CLI's default (python3)
  // The PyTorch backend's convolutions and matmuls in TF32 (`--allow-tf32`); off: full FP32, as
  // the engine runs. Not passed to the engine backend, which refuses it.
  bool allow_tf32 = false;

  static GpuRunSettings load(const QSettings& settings);
  void save(QSettings& settings) const;

  // The executable to start when none is set: fxscope-cli in the app's folder, else in the
  // build tree's app/cli, else the name alone (found on PATH, or on the remote host).
  static QString default_executable();
  QString resolved_executable() const;

  // The whole command line: prefix, executable and `run LOG --unit ID --mode all --json ...`.
  QStringList command(const QString& log_path, const QString& unit) const;
};

}  // namespace fxscope::views
