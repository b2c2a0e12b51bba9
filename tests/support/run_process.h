#pragma once
// Runs a command line through the shell and returns its exit status and output, for tests that
// drive the executables the way a user does.

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace fxscope::test {

struct ProcessResult {
  int status = -1;     // the exit code, or -1 when the process did not exit normally
  std::string output;  // stdout (and stderr, when the command redirects it)
};

inline ProcessResult run_process(const std::string& command) {
  ProcessResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 65536> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) result.output.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  if (raw != -1 && WIFEXITED(raw)) result.status = WEXITSTATUS(raw);
  return result;
}

#ifdef FXSCOPE_CLI
// The fxscope-cli under test with ARGS, as a shell command line. FXSCOPE_CLI_UNDER_TEST names
// another binary: the GPU machine runs these tests on a copy whose build path differs.
inline std::string cli(const std::string& args) {
  const char* other = std::getenv("FXSCOPE_CLI_UNDER_TEST");
  return std::string(other != nullptr && *other != '\0' ? other : FXSCOPE_CLI) + " " + args;
}
#endif

// The lines of a process's output.
inline std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace fxscope::test
