#include "fxscope/core/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace fxscope {
namespace {

constexpr std::array<int, 3> kForwarded = {SIGINT, SIGTERM, SIGHUP};

// The child being waited for; the signal handler reads it. One run_child at a time per process
// (the CLI runs one program).
volatile sig_atomic_t g_child = 0;

void forward_to_child(int signal, siginfo_t* info, void*) {
  // The terminal's Ctrl-C and hang-up come from the kernel to the whole foreground process
  // group, the child included: passing them on would interrupt it twice.
  if (info != nullptr && info->si_code == SI_KERNEL) return;
  const pid_t child = g_child;
  if (child > 0) ::kill(child, signal);
}

// Installs the forwarding handler for the signals this process does not ignore (a program
// started in the background with SIGINT ignored keeps it ignored, as its child does), and puts
// the previous handlers back when it goes.
class SignalForwarding {
 public:
  SignalForwarding() {
    struct sigaction action {};
    action.sa_sigaction = forward_to_child;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < kForwarded.size(); ++i) {
      struct sigaction previous {};
      if (::sigaction(kForwarded[i], nullptr, &previous) != 0) continue;
      if (previous.sa_handler == SIG_IGN) continue;
      installed_[i] = ::sigaction(kForwarded[i], &action, &previous_[i]) == 0;
    }
  }
  ~SignalForwarding() {
    g_child = 0;
    for (std::size_t i = 0; i < kForwarded.size(); ++i) {
      if (installed_[i]) ::sigaction(kForwarded[i], &previous_[i], nullptr);
    }
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

 private:
  std::array<struct sigaction, kForwarded.size()> previous_{};
  std::array<bool, kForwarded.size()> installed_{};
};

// NAME=VALUE strings and the char* array execve wants, pointing into them.
struct CStrings {
  explicit CStrings(std::vector<std::string> strings) : owned(std::move(strings)) {
    for (auto& s : owned) pointers.push_back(s.data());
    pointers.push_back(nullptr);
  }
  std::vector<std::string> owned;
  std::vector<char*> pointers;
};

std::string start_error(const std::string& program, int error) {
  if (error == ENOENT) {
    return program + ": " +
           (program.find('/') == std::string::npos ? "command not found on PATH" : "no such file");
  }
  if (error == EACCES) return program + ": permission denied (is it an executable file?)";
  return program + ": cannot start it (" + std::strerror(error) + ")";
}

// posix_spawnp reports a program that cannot be executed through its return value (glibc
// runs the exec before returning), so a missing program is an error here, not an exit code.
Result<int> spawn(const ChildCommand& command, posix_spawnattr_t& attributes,
                  posix_spawn_file_actions_t* actions) {
  if (command.argv.empty() || command.argv.front().empty()) {
    return make_error("no program to run");
  }
  CStrings args(command.argv);
  CStrings env(environment_with(command.env));
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args.pointers[0], actions, &attributes, args.pointers.data(),
                                env.pointers.data());
  if (rc != 0) return make_error(start_error(command.argv.front(), rc));
  return static_cast<int>(pid);
}

}  // namespace

std::string ChildExit::describe() const {
  if (signal != 0) {
    const char* name = ::strsignal(signal);
    return "was killed by signal " + std::to_string(signal) +
           (name != nullptr ? std::string(" (") + name + ")" : std::string());
  }
  return "exited with status " + std::to_string(code);
}

std::vector<std::string> environment_with(const std::vector<EnvVar>& vars) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& v : vars) replaced = replaced || v.name == name;
    if (!replaced) out.push_back(entry);
  }
  for (const auto& v : vars) out.push_back(v.name + "=" + v.value);
  return out;
}

Result<ChildExit> run_child(const ChildCommand& command) {
  SignalForwarding forwarding;
  // Forwarded signals are held back until the child's id is known, then delivered to it; the
  // child itself starts with the mask this process had.
  sigset_t forwarded;
  sigset_t before;
  sigemptyset(&forwarded);
  for (const int s : kForwarded) sigaddset(&forwarded, s);
  ::sigprocmask(SIG_BLOCK, &forwarded, &before);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setsigmask(&attributes, &before);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  auto pid = spawn(command, attributes, nullptr);
  posix_spawnattr_destroy(&attributes);
  if (pid) g_child = *pid;
  ::sigprocmask(SIG_SETMASK, &before, nullptr);
  if (!pid) return pid.error();

  int status = 0;
  while (::waitpid(*pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return make_error(command.argv.front() + ": lost track of it (" + std::strerror(errno) + ")");
    }
  }
  ChildExit exit;
  if (WIFSIGNALED(status)) {
    exit.signal = WTERMSIG(status);
  } else {
    exit.code = WEXITSTATUS(status);
  }
  return exit;
}

Result<int> start_detached(const ChildCommand& command) {
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
  // Its own session has no terminal to read: stdin is /dev/null, stdout and stderr stay ours.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  auto pid = spawn(command, attributes, &actions);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  return pid;
}

}  // namespace fxscope
