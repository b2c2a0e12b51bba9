#pragma once
// Runs `fxscope-cli run ... --json` as a child process, so that a CUDA fault or a hung driver
// never takes the window down: stderr lines are progress, stdout is the run's JSON, read on
// Qt's thread pool when the child exits. One run at a time; cancel() kills the child.

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <memory>

#include "fxscope/report/run_result.h"

namespace fxscope::views {

using RunResultPtr = std::shared_ptr<const report::RunResult>;

class GpuRunner : public QObject {
  Q_OBJECT

 public:
  explicit GpuRunner(QObject* parent = nullptr);
  ~GpuRunner() override;

  // Starts ARGV (program first); false, with failed() emitted, when a run is already going.
  bool start(const QStringList& argv);
  void cancel();
  bool running() const { return process_ != nullptr; }

 signals:
  void progress(const QString& line);
  void finished(fxscope::views::RunResultPtr run);
  // One line for the user: what failed, with the child's last words where it said any.
  void failed(const QString& message);

 private:
  void read_stderr();
  void on_finished(int exit_code, QProcess::ExitStatus status);
  void on_error(QProcess::ProcessError error);
  void parse(QByteArray json);
  void end();

  QProcess* process_ = nullptr;
  QString program_;
  QByteArray stderr_tail_;  // an unfinished last line
  QStringList last_lines_;
  bool cancelled_ = false;
};

}  // namespace fxscope::views
