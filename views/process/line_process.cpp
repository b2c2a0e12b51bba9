#include "process/line_process.h"

#include <QTimer>
#include <utility>

namespace fxscope::views {
namespace {

// What a failure message quotes of the child: its own one-line error is usually the last line.
constexpr qsizetype kLinesKept = 3;

// A line as a terminal would leave it: what follows the last carriage return (progress bars
// redraw themselves with one), without the trailing blanks.
QString shown_text(const QByteArray& raw) {
  QByteArray text = raw.mid(raw.lastIndexOf('\r') + 1);
  while (!text.isEmpty() && QChar::isSpace(static_cast<unsigned char>(text.back()))) text.chop(1);
  return QString::fromUtf8(text);
}

}  // namespace

LineProcess::LineProcess(Lines lines, QObject* parent) : QObject(parent), lines_(lines) {}

LineProcess::~LineProcess() {
  if (process_ != nullptr) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(1000);
  }
}

bool LineProcess::start(const QStringList& argv, const QProcessEnvironment& env,
                        const QString& work_dir) {
  if (running() || argv.isEmpty()) return false;
  cancelled_ = false;
  partial_.clear();
  last_lines_.clear();
  output_.clear();
  program_ = argv.front();
  process_ = new QProcess(this);
  process_->setProgram(program_);
  process_->setArguments(argv.mid(1));
  process_->setProcessEnvironment(env);
  if (!work_dir.isEmpty()) process_->setWorkingDirectory(work_dir);
  if (lines_ == Lines::kMerged) {
    process_->setProcessChannelMode(QProcess::MergedChannels);
    connect(process_, &QProcess::readyReadStandardOutput, this, &LineProcess::read_lines);
  } else {
    connect(process_, &QProcess::readyReadStandardError, this, &LineProcess::read_lines);
  }
  connect(process_, &QProcess::finished, this, &LineProcess::on_finished);
  connect(process_, &QProcess::errorOccurred, this, &LineProcess::on_error);
  process_->start();
  return true;
}

void LineProcess::cancel(int grace_ms) {
  if (!running()) return;
  cancelled_ = true;  // on_finished reports the cancel
  if (grace_ms <= 0) {
    process_->kill();
    return;
  }
  process_->terminate();
  // Bound to the process: once it is gone, nothing is left to kill.
  QTimer::singleShot(grace_ms, process_, &QProcess::kill);
}

QString LineProcess::last_words() const {
  return last_lines_.join(QStringLiteral(" | "));
}

QByteArray LineProcess::take_output() {
  return std::exchange(output_, {});
}

void LineProcess::read_lines() {
  partial_ += lines_ == Lines::kMerged ? process_->readAllStandardOutput()
                                       : process_->readAllStandardError();
  split_lines(false);
}

void LineProcess::split_lines(bool flush) {
  qsizetype newline = 0;
  while ((newline = partial_.indexOf('\n')) >= 0 || (flush && !partial_.isEmpty())) {
    const qsizetype cut = newline >= 0 ? newline : partial_.size();
    const QString text = shown_text(partial_.left(cut));
    partial_.remove(0, newline >= 0 ? cut + 1 : cut);
    if (text.trimmed().isEmpty()) continue;
    last_lines_ << text.trimmed();
    if (last_lines_.size() > kLinesKept) last_lines_.removeFirst();
    emit line(text);
  }
}

void LineProcess::on_error(QProcess::ProcessError error) {
  // A child that started and then crashed also ends in finished(); only a failed start does not.
  if (error != QProcess::FailedToStart || process_ == nullptr) return;
  const QString message = tr("could not start %1: %2").arg(program_, process_->errorString());
  end();
  emit failed_to_start(message);
}

void LineProcess::on_finished(int exit_code, QProcess::ExitStatus status) {
  read_lines();
  split_lines(true);
  if (lines_ == Lines::kStderr) output_ = process_->readAllStandardOutput();
  end();
  emit ended(exit_code, status == QProcess::CrashExit, cancelled_);
}

void LineProcess::end() {
  process_->disconnect(this);
  process_->deleteLater();
  process_ = nullptr;
}

}  // namespace fxscope::views
