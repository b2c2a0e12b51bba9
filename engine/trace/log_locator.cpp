#include "fxscope/trace/log_locator.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "fxscope/core/text.h"

namespace fxscope::trace {

namespace fs = std::filesystem;

std::optional<int> rank_of(const std::string& file_name) {
  constexpr std::string_view kRank = "_rank_";
  const auto at = file_name.find(kRank);
  if (at == std::string::npos) return std::nullopt;
  const auto begin = at + kRank.size();
  const auto end = file_name.find('_', begin);
  if (end == std::string::npos) return std::nullopt;
  const auto n = text::parse_int(std::string_view(file_name).substr(begin, end - begin));
  if (!n || *n < 0) return std::nullopt;
  return static_cast<int>(*n);
}

namespace {

constexpr std::string_view kExpected =
    "expected a TORCH_TRACE log file or a directory holding dedicated_log_torch_trace*.log";

struct Candidate {
  std::string path;
  std::optional<int> rank;
  fs::file_time_type mtime;
};

std::vector<Candidate> list_logs(const fs::path& dir, std::error_code& ec) {
  std::vector<Candidate> logs;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    std::error_code file_ec;
    if (!entry.is_regular_file(file_ec) || !text::starts_with(name, "dedicated_log_torch_trace") ||
        !text::ends_with(name, ".log")) {
      continue;
    }
    logs.push_back({entry.path().string(), rank_of(name), entry.last_write_time(file_ec)});
  }
  std::sort(logs.begin(), logs.end(),
            [](const Candidate& a, const Candidate& b) { return a.path < b.path; });
  return logs;
}

}  // namespace

std::vector<std::string> trace_logs_in(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (auto& log : list_logs(dir, ec)) paths.push_back(std::move(log.path));
  return paths;
}

Result<LocatedLog> locate_log(const std::string& path, int rank) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    return make_error(path + ": no such file or directory; " + std::string(kExpected));
  }
  if (!fs::is_directory(status)) {
    return LocatedLog{path, rank_of(fs::path(path).filename().string()), {}};
  }
  auto logs = list_logs(path, ec);
  if (ec) return make_error(path + ": cannot list the directory (" + ec.message() + ")");
  if (logs.empty()) {
    return make_error(path + ": directory holds no dedicated_log_torch_trace*.log; " +
                      std::string(kExpected));
  }
  const bool ranked =
      std::any_of(logs.begin(), logs.end(), [](const Candidate& c) { return c.rank.has_value(); });
  std::vector<Candidate>::const_iterator chosen;
  if (ranked) {
    chosen = std::find_if(logs.begin(), logs.end(),
                          [rank](const Candidate& c) { return c.rank == rank; });
    if (chosen == logs.end()) {
      return make_error(path + ": no log of rank " + std::to_string(rank) + " among " +
                        std::to_string(logs.size()) + " dedicated_log_torch_trace*.log files");
    }
  } else {
    // Several runs into one directory: the newest is the one the user just made.
    chosen = std::max_element(logs.begin(), logs.end(), [](const Candidate& a, const Candidate& b) {
      return a.mtime < b.mtime;
    });
  }
  LocatedLog located{chosen->path, chosen->rank, {}};
  for (const auto& c : logs) {
    if (c.path != chosen->path) located.others.push_back(c.path);
  }
  return located;
}

}  // namespace fxscope::trace
