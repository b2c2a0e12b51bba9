#pragma once
// Finds the log to read when the user hands over a TORCH_TRACE directory.

#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope::trace {

// The chosen log file, its rank if the name has one, and the other logs beside it.
struct LocatedLog {
  std::string path;
  std::optional<int> rank;
  std::vector<std::string> others;
};

// PATH itself when it is a file; in a directory, the dedicated_log_torch_trace*.log of RANK when
// ranks are in the names, else the newest log. Errors name the path and what was expected.
Result<LocatedLog> locate_log(const std::string& path, int rank);

// The dedicated_log_torch_trace*.log files directly in DIR, sorted by path; empty when there are
// none or DIR cannot be listed.
std::vector<std::string> trace_logs_in(const std::string& dir);

// The N of "..._rank_N_..." in a log file name, if any.
std::optional<int> rank_of(const std::string& file_name);

}  // namespace fxscope::trace
