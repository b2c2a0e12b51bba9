// `fxscope PATH --benchmark-open` as the benchmark notes run it: a child process, offscreen.
// Only the shape of the report is checked; the times depend on the machine.
#include <QProcess>
#include <QProcessEnvironment>
#include <regex>

#include "views_test_support.h"

namespace fxscope::test {

TEST_CASE("fxscope --benchmark-open prints the open time and the frame times", "[views]") {
  qt_app();
  QProcess process;
  auto environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  process.setProcessEnvironment(environment);
  process.start(QStringLiteral(FXSCOPE_GUI), {QString::fromStdString(sample("residual_mlp")),
                                              QStringLiteral("--benchmark-open")});
  REQUIRE(process.waitForFinished(120000));
  REQUIRE(process.exitStatus() == QProcess::NormalExit);
  const std::string out = process.readAllStandardOutput().toStdString();
  INFO(process.readAllStandardError().toStdString());
  INFO(out);
  CHECK(process.exitCode() == 0);
  CHECK(std::regex_search(
      out, std::regex(R"(open: \d+ ms to first complete paint \(\d+ nodes, \w+ layout\))")));
  for (const char* view : {"frames at reading zoom", "frames of the fitted view"}) {
    CHECK(std::regex_search(
        out, std::regex(std::string(view) + R"(: 60, median [\d.]+ ms, p95 [\d.]+ ms, )"
                                            R"(max [\d.]+ ms \(target < 16 ms\))")));
  }
  CHECK(std::regex_search(out, std::regex(R"(fitted view: first frame [\d.]+ ms)")));
}

TEST_CASE("fxscope --benchmark-open fails with a message on a bad path", "[views]") {
  qt_app();
  QProcess process;
  auto environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  process.setProcessEnvironment(environment);
  process.start(QStringLiteral(FXSCOPE_GUI),
                {QStringLiteral("/no/such/torch_trace"), QStringLiteral("--benchmark-open")});
  REQUIRE(process.waitForFinished(120000));
  CHECK(process.exitCode() == 1);
  CHECK(process.readAllStandardError().toStdString().find("/no/such/torch_trace") !=
        std::string::npos);
}

}  // namespace fxscope::test
