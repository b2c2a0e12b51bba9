#include "fxscope/trace/log_locator.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "fxscope/core/text.h"
#include "fxscope/trace/log_file.h"

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
    "expected a TORCH_TRACE log file or a directory holding dedicated_log_torch_trace*.log "
    "(or .log.gz, .log.zst)";

struct Candidate {
  std::string path;
  std::string log_name;  // the file name without its compression suffix
  Compression compression = Compression::none;
  std::optional<int> rank;
  fs::file_time_type mtime;
};

std::vector<Candidate> list_logs(const fs::path& dir, std::error_code& ec) {
  std::vector<Candidate> logs;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    std::error_code file_ec;
    if (!entry.is_regular_file(file_ec) || !text::starts_with(name, "dedicated_log_torch_trace")) {
      continue;
    }
    const auto log_name = uncompressed_log_name(name);
    if (!log_name) continue;
    logs.push_back({entry.path().string(), *log_name, compression_of_name(name), rank_of(name),
                    entry.last_write_time(file_ec)});
  }
  std::sort(logs.begin(), logs.end(),
            [](const Candidate& a, const Candidate& b) { return a.path < b.path; });
  return logs;
}

// Of copies of one log, the one to read: the plain file (mapped, nothing to decompress, and the
// one torch writes), then zstd (decompresses several times faster than gzip).
int preference(Compression compression) {
  switch (compression) {
    case Compression::none:
      return 0;
    case Compression::zstd:
      return 1;
    case Compression::gzip:
      break;
  }
  return 2;
}

// One candidate per log name, the preferred copy; the other copies go to COPIES.
std::vector<Candidate> one_copy_each(std::vector<Candidate> logs,
                                     std::vector<std::string>& copies) {
  std::stable_sort(logs.begin(), logs.end(), [](const Candidate& a, const Candidate& b) {
    if (a.log_name != b.log_name) return a.log_name < b.log_name;
    return preference(a.compression) < preference(b.compression);
  });
  std::vector<Candidate> kept;
  for (auto& c : logs) {
    if (!kept.empty() && kept.back().log_name == c.log_name) {
      copies.push_back(c.path);
    } else {
      kept.push_back(std::move(c));
    }
  }
  return kept;
}

}  // namespace

std::optional<std::string> uncompressed_log_name(const std::string& file_name) {
  for (const std::string_view suffix : {".log", ".log.gz", ".log.zst"}) {
    if (text::ends_with(file_name, suffix)) {
      return file_name.substr(0, file_name.size() - suffix.size() + 4);
    }
  }
  return std::nullopt;
}

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
    return LocatedLog{path, rank_of(fs::path(path).filename().string()), {}, {}};
  }
  auto listed = list_logs(path, ec);
  if (ec) return make_error(path + ": cannot list the directory (" + ec.message() + ")");
  if (listed.empty()) {
    return make_error(path +
                      ": directory holds no dedicated_log_torch_trace*.log (nor .log.gz, "
                      ".log.zst); " +
                      std::string(kExpected));
  }
  LocatedLog located;
  const auto logs = one_copy_each(std::move(listed), located.copies);
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
  located.path = chosen->path;
  located.rank = chosen->rank;
  for (const auto& c : logs) {
    if (c.path != chosen->path) located.others.push_back(c.path);
  }
  return located;
}

}  // namespace fxscope::trace
