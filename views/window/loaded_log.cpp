#include "window/loaded_log.h"

#include <exception>
#include <new>
#include <utility>

namespace fxscope::views {

Result<LoadedLogPtr> load_log(const std::string& path) {
  // The engine returns errors as values, but memory can still run out on a huge log: that must
  // end in a message, not in an exception rethrown on the UI thread.
  try {
    auto log = trace::read_trace(path);
    if (!log) return log.error();
    auto loaded = std::make_shared<LoadedLog>();
    loaded->log = std::move(*log);
    loaded->summary = report::summarize(loaded->log);
    loaded->compile_time = report::compile_time(loaded->log);
    return LoadedLogPtr(std::move(loaded));
  } catch (const std::exception& error) {
    return make_error(path + ": " + error.what());
  }
}

}  // namespace fxscope::views
