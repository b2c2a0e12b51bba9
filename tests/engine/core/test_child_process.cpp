#include <catch2/catch.hpp>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "fxscope/core/child_process.h"

using namespace fxscope;
namespace fs = std::filesystem;

namespace {

ChildExit run_shell(const std::string& script, std::vector<EnvVar> env = {}) {
  const auto exit = run_child({{"/bin/sh", "-c", script}, std::move(env)});
  REQUIRE(exit.ok());
  return *exit;
}

fs::path scratch_file(const std::string& name) {
  const fs::path path =
      fs::temp_directory_path() / ("fxscope_child_" + std::to_string(getpid()) + "_" + name);
  fs::remove(path);
  return path;
}

}  // namespace

TEST_CASE("a child's exit status and the signal that killed it", "[core]") {
  const ChildExit ok = run_shell("exit 0");
  CHECK(ok.success());
  CHECK(ok.describe() == "exited with status 0");

  const ChildExit failed = run_shell("exit 3");
  CHECK_FALSE(failed.success());
  CHECK(failed.code == 3);
  CHECK(failed.shell_status() == 3);
  CHECK(failed.describe() == "exited with status 3");

  const ChildExit killed = run_shell("kill -9 $$");
  CHECK(killed.signal == SIGKILL);
  CHECK(killed.shell_status() == 128 + SIGKILL);
  CHECK_THAT(killed.describe(), Catch::StartsWith("was killed by signal 9"));
}

TEST_CASE("a child runs with variables set on top of this process's environment", "[core]") {
  ::setenv("FXSCOPE_CHILD_TEST_OLD", "old", 1);
  ::setenv("FXSCOPE_CHILD_TEST_KEPT", "kept", 1);
  CHECK(run_shell("test \"$FXSCOPE_CHILD_TEST_OLD\" = new && test \"$FXSCOPE_CHILD_TEST_KEPT\" = "
                  "kept && test \"$FXSCOPE_CHILD_TEST_ADDED\" = added",
                  {{"FXSCOPE_CHILD_TEST_OLD", "new"}, {"FXSCOPE_CHILD_TEST_ADDED", "added"}})
            .success());

  const auto env = environment_with({{"FXSCOPE_CHILD_TEST_OLD", "new"}});
  CHECK(std::count(env.begin(), env.end(), "FXSCOPE_CHILD_TEST_OLD=new") == 1);
  CHECK(std::count(env.begin(), env.end(), "FXSCOPE_CHILD_TEST_OLD=old") == 0);
  CHECK(std::count(env.begin(), env.end(), "FXSCOPE_CHILD_TEST_KEPT=kept") == 1);
  ::unsetenv("FXSCOPE_CHILD_TEST_OLD");
  ::unsetenv("FXSCOPE_CHILD_TEST_KEPT");
}

TEST_CASE("a program that cannot start is an error saying why", "[core]") {
  const auto on_path = run_child({{"fxscope-no-such-program", "--help"}, {}});
  REQUIRE_FALSE(on_path.ok());
  CHECK(on_path.error().message == "fxscope-no-such-program: command not found on PATH");

  const auto by_path = run_child({{"/nonexistent/train.py"}, {}});
  REQUIRE_FALSE(by_path.ok());
  CHECK(by_path.error().message == "/nonexistent/train.py: no such file");

  const fs::path not_executable = scratch_file("not_executable.sh");
  std::ofstream(not_executable) << "echo hi\n";
  const auto denied = run_child({{not_executable.string()}, {}});
  REQUIRE_FALSE(denied.ok());
  CHECK_THAT(denied.error().message, Catch::Contains("permission denied"));
  fs::remove(not_executable);

  CHECK_FALSE(run_child({{}, {}}).ok());
}

TEST_CASE("a SIGTERM sent to this process goes on to the child, and this one lives", "[core]") {
  struct sigaction before {};
  ::sigaction(SIGTERM, nullptr, &before);
  if (before.sa_handler == SIG_IGN) {
    WARN("SIGTERM is ignored by this test process: nothing is forwarded, so nothing to test");
    return;
  }
  const fs::path ready = scratch_file("ready");
  // Sends the signal once the child says it is waiting; gives up after 30 s.
  std::thread sender([&ready] {
    for (int i = 0; i < 3000 && !fs::exists(ready); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(::getpid(), SIGTERM);
  });
  const ChildExit exit = run_shell("trap 'exit 42' TERM; touch " + ready.string() +
                                   "; i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; "
                                   "exit 7");
  sender.join();
  CHECK(exit.code == 42);
  // The handler this process had (Catch's own) is back.
  struct sigaction after {};
  ::sigaction(SIGTERM, nullptr, &after);
  CHECK(after.sa_handler == before.sa_handler);
  fs::remove(ready);
}

TEST_CASE("a detached child runs in a session of its own", "[core]") {
  const fs::path stat = scratch_file("stat");
  const auto pid = start_detached({{"/bin/sh", "-c", "cat /proc/$$/stat > " + stat.string()}, {}});
  REQUIRE(pid.ok());
  int status = 0;
  REQUIRE(::waitpid(*pid, &status, 0) == *pid);
  std::ifstream in(stat);
  std::string line;
  std::getline(in, line);
  // pid (comm) state ppid pgrp session ...
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::string state;
  long ppid = 0, pgrp = 0, session = 0;
  fields >> state >> ppid >> pgrp >> session;
  CHECK(session == *pid);
  CHECK(session != ::getsid(0));
  fs::remove(stat);
}
