#pragma once
// Finds the log to read when the user hands over a TORCH_TRACE directory.

#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope::trace {

// The chosen log file, its rank if the name has one, the other logs beside it, and the other
// copies (plain or compressed) of every log there, which are not read.
struct LocatedLog {
  std::string path;
  std::optional<int> rank;
  std::vector<std::string> others;
  std::vector<std::string> copies;
};

// PATH itself when it is a file; in a directory, the dedicated_log_torch_trace*.log (or .log.gz,
// .log.zst) of RANK when ranks are in the names, else the newest log. Of copies of one log
// (x.log, x.log.zst, x.log.gz) the first of these is read, the others listed as copies.
// Errors name the path and what was expected.
Result<LocatedLog> locate_log(const std::string& path, int rank);

// "x.log" for a log file named x.log, x.log.gz or x.log.zst; nothing for another name.
std::optional<std::string> uncompressed_log_name(const std::string& file_name);

// The dedicated_log_torch_trace*.log files (.log.gz and .log.zst too) directly in DIR, sorted by
// path; empty when there are none or DIR cannot be listed.
std::vector<std::string> trace_logs_in(const std::string& dir);

// The N of "..._rank_N_..." in a log file name, if any.
std::optional<int> rank_of(const std::string& file_name);

}  // namespace fxscope::trace
