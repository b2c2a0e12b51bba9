// A job a test case leaves on Qt's pool ends before the test process exits (pool_drain_listener):
// checked in a child process whose only test case leaves such a job behind, and whose exit is
// slowed the way a loaded machine slows it.
#include <QCoreApplication>
#include <QProcess>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "views_test_support.h"

namespace fxscope::test {
namespace {

using namespace std::chrono_literals;

constexpr int kChildTimeoutMs = 60000;
// The child's exit code when its job saw the exit under way: the crash it stands for.
constexpr int kJobOutlivedExit = 3;

// Stands for the engine's function-local tables: built on first use, destroyed at exit. Its
// destructor then takes a while, as the exit of a test process did under load (removing its
// settings folder), so that a job still running sees it gone.
struct ExitWitness {
  std::atomic<bool> alive = true;
  ~ExitWitness() {
    alive = false;
    std::this_thread::sleep_for(300ms);
  }
};

ExitWitness& witness() {
  static ExitWitness w;
  return w;
}

}  // namespace

TEST_CASE("A pool job left by a test case (run by the check below)", "[.][pool_child]") {
  qt_app();
  witness();
  // Outlives the test case body by 200 ms, watching for the exit.
  const QFuture<void> job = QtConcurrent::run([] {
    const auto end = std::chrono::steady_clock::now() + 200ms;
    while (std::chrono::steady_clock::now() < end) {
      if (!witness().alive) std::_Exit(kJobOutlivedExit);
      std::this_thread::sleep_for(1ms);
    }
  });
  CHECK(job.isValid());
}

TEST_CASE("No job on Qt's pool outlives its test case into the process's exit", "[views]") {
  qt_app();
  QProcess child;
  child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("[pool_child]")});
  REQUIRE(child.waitForFinished(kChildTimeoutMs));
  INFO(child.readAllStandardOutput().toStdString());
  REQUIRE(child.exitStatus() == QProcess::NormalExit);
  CHECK(child.exitCode() != kJobOutlivedExit);
  CHECK(child.exitCode() == 0);
}

}  // namespace fxscope::test
