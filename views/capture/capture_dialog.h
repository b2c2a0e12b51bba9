#pragma once
// File > Capture...: the command line, working directory and extra environment of the user's
// program, its output as it runs with a busy bar, Stop, and the captured folder opened in the
// window when the program ends well. A program that failed or was stopped leaves its verdict
// and, when it wrote a log, Open Log.

#include <QDialog>

#include "capture/capture_request.h"
#include "capture/capture_session.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace fxscope::views {

class CaptureDialog : public QDialog {
  Q_OBJECT

 public:
  // Starts with the request of the last capture (QSettings).
  explicit CaptureDialog(QWidget* parent = nullptr);

  CaptureRequest request() const;
  void set_request(const CaptureRequest& request);
  // As the Capture button: saves the request and starts the program.
  bool capture();
  CaptureSession& session() const { return *session_; }
  QString output_text() const;
  QString status_text() const;

  // Closing while the program runs stops it first; the dialog closes once it has ended.
  void reject() override;

 signals:
  void open_requested(const QString& dir);

 private:
  void browse_working_dir();
  void on_finished(const CaptureResult& result);
  void on_failed(const QString& message);
  void set_running(bool running);

  CaptureSession* session_;
  QLineEdit* command_;
  QLineEdit* working_dir_;
  QLineEdit* extra_env_;
  QPlainTextEdit* output_;
  QProgressBar* busy_;
  QLabel* status_;
  QPushButton* capture_button_;
  QPushButton* stop_button_;
  QPushButton* open_button_;
  QPushButton* close_button_;
  QString last_dir_;  // the folder of the last capture that wrote a log
  bool close_when_ended_ = false;
};

}  // namespace fxscope::views
