#include "capture/capture_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>

#include "fxscope/trace/capture.h"

namespace fxscope::views {
namespace {

// A long training run prints without end; the view keeps its last lines.
constexpr int kOutputLinesKept = 20000;

}  // namespace

CaptureDialog::CaptureDialog(QWidget* parent)
    : QDialog(parent), session_(new CaptureSession(this)) {
  setWindowTitle(tr("Capture a TORCH_TRACE Log"));
  setObjectName(QStringLiteral("capture_dialog"));

  command_ = new QLineEdit(this);
  command_->setObjectName(QStringLiteral("capture_command"));
  command_->setPlaceholderText(tr("python3 train.py --steps 3"));
  working_dir_ = new QLineEdit(this);
  working_dir_->setObjectName(QStringLiteral("capture_working_dir"));
  working_dir_->setPlaceholderText(QDir::currentPath());
  auto* browse = new QToolButton(this);
  browse->setText(tr("..."));
  browse->setToolTip(tr("Choose the working directory"));
  connect(browse, &QToolButton::clicked, this, &CaptureDialog::browse_working_dir);
  auto* dir_row = new QHBoxLayout;
  dir_row->addWidget(working_dir_);
  dir_row->addWidget(browse);
  extra_env_ = new QLineEdit(this);
  extra_env_->setObjectName(QStringLiteral("capture_extra_env"));
  extra_env_->setPlaceholderText(tr("optional: CUDA_VISIBLE_DEVICES=0 MY_FLAG=1"));
  auto* note = new QLabel(tr("The program runs with TORCH_TRACE set to a new folder under %1. %2")
                              .arg(QDir::tempPath(), QString::fromUtf8(trace::kCaptureCacheNote)),
                          this);
  note->setWordWrap(true);
  note->setEnabled(false);  // drawn dimmed: an explanation, not a control

  output_ = new QPlainTextEdit(this);
  output_->setObjectName(QStringLiteral("capture_output"));
  output_->setReadOnly(true);
  output_->setMaximumBlockCount(kOutputLinesKept);
  output_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  output_->setPlaceholderText(tr("The program's output appears here as it runs."));
  busy_ = new QProgressBar(this);
  busy_->setObjectName(QStringLiteral("capture_busy"));
  busy_->setRange(0, 0);  // a program says nothing of how far it is
  busy_->setMaximumWidth(160);
  busy_->setVisible(false);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("capture_status"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* buttons = new QDialogButtonBox(this);
  capture_button_ = buttons->addButton(tr("&Capture"), QDialogButtonBox::ActionRole);
  capture_button_->setObjectName(QStringLiteral("capture_start"));
  capture_button_->setDefault(true);
  stop_button_ = buttons->addButton(tr("&Stop"), QDialogButtonBox::ActionRole);
  stop_button_->setObjectName(QStringLiteral("capture_stop"));
  open_button_ = buttons->addButton(tr("&Open Log"), QDialogButtonBox::ActionRole);
  open_button_->setObjectName(QStringLiteral("capture_open"));
  open_button_->setEnabled(false);
  close_button_ = buttons->addButton(QDialogButtonBox::Close);
  connect(capture_button_, &QPushButton::clicked, this, &CaptureDialog::capture);
  connect(stop_button_, &QPushButton::clicked, session_, &CaptureSession::cancel);
  connect(open_button_, &QPushButton::clicked, this, [this] {
    emit open_requested(last_dir_);
    accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &CaptureDialog::reject);

  auto* form = new QFormLayout;
  form->addRow(tr("Command"), command_);
  form->addRow(tr("Working directory"), dir_row);
  form->addRow(tr("Environment"), extra_env_);
  form->addRow(note);
  auto* button_row = new QHBoxLayout;
  button_row->addWidget(busy_);
  button_row->addWidget(buttons, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(output_, 1);
  layout->addWidget(status_);
  layout->addLayout(button_row);

  connect(session_, &CaptureSession::output, output_, &QPlainTextEdit::appendPlainText);
  connect(session_, &CaptureSession::finished, this, &CaptureDialog::on_finished);
  connect(session_, &CaptureSession::failed, this, &CaptureDialog::on_failed);
  set_request(CaptureRequest::load(QSettings()));
  set_running(false);
  resize(760, 520);
}

CaptureRequest CaptureDialog::request() const {
  return {command_->text().trimmed(), working_dir_->text().trimmed(), extra_env_->text().trimmed()};
}

void CaptureDialog::set_request(const CaptureRequest& request) {
  command_->setText(request.command);
  working_dir_->setText(request.working_dir);
  extra_env_->setText(request.extra_env);
}

bool CaptureDialog::capture() {
  const CaptureRequest r = request();
  QSettings stored;
  r.save(stored);
  output_->clear();
  open_button_->setEnabled(false);
  status_->setText(tr("Running %1 ...").arg(r.command));
  if (!session_->start(r)) return false;
  // A program that could not start has already said so.
  if (session_->running()) set_running(true);
  return true;
}

QString CaptureDialog::output_text() const {
  return output_->toPlainText();
}

QString CaptureDialog::status_text() const {
  return status_->text();
}

void CaptureDialog::reject() {
  if (session_->running()) {
    close_when_ended_ = true;
    status_->setText(tr("Stopping the program ..."));
    session_->cancel();
    return;
  }
  QDialog::reject();
}

void CaptureDialog::browse_working_dir() {
  const QString dir =
      QFileDialog::getExistingDirectory(this, tr("Working Directory"), working_dir_->text());
  if (!dir.isEmpty()) working_dir_->setText(dir);
}

void CaptureDialog::on_finished(const CaptureResult& result) {
  set_running(false);
  output_->appendPlainText(result.verdict);
  status_->setText(result.verdict);
  if (result.has_log) last_dir_ = result.dir;
  open_button_->setEnabled(result.has_log);
  if (close_when_ended_) {
    QDialog::reject();
  } else if (result.success) {
    emit open_requested(result.dir);
    accept();
  }
}

void CaptureDialog::on_failed(const QString& message) {
  set_running(false);
  status_->setText(message);
  output_->appendPlainText(message);
  if (close_when_ended_) QDialog::reject();
}

void CaptureDialog::set_running(bool running) {
  busy_->setVisible(running);
  capture_button_->setEnabled(!running);
  stop_button_->setEnabled(running);
  for (QLineEdit* field : {command_, working_dir_, extra_env_}) field->setEnabled(!running);
}

}  // namespace fxscope::views
