#pragma once
// Runs `fxscope-cli run ... --json` as a child process, so that a CUDA fault or a hung driver
// never takes the window down: stderr lines are progress, stdout is the run's JSON, read on
// Qt's thread pool when the child exits. One run at a time; cancel() kills the child.

#include <QObject>
#include <QStringList>
#include <memory>

#include "fxscope/report/run_result.h"

namespace fxscope::views {

class LineProcess;

using RunResultPtr = std::shared_ptr<const report::RunResult>;

class GpuRunner : public QObject {
  Q_OBJECT

 public:
  explicit GpuRunner(QObject* parent = nullptr);

  // Starts ARGV (program first); false, with failed() emitted, when a run is already going.
  bool start(const QStringList& argv);
  void cancel();
  bool running() const;

 signals:
  void progress(const QString& line);
  void finished(fxscope::views::RunResultPtr run);
  // One line for the user: what failed, with the child's last words where it said any.
  void failed(const QString& message);

 private:
  void on_ended(int exit_code, bool crashed, bool cancelled);
  void parse(QByteArray json);

  LineProcess* process_;
};

}  // namespace fxscope::views
