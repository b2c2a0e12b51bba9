#pragma once
// One capture from the window: makes a fresh folder under the temporary directory, runs the
// user's program there as TORCH_TRACE through a LineProcess (its output as it comes, merged),
// and says how it ended and whether a log was written. Stop sends SIGTERM first, so that a
// launcher such as torchrun can stop its workers.

#include <QObject>
#include <QString>

#include "capture/capture_request.h"

namespace fxscope::views {

class LineProcess;

struct CaptureResult {
  QString dir;
  QString verdict;  // one line: how the program ended and what it wrote
  bool has_log = false;
  bool success = false;  // exited with status 0 and wrote a log
  bool cancelled = false;
};

class CaptureSession : public QObject {
  Q_OBJECT

 public:
  explicit CaptureSession(QObject* parent = nullptr);

  // False, with failed(), when a capture is running or REQUEST cannot be run (no command, a bad
  // variable, no folder could be made); otherwise finished() or failed() follows.
  bool start(const CaptureRequest& request);
  void cancel();
  bool running() const;
  const QString& dir() const { return dir_; }

 signals:
  void output(const QString& line);
  void finished(const fxscope::views::CaptureResult& result);
  // Nothing was captured: the message says why.
  void failed(const QString& message);

 private:
  void on_ended(int exit_code, bool crashed, bool cancelled);

  LineProcess* process_;
  QString dir_;
  QString program_;
};

}  // namespace fxscope::views
