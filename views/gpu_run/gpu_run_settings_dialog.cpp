#include "gpu_run/gpu_run_settings_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>

namespace fxscope::views {

GpuRunSettingsDialog::GpuRunSettingsDialog(const GpuRunSettings& settings, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("GPU Run Settings"));
  setObjectName(QStringLiteral("gpu_run_settings_dialog"));
  executable_ = new QLineEdit(settings.executable, this);
  executable_->setObjectName(QStringLiteral("gpu_run_executable"));
  executable_->setPlaceholderText(GpuRunSettings::default_executable());
  prefix_ = new QLineEdit(settings.command_prefix, this);
  prefix_->setObjectName(QStringLiteral("gpu_run_prefix"));
  prefix_->setPlaceholderText(tr("none: run here; e.g. ssh gpu-box"));
  backend_ = new QComboBox(this);
  backend_->setObjectName(QStringLiteral("gpu_run_backend"));
  backend_->setEditable(true);
  backend_->addItems({QStringLiteral("pytorch"), QStringLiteral("engine")});
  backend_->setCurrentText(settings.backend);
  python_ = new QLineEdit(settings.python, this);
  python_->setObjectName(QStringLiteral("gpu_run_python"));
  python_->setPlaceholderText(tr("python3 (the one with PyTorch)"));
  tf32_ = new QCheckBox(tr("PyTorch's convolutions and matmuls in TF32 (off: full FP32)"), this);
  tf32_->setObjectName(QStringLiteral("gpu_run_allow_tf32"));
  tf32_->setChecked(settings.allow_tf32);
  preview_ = new QLabel(this);
  preview_->setWordWrap(true);
  preview_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* form = new QFormLayout(this);
  form->addRow(tr("fxscope-cli"), executable_);
  form->addRow(tr("Command prefix"), prefix_);
  form->addRow(tr("Backend"), backend_);
  form->addRow(tr("Python"), python_);
  form->addRow(tr("TF32"), tf32_);
  form->addRow(tr("Runs"), preview_);
  form->addRow(buttons);
  for (QLineEdit* edit : {executable_, prefix_, python_}) {
    connect(edit, &QLineEdit::textChanged, this, &GpuRunSettingsDialog::update_preview);
  }
  connect(backend_, &QComboBox::currentTextChanged, this, &GpuRunSettingsDialog::update_preview);
  connect(tf32_, &QCheckBox::toggled, this, &GpuRunSettingsDialog::update_preview);
  update_preview();
  resize(560, sizeHint().height());
}

GpuRunSettings GpuRunSettingsDialog::settings() const {
  return {executable_->text().trimmed(), prefix_->text().trimmed(),
          backend_->currentText().trimmed(), python_->text().trimmed(), tf32_->isChecked()};
}

void GpuRunSettingsDialog::update_preview() {
  preview_->setText(settings().command(tr("LOG"), tr("UNIT")).join(QLatin1Char(' ')));
}

}  // namespace fxscope::views
