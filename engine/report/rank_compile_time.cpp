#include "fxscope/report/rank_compile_time.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "fxscope/core/parallel_for.h"
#include "fxscope/trace/log_locator.h"

namespace fxscope::report {
namespace {

// Phases shown as the reason: a gap below this share of the slowest rank's total is noise.
constexpr std::size_t kShownGaps = 5;

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double own_time(const RankCompileTime& rank, const std::string& phase) {
  for (const auto& p : rank.by_phase) {
    if (p.name == phase) return p.self_s;
  }
  return 0;
}

}  // namespace

void find_slowest_rank(RanksCompileTime& out) {
  out.slowest.reset();
  out.others_median_s = 0;
  out.gaps.clear();
  std::vector<std::size_t> read;
  for (std::size_t i = 0; i < out.ranks.size(); ++i) {
    if (out.ranks[i].error.empty()) read.push_back(i);
  }
  if (read.size() < 2) return;
  const std::size_t slowest = *std::max_element(read.begin(), read.end(), [&](auto a, auto b) {
    return out.ranks[a].total_s < out.ranks[b].total_s;
  });
  out.slowest = slowest;
  std::vector<double> totals;
  for (const std::size_t i : read) {
    if (i != slowest) totals.push_back(out.ranks[i].total_s);
  }
  out.others_median_s = median_of(totals);
  // Every phase name any rank ran, with its label.
  std::map<std::string, std::string> names;
  for (const std::size_t i : read) {
    for (const auto& p : out.ranks[i].by_phase) names.emplace(p.name, p.what);
  }
  for (const auto& [name, what] : names) {
    std::vector<double> others;
    for (const std::size_t i : read) {
      if (i != slowest) others.push_back(own_time(out.ranks[i], name));
    }
    PhaseGap gap{name, what, own_time(out.ranks[slowest], name), median_of(others)};
    if (gap.gap_s() > 0) out.gaps.push_back(std::move(gap));
  }
  std::stable_sort(out.gaps.begin(), out.gaps.end(),
                   [](const auto& a, const auto& b) { return a.gap_s() > b.gap_s(); });
}

namespace {

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

}  // namespace

RankCompileTime rank_compile_time(int rank, std::string path, CompileTimeReport report) {
  RankCompileTime r;
  r.rank = rank;
  r.path = std::move(path);
  r.total_s = report.total_s;
  r.units = report.units.size();
  r.by_phase = std::move(report.by_phase);
  return r;
}

Result<RanksCompileTime> compile_time_across_ranks(const std::string& dir) {
  auto logs = trace::rank_logs_in(dir);
  if (!logs) return logs.error();
  RanksCompileTime out;
  out.dir = dir;
  out.ranks.resize(logs->size());
  parallel_for(logs->size(), [&](std::size_t i) {
    const auto& rank_log = (*logs)[i];
    auto log = trace::read_trace(rank_log.path);
    if (!log) {
      out.ranks[i] = {rank_log.rank, rank_log.path, 0, 0, {}, log.error().message};
      return;
    }
    out.ranks[i] = rank_compile_time(rank_log.rank, rank_log.path, compile_time(*log));
  });
  find_slowest_rank(out);
  return out;
}

std::string to_text(const RanksCompileTime& ranks) {
  std::string out = "compile time across the ranks of " + ranks.dir + "\n";
  out += "  rank    compile s  units\n";
  for (std::size_t i = 0; i < ranks.ranks.size(); ++i) {
    const auto& r = ranks.ranks[i];
    if (!r.error.empty()) {
      out += format("  %4d  not read: %s\n", r.rank, r.error.c_str());
      continue;
    }
    out += format("  %4d  %11.3f  %5zu%s\n", r.rank, r.total_s, r.units,
                  ranks.slowest == i ? "  slowest" : "");
  }
  if (!ranks.slowest) return out + "fewer than two ranks read: nothing to compare\n";
  const auto& slow = ranks.ranks[*ranks.slowest];
  out += format(
      "\nrank %d compiled slowest: %.3f s against a median of %.3f s on the others "
      "(%+.3f s)\n",
      slow.rank, slow.total_s, ranks.others_median_s, slow.total_s - ranks.others_median_s);
  if (ranks.gaps.empty()) return out + "no phase took longer on it than on the others\n";
  out += "where its time went, phases by own time over the others' median:\n";
  out += "    rank s   others s       gap  phase\n";
  for (std::size_t i = 0; i < ranks.gaps.size() && i < kShownGaps; ++i) {
    const auto& g = ranks.gaps[i];
    out += format("  %8.3f   %8.3f  %+8.3f  ", g.slowest_s, g.others_s, g.gap_s()) + g.name +
           (g.what.empty() ? "" : "  (" + g.what + ")") + "\n";
  }
  return out;
}

nlohmann::json to_json(const RanksCompileTime& ranks) {
  using nlohmann::json;
  json rows = json::array();
  for (const auto& r : ranks.ranks) {
    rows.push_back({{"rank", r.rank},
                    {"path", r.path},
                    {"total_s", r.total_s},
                    {"units", r.units},
                    {"error", r.error.empty() ? json(nullptr) : json(r.error)}});
  }
  json gaps = json::array();
  for (const auto& g : ranks.gaps) {
    gaps.push_back({{"name", g.name},
                    {"what", g.what},
                    {"slowest_s", g.slowest_s},
                    {"others_s", g.others_s},
                    {"gap_s", g.gap_s()}});
  }
  return {{"dir", ranks.dir},
          {"ranks", rows},
          {"slowest_rank", ranks.slowest ? json(ranks.ranks[*ranks.slowest].rank) : json(nullptr)},
          {"others_median_s", ranks.others_median_s},
          {"phase_gaps", gaps}};
}

}  // namespace fxscope::report
