#pragma once
// Starting another program as a shell would (found on PATH, our stdin, stdout and stderr, our
// environment plus some variables) and waiting for it, for front ends that run the user's own
// program. POSIX only; no Qt, so the CLI and its tests use it without a GUI toolkit.

#include <string>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope {

struct EnvVar {
  std::string name;
  std::string value;
};

// How a child ended: its exit code, or the signal that killed it.
struct ChildExit {
  int code = 0;
  int signal = 0;  // 0 when it exited by itself

  bool success() const { return signal == 0 && code == 0; }
  // What a shell would report as $?: the code, or 128 + the signal.
  int shell_status() const { return signal != 0 ? 128 + signal : code; }
  // "exited with status 3", "was killed by signal 2 (Interrupt)".
  std::string describe() const;
};

// ARGV[0] is looked up on PATH when it has no slash. ENV is set on top of this process's
// environment (replacing a variable of the same name).
struct ChildCommand {
  std::vector<std::string> argv;
  std::vector<EnvVar> env;
};

// Runs COMMAND and waits for it. SIGINT, SIGTERM and SIGHUP sent to this process while the child
// runs are passed on to it, and this process lives on to report how the child ended; a Ctrl-C
// typed at the terminal reaches the child by itself (it is in the terminal's process group), so
// that one is not sent twice. The error says why the program could not start.
Result<ChildExit> run_child(const ChildCommand& command);

// Starts COMMAND in a session of its own and does not wait: a window that outlives the command
// line which opened it. Returns the child's process id.
Result<int> start_detached(const ChildCommand& command);

// The environment of this process with VARS set on top, as "NAME=VALUE" strings.
std::vector<std::string> environment_with(const std::vector<EnvVar>& vars);

}  // namespace fxscope
