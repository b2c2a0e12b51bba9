// Every views test case ends with Qt's thread pool idle. The window starts work on the pool that
// outlives it (the A/B panel plans the shown unit in two modes whenever its overlay changes), and
// the test process never destroys its QApplication, whose destructor is what joins the pool in
// the app. Left running, such a job met the process's exit: the engine's function-local tables
// (the op registry's) were destroyed under it and it crashed with SIGSEGV after the test passed.
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <QCoreApplication>
#include <QThreadPool>

#include <catch2/catch.hpp>

namespace fxscope::test {
namespace {

class PoolDrainListener : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;

  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    // Only a test case that made the application can have started pool work.
    if (QCoreApplication::instance() != nullptr) QThreadPool::globalInstance()->waitForDone();
    TestEventListenerBase::testCaseEnded(stats);
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(PoolDrainListener)

}  // namespace fxscope::test
