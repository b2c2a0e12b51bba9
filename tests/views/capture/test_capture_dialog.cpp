// File > Capture... offscreen, with a stand-in for a PyTorch script (tests/data/capture/
// fake_torch_program.sh) that prints and copies a real sample log into $TORCH_TRACE: the
// environment it gets, its output as it comes, failures, Stop, and the captured folder opened
// in the window.
#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>

#include "capture/capture_dialog.h"
#include "capture/capture_request.h"
#include "capture/capture_session.h"
#include "models/compile_units_model.h"
#include "views_test_support.h"
#include "window/main_window.h"
#include "window_test_support.h"

namespace fxscope::test {
namespace {

using views::CaptureDialog;
using views::CaptureRequest;
using views::CaptureResult;
using views::CaptureSession;

QString sample_log() {
  for (const auto& e : std::filesystem::directory_iterator(sample("residual_mlp"))) {
    if (e.path().extension() == ".log") return QString::fromStdString(e.path().string());
  }
  return {};
}

// The fake program's command line: copy LOG ("-": none), exit with STATUS, wait SECONDS.
QString fake(const QString& log, int status = 0, int seconds = 0) {
  QString line = QString::fromStdString(data("capture/fake_torch_program.sh")) + " " + log + " " +
                 QString::number(status);
  if (seconds > 0) line += " " + QString::number(seconds);
  return line;
}

struct Captured {
  QStringList output;
  CaptureResult result;
  QString failure;
};

// Runs REQUEST to the end in a CaptureSession; STOP is called once the program is waiting.
Captured run_session(const CaptureRequest& request, bool stop = false) {
  CaptureSession session;
  Captured c;
  QObject::connect(&session, &CaptureSession::output, [&c](const QString& l) { c.output << l; });
  QSignalSpy finished(&session, &CaptureSession::finished);
  QSignalSpy failed(&session, &CaptureSession::failed);
  session.start(request);
  if (stop) {
    REQUIRE(session.running());
    REQUIRE(QTest::qWaitFor([&] { return QFileInfo::exists(session.dir() + "/ready"); },
                            kWindowTimeoutMs));
    session.cancel();
  }
  REQUIRE(
      QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, kWindowTimeoutMs));
  CHECK_FALSE(session.running());
  if (!finished.isEmpty()) c.result = finished.front().front().value<CaptureResult>();
  if (!failed.isEmpty()) c.failure = failed.front().front().toString();
  return c;
}

void remove_dir(const QString& dir) {
  if (!dir.isEmpty() && dir.startsWith(QDir::tempPath())) QDir(dir).removeRecursively();
}

}  // namespace

TEST_CASE("A capture request makes the argv and the environment of the program",
          "[views][capture]") {
  qt_app();
  CaptureRequest r{QStringLiteral("python3 train.py --name 'a b'"), QString(),
                   QStringLiteral("CUDA_VISIBLE_DEVICES=1 TORCHINDUCTOR_FX_GRAPH_CACHE=1")};
  CHECK(r.argv() == QStringList{"python3", "train.py", "--name", "a b"});
  // Quoting as a shell does it, without expansion.
  CHECK(CaptureRequest{QStringLiteral(R"(a "b c" 'd "e"' f\ g h'' "$X")"), {}, {}}.argv() ==
        QStringList{"a", "b c", "d \"e\"", "f g", "h", "$X"});
  CHECK(CaptureRequest{QStringLiteral("  "), {}, {}}.argv().isEmpty());
  CHECK(CaptureRequest{QStringLiteral("x ''"), {}, {}}.argv() == QStringList{"x", ""});
  QString error;
  CHECK(r.extra_variables(&error).size() == 2);
  CHECK(error.isEmpty());
  const auto env = r.environment(QStringLiteral("/tmp/cap"));
  CHECK(env.value(QStringLiteral("TORCH_TRACE")) == QStringLiteral("/tmp/cap"));
  CHECK(env.value(QStringLiteral("CUDA_VISIBLE_DEVICES")) == QStringLiteral("1"));
  // The user's own choice of a cache stays; the other is turned off.
  CHECK(env.value(QStringLiteral("TORCHINDUCTOR_FX_GRAPH_CACHE")) == QStringLiteral("1"));
  CHECK(env.value(QStringLiteral("TORCHINDUCTOR_AUTOGRAD_CACHE")) == QStringLiteral("0"));
  CHECK(env.contains(QStringLiteral("PATH")));

  r.extra_env = QStringLiteral("GOOD=1 oops");
  r.extra_variables(&error);
  CHECK(error == QStringLiteral("environment: \"oops\" is not NAME=VALUE"));

  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString file = dir.filePath(QStringLiteral("capture.ini"));
  {
    QSettings stored(file, QSettings::IniFormat);
    r.save(stored);
  }
  const auto back = CaptureRequest::load(QSettings(file, QSettings::IniFormat));
  CHECK(back.command == r.command);
  CHECK(back.extra_env == r.extra_env);
}

TEST_CASE("A capture session streams the program's output and finds its log", "[views][capture]") {
  qt_app();
  const Captured ok = run_session({fake(sample_log()), QString(), QString()});
  CHECK(ok.failure.isEmpty());
  CHECK(ok.result.success);
  CHECK(ok.result.has_log);
  CHECK(ok.result.dir.startsWith(QDir::tempPath() + "/fxscope-capture-"));
  CHECK(ok.result.verdict.endsWith("exited with status 0; 1 log written in " + ok.result.dir));
  CHECK(ok.output.front() == "capturing into " + ok.result.dir + " (TORCH_TRACE)");
  CHECK(ok.output.contains(QStringLiteral("step 0 loss 1.25")));
  CHECK(ok.output.contains(QStringLiteral("fake: a warning on stderr")));
  CHECK(ok.output.contains("fake: TORCH_TRACE=" + ok.result.dir +
                           " FX_GRAPH_CACHE=0 AUTOGRAD_CACHE=0"));
  CHECK(QFileInfo::exists(ok.result.dir + "/dedicated_log_torch_trace_fake.log"));
  remove_dir(ok.result.dir);

  const Captured failed = run_session({fake(sample_log(), 3), QString(), QString()});
  CHECK_FALSE(failed.result.success);
  CHECK(failed.result.has_log);
  CHECK(failed.result.verdict.contains(QStringLiteral("exited with status 3; 1 log so far")));
  remove_dir(failed.result.dir);

  const Captured no_log = run_session({fake(QStringLiteral("-")), QString(), QString()});
  CHECK_FALSE(no_log.result.success);
  CHECK_FALSE(no_log.result.has_log);
  CHECK(no_log.result.verdict.contains(QStringLiteral("torch.compile was perhaps never reached")));
  remove_dir(no_log.result.dir);

  // Run in the working directory asked for.
  QTemporaryDir work;
  REQUIRE(work.isValid());
  const Captured in_dir = run_session({QStringLiteral("/bin/sh -c pwd"), work.path(), QString()});
  CHECK(in_dir.output.contains(QDir(work.path()).canonicalPath()));
  remove_dir(in_dir.result.dir);
}

TEST_CASE("A capture that cannot run says why, and Stop reaches the program", "[views][capture]") {
  qt_app();
  CHECK(run_session({QString(), QString(), QString()}).failure.startsWith("no command to run"));
  CHECK(run_session({QStringLiteral("python3 x.py"), QString(), QStringLiteral("oops")})
            .failure.contains(QStringLiteral("\"oops\" is not NAME=VALUE")));
  CHECK(run_session({QStringLiteral("python3 x.py"), QStringLiteral("/nonexistent/dir"), QString()})
            .failure.contains(QStringLiteral("no such folder")));
  // The run makes its folder under $TMPDIR: a private one, so that other tests' captures running
  // at the same time do not count.
  QTemporaryDir tmp;
  REQUIRE(tmp.isValid());
  const QByteArray saved_tmpdir = qgetenv("TMPDIR");
  qputenv("TMPDIR", tmp.path().toLocal8Bit());
  const auto folders = [&] {
    return QDir(tmp.path())
        .entryList({QStringLiteral("fxscope-capture-*")}, QDir::Dirs | QDir::NoDotAndDotDot)
        .size();
  };
  const Captured missing =
      run_session({QStringLiteral("/nonexistent/python3 train.py"), QString(), QString()});
  const auto left = folders();
  if (saved_tmpdir.isNull()) {
    qunsetenv("TMPDIR");
  } else {
    qputenv("TMPDIR", saved_tmpdir);
  }
  CHECK(missing.failure.startsWith(QStringLiteral("could not start /nonexistent/python3")));
  CHECK(left == 0);  // the folder made for the run is gone again

  // Stop sends SIGTERM first: the program's own handler runs (status 42) and its log is kept.
  const Captured stopped = run_session({fake(sample_log(), 0, 60), QString(), QString()}, true);
  CHECK(stopped.result.cancelled);
  CHECK_FALSE(stopped.result.success);
  CHECK(stopped.result.has_log);
  CHECK(stopped.result.verdict.startsWith(QStringLiteral("stopped: ")));
  CHECK(stopped.result.verdict.contains(QStringLiteral("exited with status 42")));
  CHECK(stopped.output.contains(QStringLiteral("fake: caught SIGTERM")));
  remove_dir(stopped.result.dir);
}

TEST_CASE("File > Capture... runs the program and opens what it wrote in the window",
          "[views][capture]") {
  qt_app();
  views::MainWindow window;
  window.show();
  auto* action = window.findChild<QAction*>(QStringLiteral("capture"));
  REQUIRE(action != nullptr);
  action->trigger();
  CaptureDialog* dialog = window.capture_dialog();
  REQUIRE(dialog != nullptr);
  CHECK(dialog->isVisible());

  // A program that writes no log: the dialog stays, says so, and has nothing to open.
  dialog->set_request({fake(QStringLiteral("-")), QString(), QString()});
  REQUIRE(dialog->capture());
  CHECK_FALSE(dialog->findChild<QPushButton*>(QStringLiteral("capture_start"))->isEnabled());
  QSignalSpy ended(&dialog->session(), &CaptureSession::finished);
  REQUIRE(ended.wait(kWindowTimeoutMs));
  CHECK(dialog->isVisible());
  CHECK(dialog->status_text().contains(QStringLiteral("wrote no TORCH_TRACE log")));
  CHECK(dialog->output_text().contains(QStringLiteral("step 1 loss 0.75")));
  CHECK_FALSE(dialog->findChild<QPushButton*>(QStringLiteral("capture_open"))->isEnabled());
  CHECK(dialog->findChild<QPushButton*>(QStringLiteral("capture_start"))->isEnabled());
  remove_dir(ended.front().front().value<CaptureResult>().dir);

  // A failing program that wrote a log: Open Log opens it.
  dialog->set_request({fake(sample_log(), 2), QString(), QString()});
  REQUIRE(dialog->capture());
  REQUIRE(ended.wait(kWindowTimeoutMs));
  const QString failed_dir = ended.back().front().value<CaptureResult>().dir;
  auto* open = dialog->findChild<QPushButton*>(QStringLiteral("capture_open"));
  REQUIRE(open->isEnabled());
  QSignalSpy loaded(&window, &views::MainWindow::log_loaded);
  open->click();
  REQUIRE(loaded.wait(kWindowTimeoutMs));
  REQUIRE(window.log());
  CHECK(QString::fromStdString(window.log()->summary.path).startsWith(failed_dir));
  REQUIRE(QTest::qWaitFor([&] { return window.capture_dialog() == nullptr; }, kWindowTimeoutMs));

  // A program that ends well: its folder opens by itself, and the dialog closes. The command
  // comes back from the last capture.
  action->trigger();
  dialog = window.capture_dialog();
  REQUIRE(dialog != nullptr);
  CHECK(dialog->request().command == fake(sample_log(), 2));
  dialog->set_request({fake(sample_log()), QString(), QString()});
  REQUIRE(dialog->capture());
  REQUIRE(loaded.wait(kWindowTimeoutMs));
  const QString opened = QString::fromStdString(window.log()->summary.path);
  CHECK(opened.startsWith(QDir::tempPath() + "/fxscope-capture-"));
  CHECK_FALSE(opened.startsWith(failed_dir));
  CHECK(window.compile_units().rowCount() == 1);
  REQUIRE(QTest::qWaitFor([&] { return window.capture_dialog() == nullptr; }, kWindowTimeoutMs));
  remove_dir(failed_dir);
  remove_dir(QFileInfo(opened).path());
}

TEST_CASE("Closing the capture dialog stops the program first", "[views][capture]") {
  qt_app();
  views::MainWindow window;
  window.show();
  window.findChild<QAction*>(QStringLiteral("capture"))->trigger();
  CaptureDialog* dialog = window.capture_dialog();
  REQUIRE(dialog != nullptr);
  dialog->set_request({fake(sample_log(), 0, 60), QString(), QString()});
  REQUIRE(dialog->capture());
  const QString dir = dialog->session().dir();
  REQUIRE(QTest::qWaitFor([&] { return QFileInfo::exists(dir + "/ready"); }, kWindowTimeoutMs));
  dialog->reject();
  CHECK(dialog->status_text() == QStringLiteral("Stopping the program ..."));
  REQUIRE(QTest::qWaitFor([&] { return window.capture_dialog() == nullptr; }, kWindowTimeoutMs));
  CHECK_FALSE(window.log());  // stopped: nothing opened
  remove_dir(dir);
}

}  // namespace fxscope::test
