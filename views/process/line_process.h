#pragma once
// A child process whose output is read line by line as it comes, for the parts of the window that
// run another program (a GPU run, a capture): one run at a time, cancel, the last lines kept for
// a failure message, and one signal when it is over. Nothing here waits on the child.

#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

namespace fxscope::views {

class LineProcess : public QObject {
  Q_OBJECT

 public:
  // Which output comes as lines: stderr (stdout is kept whole for take_output()), or both
  // merged in the order the child wrote them.
  enum class Lines { kStderr, kMerged };

  explicit LineProcess(Lines lines, QObject* parent = nullptr);
  // A child still running is killed: it must not outlive the window that started it.
  ~LineProcess() override;

  // Starts ARGV (program first) with ENV in WORK_DIR (empty: this process's own). False when a
  // child is running or ARGV is empty; otherwise exactly one of ended() and failed_to_start()
  // follows, possibly before start() returns.
  bool start(const QStringList& argv,
             const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
             const QString& work_dir = {});
  // Stops the child: at once (SIGKILL) with no GRACE_MS, else SIGTERM first so that it can stop
  // its own children, and SIGKILL when it has not ended after GRACE_MS.
  void cancel(int grace_ms = 0);
  bool running() const { return process_ != nullptr; }

  // The last lines read, joined with " | ": what a failure message quotes of the child.
  QString last_words() const;
  // With Lines::kStderr, the child's stdout, once it ended.
  QByteArray take_output();

 signals:
  void line(const QString& text);
  // CRASHED: EXIT_CODE is the signal that ended it. CANCELLED: cancel() was called.
  void ended(int exit_code, bool crashed, bool cancelled);
  void failed_to_start(const QString& message);

 private:
  void read_lines();
  void split_lines(bool flush);
  void on_finished(int exit_code, QProcess::ExitStatus status);
  void on_error(QProcess::ProcessError error);
  void end();

  Lines lines_;
  QProcess* process_ = nullptr;
  QString program_;
  QByteArray partial_;  // an unfinished last line
  QStringList last_lines_;
  QByteArray output_;
  bool cancelled_ = false;
};

}  // namespace fxscope::views
