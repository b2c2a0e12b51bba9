#pragma once
// Edits GpuRunSettings: the executable, the command prefix, the backend, the Python and TF32; shows
// the command line that "Run on GPU" will start as the fields change.

#include <QDialog>

#include "gpu_run/gpu_run_settings.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace fxscope::views {

class GpuRunSettingsDialog : public QDialog {
  Q_OBJECT

 public:
  explicit GpuRunSettingsDialog(const GpuRunSettings& settings, QWidget* parent = nullptr);

  GpuRunSettings settings() const;

 private:
  void update_preview();

  QLineEdit* executable_ = nullptr;
  QLineEdit* prefix_ = nullptr;
  QComboBox* backend_ = nullptr;
  QLineEdit* python_ = nullptr;
  QCheckBox* tf32_ = nullptr;
  QLabel* preview_ = nullptr;
};

}  // namespace fxscope::views
