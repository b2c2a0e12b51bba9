#pragma once
// File > Compare with...: the open log ("before", the diff's A) beside a second log ("after",
// B), and the engine's diff of the two. Built once on a worker thread, then only read: the
// graph marks, the units table and the summary columns all read this one diff.

#include <memory>
#include <string>

#include "fxscope/core/result.h"
#include "fxscope/report/run_diff.h"
#include "window/loaded_log.h"

namespace fxscope::views {

struct Comparison {
  LoadedLogPtr before;  // the log the window shows
  LoadedLogPtr after;   // the log opened with Compare with...
  report::RunDiff diff;
  std::string verdict;  // report::verdict(diff): the one line the panel and the status bar show
  std::string details;  // report::to_text(diff): `fxscope-cli diff`'s text, for the Compare tab
};

using ComparisonPtr = std::shared_ptr<const Comparison>;

// Reads AFTER_PATH and diffs BEFORE against it. Blocking: call it off the UI thread. An unreadable
// log is an Error naming the path; two unrelated programs are a comparison whose verdict says so.
Result<ComparisonPtr> compare_logs(LoadedLogPtr before, const std::string& after_path);

}  // namespace fxscope::views
