#pragma once
// Capturing a TORCH_TRACE log of the user's own program: the folder it goes to, the variables
// the program runs with, and what the finished run left there. The CLI and the GUI start the
// program their own way (a child process sharing the terminal, a QProcess) and share the rest.

#include <functional>
#include <string>
#include <vector>

#include "fxscope/core/child_process.h"
#include "fxscope/core/result.h"

namespace fxscope::trace {

// Why a capture turns Inductor's caches off, in words for --help and the capture dialog.
extern const char* const kCaptureCacheNote;

// The variables a capture into TRACE_DIR sets: TORCH_TRACE, and Inductor's FX graph and
// autograd caches off unless IS_SET says the program's environment already chooses them.
std::vector<EnvVar> capture_environment(const std::string& trace_dir,
                                        const std::function<bool(const std::string&)>& is_set);

// A new empty folder fxscope-capture-XXXXXX under PARENT, or under $TMPDIR (else /tmp) when
// PARENT is empty.
Result<std::string> make_capture_dir(const std::string& parent = {});
// DIR as the user named it: created when missing, refused when it already holds files, since
// the summary must show this run's logs and no older ones.
Result<std::string> prepare_capture_dir(const std::string& dir);

// What a finished capture left in its folder.
struct CaptureOutcome {
  std::string dir;
  ChildExit exit;
  std::vector<std::string> logs;  // the dedicated_log_torch_trace*.log files written

  bool has_log() const { return !logs.empty(); }
  bool success() const { return exit.success() && has_log(); }
  // One line: how PROGRAM ended and what it wrote, with a hint when it wrote no log.
  std::string verdict(const std::string& program) const;
};

CaptureOutcome capture_outcome(const std::string& dir, const ChildExit& exit);

}  // namespace fxscope::trace
