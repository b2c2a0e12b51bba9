#include "fxscope/trace/capture.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "fxscope/trace/log_locator.h"

namespace fxscope::trace {

namespace fs = std::filesystem;

const char* const kCaptureCacheNote =
    "TORCHINDUCTOR_FX_GRAPH_CACHE=0 and TORCHINDUCTOR_AUTOGRAD_CACHE=0 are set unless the "
    "environment already sets them: a graph found in Inductor's cache is logged without its "
    "output code, and fxscope could not show its kernels.";

std::vector<EnvVar> capture_environment(const std::string& trace_dir,
                                        const std::function<bool(const std::string&)>& is_set) {
  std::vector<EnvVar> vars = {{"TORCH_TRACE", trace_dir}};
  for (const char* cache : {"TORCHINDUCTOR_FX_GRAPH_CACHE", "TORCHINDUCTOR_AUTOGRAD_CACHE"}) {
    if (!is_set(cache)) vars.push_back({cache, "0"});
  }
  return vars;
}

Result<std::string> make_capture_dir(const std::string& parent) {
  std::string base = parent;
  if (base.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string name = (fs::path(base) / "fxscope-capture-XXXXXX").string();
  if (::mkdtemp(name.data()) == nullptr) {
    return make_error(base + ": cannot make a capture folder there (" + std::strerror(errno) + ")");
  }
  return name;
}

Result<std::string> prepare_capture_dir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) return make_error(dir + ": exists and is not a folder");
    if (!fs::is_empty(dir, ec)) {
      return make_error(dir +
                        ": the folder already holds files; a capture needs an empty or new "
                        "folder, so that its summary shows this run's logs only");
    }
    if (ec) return make_error(dir + ": cannot read the folder (" + ec.message() + ")");
    return fs::absolute(dir, ec).string();
  }
  fs::create_directories(dir, ec);
  if (ec) return make_error(dir + ": cannot make the folder (" + ec.message() + ")");
  return fs::absolute(dir, ec).string();
}

std::string CaptureOutcome::verdict(const std::string& program) const {
  std::string line = program + " " + exit.describe();
  const std::size_t n = logs.size();
  if (n > 0) {
    const std::string count = n == 1 ? "1 log" : std::to_string(n) + " logs";
    return line + (exit.success() ? "; " + count + " written in " : "; " + count + " so far in ") +
           dir;
  }
  return line + (exit.success() ? " but" : " and") + " wrote no TORCH_TRACE log in " + dir +
         ": torch.compile was perhaps never reached (is the compiled function called?), or the "
         "program set TORCH_TRACE itself";
}

CaptureOutcome capture_outcome(const std::string& dir, const ChildExit& exit) {
  return CaptureOutcome{dir, exit, trace_logs_in(dir)};
}

}  // namespace fxscope::trace
