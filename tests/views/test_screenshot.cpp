// `fxscope PATH --screenshot FILE` as a user or a docs script runs it: a child process, offscreen.
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include "views_test_support.h"

namespace fxscope::test {
namespace {

struct GuiRun {
  int exit_code = -1;
  std::string stderr_text;
};

GuiRun run_gui(const QStringList& arguments) {
  QProcess process;
  auto environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  process.setProcessEnvironment(environment);
  process.start(QStringLiteral(FXSCOPE_GUI), arguments);
  REQUIRE(process.waitForFinished(120000));
  REQUIRE(process.exitStatus() == QProcess::NormalExit);
  return {process.exitCode(), process.readAllStandardError().toStdString()};
}

}  // namespace

TEST_CASE("fxscope --screenshot writes the window as a PNG", "[views]") {
  qt_app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString file = dir.filePath(QStringLiteral("summary.png"));
  const GuiRun run = run_gui(
      {QString::fromStdString(sample("graph_breaks")), QStringLiteral("--screenshot"), file});
  INFO(run.stderr_text);
  CHECK(run.exit_code == 0);
  const QImage image(file, "PNG");
  REQUIRE_FALSE(image.isNull());
  CHECK(image.width() >= 1000);
  CHECK(image.height() >= 600);
}

TEST_CASE("fxscope --screenshot fails with a message on a bad path", "[views]") {
  qt_app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString file = dir.filePath(QStringLiteral("summary.png"));
  const GuiRun run =
      run_gui({QStringLiteral("/no/such/torch_trace"), QStringLiteral("--screenshot"), file});
  CHECK(run.exit_code == 1);
  CHECK(run.stderr_text.find("/no/such/torch_trace") != std::string::npos);
  CHECK_FALSE(QFile::exists(file));
}

}  // namespace fxscope::test
