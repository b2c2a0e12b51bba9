#pragma once
// Finds the log to read when the user hands over a TORCH_TRACE directory, and every rank's log
// when a distributed job wrote one per rank.

#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope::trace {

// The chosen log file, its rank if the name has one, the other logs beside it, the other copies
// (plain or compressed) of every log there, and the other files there; none of those is read.
struct LocatedLog {
  std::string path;
  std::optional<int> rank;
  std::vector<int> ranks;  // every rank the directory holds, ascending; empty without ranks
  std::vector<std::string> others;
  std::vector<std::string> copies;
  std::vector<std::string> unread;  // files that are not TORCH_TRACE logs
};

// One rank's log in a directory of ranks.
struct RankLog {
  int rank = 0;
  std::string path;
};

// PATH itself when it is a file; in a directory, the log of RANK when ranks are in the names
// (dedicated_log_torch_trace_rank_N[_suffix].log) or in folder names (rankN/, rank_N/, rank-N/,
// each holding that rank's logs); without ranks, the newest log, and RANK must be 0. Of copies of
// one log (x.log, x.log.zst, x.log.gz) the first of these is read, the others listed as copies.
// Errors name the path and what was expected (for a missing rank, the ranks there are).
Result<LocatedLog> locate_log(const std::string& path, int rank);

// Every rank's log in DIR, ascending by rank, one per rank (as locate_log would choose it); an
// error when DIR holds no ranked logs.
Result<std::vector<RankLog>> rank_logs_in(const std::string& dir);

// "x.log" for a log file named x.log, x.log.gz or x.log.zst; nothing for another name.
std::optional<std::string> uncompressed_log_name(const std::string& file_name);

// The dedicated_log_torch_trace*.log files (.log.gz and .log.zst too) directly in DIR, sorted by
// path; empty when there are none or DIR cannot be listed.
std::vector<std::string> trace_logs_in(const std::string& dir);

// The N of "..._rank_N_<suffix>.log" or "..._rank_N.log" (.gz, .zst) in a log file name, if any.
std::optional<int> rank_of(const std::string& file_name);

// The N of a per-rank folder name: "rank0", "rank_1", "rank-2"; nothing for another name.
std::optional<int> rank_of_folder(const std::string& folder_name);

}  // namespace fxscope::trace
