#include "fxscope/trace/log_locator.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "fxscope/core/text.h"
#include "fxscope/trace/log_file.h"

namespace fxscope::trace {

namespace fs = std::filesystem;

namespace {

std::optional<int> non_negative(std::string_view digits) {
  const auto n = text::parse_int(digits);
  if (!n || *n < 0 || *n > 1'000'000) return std::nullopt;
  return static_cast<int>(*n);
}

}  // namespace

std::optional<int> rank_of(const std::string& file_name) {
  constexpr std::string_view kRank = "_rank_";
  const auto at = file_name.find(kRank);
  if (at == std::string::npos) return std::nullopt;
  const auto begin = at + kRank.size();
  // "_rank_3_ab12cd.log" (torch's random suffix) or "_rank_3.log" (launchers that name it).
  const auto end = file_name.find_first_of("_.", begin);
  if (end == std::string::npos) return std::nullopt;
  return non_negative(std::string_view(file_name).substr(begin, end - begin));
}

std::optional<int> rank_of_folder(const std::string& folder_name) {
  std::string_view rest(folder_name);
  if (!text::starts_with(rest, "rank")) return std::nullopt;
  rest.remove_prefix(4);
  if (!rest.empty() && (rest.front() == '_' || rest.front() == '-')) rest.remove_prefix(1);
  if (rest.empty() ||
      !std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return non_negative(rest);
}

namespace {

constexpr std::string_view kExpected =
    "expected a TORCH_TRACE log file or a directory holding dedicated_log_torch_trace*.log "
    "(or .log.gz, .log.zst), or one folder per rank (rank0/, rank_1/) holding them";

struct Candidate {
  std::string path;
  std::string log_name;  // the file name without its compression suffix
  Compression compression = Compression::none;
  std::optional<int> rank;
  fs::file_time_type mtime;
};

// What one directory holds: its logs (one copy each), the other copies, the files that are not
// logs, and its per-rank folders.
struct Listing {
  std::vector<Candidate> logs;
  std::vector<std::string> copies;
  std::vector<std::string> unread;
  std::vector<RankLog> rank_folders;  // ascending by rank
};

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

Listing list_dir(const fs::path& dir, std::error_code& ec) {
  Listing listing;
  std::vector<Candidate> logs;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    std::error_code file_ec;
    if (entry.is_directory(file_ec)) {
      if (const auto rank = rank_of_folder(name)) {
        listing.rank_folders.push_back({*rank, entry.path().string()});
      }
      continue;
    }
    if (!entry.is_regular_file(file_ec)) continue;
    const auto log_name = uncompressed_log_name(name);
    if (!log_name || !text::starts_with(name, "dedicated_log_torch_trace")) {
      listing.unread.push_back(entry.path().string());
      continue;
    }
    logs.push_back({entry.path().string(), *log_name, compression_of_name(name), rank_of(name),
                    entry.last_write_time(file_ec)});
  }
  std::sort(logs.begin(), logs.end(),
            [](const Candidate& a, const Candidate& b) { return a.path < b.path; });
  listing.logs = one_copy_each(std::move(logs), listing.copies);
  std::sort(listing.unread.begin(), listing.unread.end());
  std::sort(listing.rank_folders.begin(), listing.rank_folders.end(),
            [](const RankLog& a, const RankLog& b) { return a.rank < b.rank; });
  return listing;
}

// The newest log of RANK (of any rank when RANK is empty): a rank written twice into one
// directory by two runs keeps the run the user just made.
const Candidate* newest(const std::vector<Candidate>& logs, std::optional<int> rank) {
  const Candidate* best = nullptr;
  for (const auto& c : logs) {
    if (rank && c.rank != rank) continue;
    if (best == nullptr || best->mtime < c.mtime) best = &c;
  }
  return best;
}

std::vector<int> ranks_of(const std::vector<Candidate>& logs) {
  std::vector<int> ranks;
  for (const auto& c : logs) {
    if (c.rank) ranks.push_back(*c.rank);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (const int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

Result<Listing> listing_of(const std::string& dir) {
  std::error_code ec;
  auto listing = list_dir(dir, ec);
  if (ec) return make_error(dir + ": cannot list the directory (" + ec.message() + ")");
  return listing;
}

// The log a rank folder holds: its own ranked log if the names carry ranks, else the newest.
Result<std::string> log_in_rank_folder(const RankLog& folder) {
  auto listing = listing_of(folder.path);
  if (!listing) return listing.error();
  const bool ranked = !ranks_of(listing->logs).empty();
  const Candidate* chosen =
      newest(listing->logs, ranked ? std::optional(folder.rank) : std::nullopt);
  if (chosen == nullptr) chosen = newest(listing->logs, std::nullopt);
  if (chosen == nullptr) {
    return make_error(folder.path + ": the folder of rank " + std::to_string(folder.rank) +
                      " holds no dedicated_log_torch_trace*.log (nor .log.gz, .log.zst)");
  }
  return chosen->path;
}

Result<LocatedLog> locate_in_rank_folders(const std::string& path, const Listing& listing,
                                          int rank) {
  LocatedLog located;
  for (const auto& folder : listing.rank_folders) located.ranks.push_back(folder.rank);
  const auto folder = std::find_if(listing.rank_folders.begin(), listing.rank_folders.end(),
                                   [rank](const RankLog& f) { return f.rank == rank; });
  if (folder == listing.rank_folders.end()) {
    return make_error(path + ": no folder of rank " + std::to_string(rank) +
                      "; the ranks here are " + rank_list(located.ranks));
  }
  auto chosen = log_in_rank_folder(*folder);
  if (!chosen) return chosen.error();
  located.path = std::move(*chosen);
  located.rank = rank;
  for (const auto& other : listing.rank_folders) {
    if (other.rank != rank) located.others.push_back(other.path);
  }
  located.unread = listing.unread;
  return located;
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
  auto listing = list_dir(dir, ec);
  std::vector<std::string> paths;
  for (auto& log : listing.logs) paths.push_back(std::move(log.path));
  paths.insert(paths.end(), listing.copies.begin(), listing.copies.end());
  std::sort(paths.begin(), paths.end());
  return paths;
}

Result<LocatedLog> locate_log(const std::string& path, int rank) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    return make_error(path + ": no such file or directory; " + std::string(kExpected));
  }
  if (!fs::is_directory(status)) {
    return LocatedLog{path, rank_of(fs::path(path).filename().string()), {}, {}, {}, {}};
  }
  auto listing = listing_of(path);
  if (!listing) return listing.error();
  if (listing->logs.empty() && !listing->rank_folders.empty()) {
    return locate_in_rank_folders(path, *listing, rank);
  }
  if (listing->logs.empty()) {
    return make_error(path +
                      ": directory holds no dedicated_log_torch_trace*.log (nor .log.gz, "
                      ".log.zst); " +
                      std::string(kExpected));
  }
  LocatedLog located;
  located.copies = std::move(listing->copies);
  located.unread = std::move(listing->unread);
  located.ranks = ranks_of(listing->logs);
  const Candidate* chosen = nullptr;
  if (!located.ranks.empty()) {
    chosen = newest(listing->logs, rank);
    if (chosen == nullptr) {
      return make_error(path + ": no log of rank " + std::to_string(rank) +
                        "; the ranks here are " + rank_list(located.ranks));
    }
  } else {
    if (rank != 0) {
      return make_error(path + ": no log of rank " + std::to_string(rank) +
                        ": the logs here carry no rank in their names "
                        "(dedicated_log_torch_trace_rank_N*.log)");
    }
    // Several runs into one directory: the newest is the one the user just made.
    chosen = newest(listing->logs, std::nullopt);
  }
  located.path = chosen->path;
  located.rank = chosen->rank;
  for (const auto& c : listing->logs) {
    if (c.path != chosen->path) located.others.push_back(c.path);
  }
  return located;
}

Result<std::vector<RankLog>> rank_logs_in(const std::string& dir) {
  auto listing = listing_of(dir);
  if (!listing) return listing.error();
  std::vector<RankLog> logs;
  if (listing->logs.empty()) {
    for (const auto& folder : listing->rank_folders) {
      auto chosen = log_in_rank_folder(folder);
      if (!chosen) return chosen.error();
      logs.push_back({folder.rank, std::move(*chosen)});
    }
  } else {
    for (const int rank : ranks_of(listing->logs)) {
      logs.push_back({rank, newest(listing->logs, rank)->path});
    }
  }
  if (logs.empty()) {
    return make_error(dir +
                      ": no per-rank logs (dedicated_log_torch_trace_rank_N*.log, or folders "
                      "rank0/, rank_1/ holding them)");
  }
  return logs;
}

}  // namespace fxscope::trace
