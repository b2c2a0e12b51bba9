// `fxscope-cli capture [--dir DIR] [--open] [--rank N] -- PROGRAM ARGS...`: runs the user's
// program with TORCH_TRACE set to a fresh folder, its output going straight to the terminal,
// then summarizes what it wrote (or opens it in the desktop app). The child's exit status
// becomes capture's own.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "commands.h"
#include "fxscope/core/child_process.h"
#include "fxscope/trace/capture.h"

namespace fxscope::cli {
namespace {

namespace fs = std::filesystem;

// A program that could not be started, as shells report it.
constexpr int kCannotStart = 127;

struct CaptureArgs {
  std::vector<std::string> command;
  std::string dir;
  int rank = 0;
  bool open = false;
};

void say(const std::string& message) {
  std::fprintf(stderr, "fxscope-cli: %s\n", message.c_str());
}

// $FXSCOPE_GUI when set; else the desktop app beside this executable (an install's bin/), in
// the build tree beside app/cli/, else whatever `fxscope` PATH finds.
std::string gui_executable() {
  if (const char* chosen = std::getenv("FXSCOPE_GUI"); chosen != nullptr && *chosen != '\0') {
    return chosen;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& candidate :
         {exe.parent_path() / "fxscope", exe.parent_path().parent_path() / "gui" / "fxscope"}) {
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
  }
  return "fxscope";
}

bool open_in_gui(const std::string& dir) {
  const std::string gui = gui_executable();
  const auto started = start_detached({{gui, dir}, {}});
  if (!started) {
    say("cannot open the desktop app: " + started.error().message +
        "; open the folder with `fxscope " + dir + "`");
    return false;
  }
  say("opening " + dir + " in " + gui);
  return true;
}

void run_capture(const CaptureArgs& args) {
  auto dir = args.dir.empty() ? trace::make_capture_dir() : trace::prepare_capture_dir(args.dir);
  if (!dir) {
    say(dir.error().message);
    set_exit_code(1);
    return;
  }
  if (const char* own = std::getenv("TORCH_TRACE"); own != nullptr && *own != '\0') {
    say(std::string("TORCH_TRACE=") + own + " is replaced for this run");
  }
  say("capturing into " + *dir + " (TORCH_TRACE)");
  const auto is_set = [](const std::string& name) { return std::getenv(name.c_str()) != nullptr; };
  // Our own buffered output must not land after the child's.
  std::fflush(stdout);
  const auto exit = run_child({args.command, trace::capture_environment(*dir, is_set)});
  if (!exit) {
    say(exit.error().message);
    // A folder of our own making that nothing was written to is not left behind.
    std::error_code ignored;
    if (args.dir.empty()) fs::remove(*dir, ignored);
    set_exit_code(kCannotStart);
    return;
  }
  const auto outcome = trace::capture_outcome(*dir, *exit);
  say(outcome.verdict(args.command.front()));
  const int status = exit->shell_status();
  if (!outcome.has_log()) {
    set_exit_code(status != 0 ? status : 1);
    return;
  }
  if (args.open && open_in_gui(*dir)) {
    set_exit_code(status);
    return;
  }
  // Here with --open, the app did not start: the summary stands in for it, and the status says so.
  const auto units = print_summary(*dir, args.rank, false);
  if (units == std::size_t{0}) {
    say("the log holds no compile unit: torch.compile was perhaps never reached (is the "
        "compiled function called?)");
  }
  const bool done = units && !args.open;
  set_exit_code(status != 0 ? status : (done ? 0 : 1));
}

}  // namespace

void add_capture_command(CLI::App& app) {
  auto args = std::make_shared<CaptureArgs>();
  auto* cmd = app.add_subcommand(
      "capture",
      "run your program with TORCH_TRACE set to a fresh folder, then summarize (or --open) the "
      "log it wrote: fxscope-cli capture -- python train.py ARGS");
  cmd->add_option("PROGRAM", args->command,
                  "the program and its arguments; put them after -- so that its options are "
                  "not read as capture's")
      ->required();
  cmd->add_option("--dir", args->dir,
                  "capture into DIR (made when missing, refused when not empty) instead of a "
                  "new folder under $TMPDIR");
  cmd->add_flag("--open", args->open,
                "open the captured folder in the desktop app (fxscope, or $FXSCOPE_GUI) instead of "
                "printing the summary");
  cmd->add_option("--rank", args->rank, "which rank's log the summary reads, when several wrote")
      ->capture_default_str();
  cmd->footer(std::string("The program's output goes to the terminal as it comes. ") +
              trace::kCaptureCacheNote +
              " Exit status: the program's own (128 + N when signal N killed it; Ctrl-C and "
              "SIGTERM reach it and the summary still follows), 127 when it cannot be started, "
              "1 when it wrote no log.");
  cmd->callback([args] { run_capture(*args); });
}

}  // namespace fxscope::cli
