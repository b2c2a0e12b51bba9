#pragma once
// One read and summarized TORCH_TRACE log, as the views share it: built once on a worker thread,
// then only read, so every panel may hold the same std::shared_ptr<const LoadedLog>.

#include <memory>
#include <string>

#include "fxscope/core/result.h"
#include "fxscope/report/compile_time.h"
#include "fxscope/report/summary.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::views {

// The log and its summary; the summary's strings are copies, the log keeps the mapping that the
// graph payloads point into, for the panels that parse them later.
struct LoadedLog {
  trace::TraceLog log;
  report::Summary summary;
  report::CompileTimeReport compile_time;  // where each unit's compile time went
};

using LoadedLogPtr = std::shared_ptr<const LoadedLog>;

// Reads and summarizes PATH (a log file or a directory). Blocking and slow on big logs: call it
// off the UI thread. An unusable input is an Error whose message names the path.
Result<LoadedLogPtr> load_log(const std::string& path);

}  // namespace fxscope::views
