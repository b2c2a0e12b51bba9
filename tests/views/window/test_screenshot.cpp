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
  std::string stdout_text;
};

GuiRun run_gui(const QStringList& arguments) {
  QProcess process;
  auto environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  process.setProcessEnvironment(environment);
  process.start(QStringLiteral(FXSCOPE_GUI), arguments);
  REQUIRE(process.waitForFinished(120000));
  REQUIRE(process.exitStatus() == QProcess::NormalExit);
  return {process.exitCode(), process.readAllStandardError().toStdString(),
          process.readAllStandardOutput().toStdString()};
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

TEST_CASE("fxscope --screenshot shows residual_mlp's graph with its kernel groups", "[views]") {
  qt_app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString file = dir.filePath(QStringLiteral("graph.png"));
  const GuiRun run =
      run_gui({QString::fromStdString(sample("residual_mlp")), QStringLiteral("--screenshot"), file,
               QStringLiteral("--find"), QStringLiteral("erf")});
  INFO(run.stderr_text);
  CHECK(run.exit_code == 0);
  // The status line of the drawn graph, printed when the picture was taken.
  CHECK(run.stdout_text.find("inductor_post_grad_graph") != std::string::npos);
  CHECK(run.stdout_text.find("18 nodes, 3 kernel groups") != std::string::npos);
  CHECK(run.stdout_text.find("laid out with dot") != std::string::npos);
  const QImage image(file, "PNG");
  REQUIRE_FALSE(image.isNull());
  // The fused pointwise group's cluster is the only large tinted area: count its pixels.
  int tinted = 0;
  for (int y = 0; y < image.height(); y += 2) {
    for (int x = image.width() / 3; x < image.width(); x += 2) {
      const QColor c = image.pixelColor(x, y);
      if (c.hsvSaturation() > 40 && c.value() > 200 && c.hue() > 240 && c.hue() < 320) ++tinted;
    }
  }
  CHECK(tinted > 2000);
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

TEST_CASE("fxscope --unit picks the compile unit the screenshot shows", "[views][screenshot]") {
  qt_app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString file = dir.filePath(QStringLiteral("unit.png"));
  const GuiRun run =
      run_gui({QString::fromStdString(sample("graph_breaks")), QStringLiteral("--unit"),
               QStringLiteral("1/1"), QStringLiteral("--screenshot"), file});
  INFO(run.stderr_text);
  CHECK(run.exit_code == 0);
  // The status line printed with the picture names the graph drawn: unit 1/1's, not 0/0's.
  CHECK(run.stdout_text.find("[1/1") != std::string::npos);
  CHECK(run.stdout_text.find("[0/0") == std::string::npos);
  CHECK_FALSE(QImage(file, "PNG").isNull());
}

TEST_CASE("fxscope --unit with an unknown id names the ids there are", "[views][screenshot]") {
  qt_app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString file = dir.filePath(QStringLiteral("unit.png"));
  const GuiRun run =
      run_gui({QString::fromStdString(sample("graph_breaks")), QStringLiteral("--unit"),
               QStringLiteral("9/9"), QStringLiteral("--screenshot"), file});
  CHECK(run.exit_code == 1);
  INFO(run.stderr_text);
  // One line of fxscope's own (Qt may add platform notes of its own on other lines).
  const QStringList lines = QString::fromStdString(run.stderr_text)
                                .split(QLatin1Char('\n'))
                                .filter(QStringLiteral("fxscope:"));
  REQUIRE(lines.size() == 1);
  CHECK(lines.front().startsWith(
      QStringLiteral("fxscope: no compile unit 9/9: the log has 0/0, 1/0, 2/0")));
  CHECK(lines.front().endsWith(QStringLiteral("4/3, 4/4")));
  CHECK_FALSE(QFile::exists(file));
}

TEST_CASE("fxscope --run colours the screenshot with the run, read after the log",
          "[views][screenshot]") {
  qt_app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString file = dir.filePath(QStringLiteral("run.png"));
  // The run file is small and loads before the log: it must still be what the picture shows.
  const GuiRun run =
      run_gui({QString::fromStdString(sample("residual_mlp")), QStringLiteral("--run"),
               QString::fromStdString(data("runs/residual_mlp_pytorch_h200.json")),
               QStringLiteral("--screenshot"), file});
  INFO(run.stderr_text);
  CHECK(run.exit_code == 0);
  CHECK(run.stdout_text.find("measured on NVIDIA H200, default: 3 of 3 groups measured") !=
        std::string::npos);
  CHECK_FALSE(QImage(file, "PNG").isNull());
}

TEST_CASE("fxscope --run with a bad run file fails the screenshot naming it",
          "[views][screenshot]") {
  qt_app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString file = dir.filePath(QStringLiteral("run.png"));
  const GuiRun run =
      run_gui({QString::fromStdString(sample("residual_mlp")), QStringLiteral("--run"),
               QStringLiteral("/no/such/run.json"), QStringLiteral("--screenshot"), file});
  CHECK(run.exit_code == 1);
  CHECK(run.stderr_text.find("/no/such/run.json") != std::string::npos);
  CHECK_FALSE(QFile::exists(file));
}

TEST_CASE("fxscope --dock brings a dock to the front and an unknown one is named, exit 2",
          "[views][screenshot]") {
  qt_app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString file = dir.filePath(QStringLiteral("source.png"));
  const GuiRun shown =
      run_gui({QString::fromStdString(sample("residual_mlp")), QStringLiteral("--find"),
               QStringLiteral("erf"), QStringLiteral("--dock"), QStringLiteral("kernel_source"),
               QStringLiteral("--screenshot"), file});
  INFO(shown.stderr_text);
  CHECK(shown.exit_code == 0);
  CHECK_FALSE(QImage(file, "PNG").isNull());
  const GuiRun unknown =
      run_gui({QString::fromStdString(sample("residual_mlp")), QStringLiteral("--dock"),
               QStringLiteral("sauce"), QStringLiteral("--screenshot"), file});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.stderr_text.find("no dock sauce") != std::string::npos);
}

}  // namespace fxscope::test
