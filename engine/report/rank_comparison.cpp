#include "fxscope/report/rank_comparison.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>

#include "fxscope/core/parallel_for.h"
#include "fxscope/report/summary.h"
#include "fxscope/trace/log_locator.h"
#include "rank_divergence.h"

namespace fxscope::report {

std::string_view to_string(DivergenceKind kind) {
  switch (kind) {
    case DivergenceKind::kCollectives:
      return "collectives";
    case DivergenceKind::kExecutionOrder:
      return "execution_order";
    case DivergenceKind::kGraphs:
      return "graphs";
    case DivergenceKind::kCompileIds:
      return "compile_ids";
    case DivergenceKind::kRecompiles:
      return "recompiles";
    case DivergenceKind::kTensorMeta:
      return "tensor_meta";
    case DivergenceKind::kCache:
      return "cache";
    case DivergenceKind::kRuntime:
      break;
  }
  return "runtime";
}

std::string ranks_text(const std::vector<int>& group) {
  std::vector<int> ranks = group;
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.size() == 1) return "rank " + std::to_string(ranks.front());
  const auto n = ranks.size();
  // Every k-th rank (one rank of each node, one stage of each pipeline): said as such.
  if (n >= 4 && ranks[1] - ranks[0] > 1) {
    const int step = ranks[1] - ranks[0];
    bool progression = true;
    for (std::size_t i = 2; i < n && progression; ++i)
      progression = ranks[i] - ranks[i - 1] == step;
    if (progression) {
      const int tens = step % 100 / 10;
      const int unit = step % 10;
      const char* suffix = tens == 1 || unit == 0 || unit > 3 ? "th"
                           : unit == 1                        ? "st"
                           : unit == 2                        ? "nd"
                                                              : "rd";
      return std::to_string(n) + " ranks, every " + std::to_string(step) + suffix + " from " +
             std::to_string(ranks.front()) + " to " + std::to_string(ranks.back());
    }
  }
  // Runs of three or more consecutive ranks as a range.
  std::vector<std::string> items;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && ranks[j + 1] == ranks[j] + 1) ++j;
    if (j - i >= 2) {
      items.push_back(std::to_string(ranks[i]) + "-" + std::to_string(ranks[j]));
    } else {
      for (std::size_t k = i; k <= j; ++k) items.push_back(std::to_string(ranks[k]));
    }
    i = j + 1;
  }
  // Hundreds of ranks stay one line: the first items, then the last.
  constexpr std::size_t kShown = 8;
  std::string out = ranks.size() > kShown ? std::to_string(n) + " ranks: " : "ranks ";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items.size() > kShown + 1 && i == kShown - 1) {
      out += ", ..., " + items.back();
      break;
    }
    out += (i == 0 ? "" : ", ") + items[i];
  }
  return out;
}

std::string short_op_names(std::string_view text) {
  constexpr std::string_view kPrefix = "torch.ops._c10d_functional.";
  constexpr std::string_view kOverload = ".default";
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.substr(i, kPrefix.size()) != kPrefix) {
      out += text[i++];
      continue;
    }
    i += kPrefix.size();
    std::size_t end = i;
    while (end < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) {
      ++end;
    }
    out.append(text.substr(i, end - i));
    i = end;
    if (text.substr(i, kOverload.size()) == kOverload) i += kOverload.size();
  }
  return out;
}

namespace {

RankSummary count(const Summary& summary, int rank) {
  RankSummary r;
  r.rank = rank;
  r.path = summary.path;
  r.units = summary.units.size();
  r.graph_breaks = summary.graph_break_hits();
  r.recompiles = summary.recompiles.size();
  for (const auto& u : summary.units) {
    r.kernels += u.inductor_kernels.value_or(0);
    r.compile_s += u.compile_time_s.value_or(0.0);
  }
  return r;
}

}  // namespace

Result<RankComparison> compare_ranks(const std::string& dir, const RankProgress& progress) {
  auto logs = trace::rank_logs_in(dir);
  if (!logs) return logs.error();
  RankComparison comparison;
  comparison.dir = dir;
  const std::size_t total = logs->size();
  comparison.ranks.resize(total);
  comparison.compile_time.dir = dir;
  comparison.compile_time.ranks.resize(total);
  std::vector<std::optional<RankFacts>> facts(total);
  std::vector<Warnings> warnings(total);
  std::atomic<std::size_t> done{0};
  std::mutex progress_mutex;
  // Each rank is read, counted and reduced to its facts on one thread; its log is released
  // before the thread takes the next rank, so memory holds a few logs, not all of them.
  parallel_for(total, [&](std::size_t i) {
    const auto& rank_log = (*logs)[i];
    auto log = trace::read_trace(rank_log.path);
    if (!log) {
      comparison.ranks[i] = {rank_log.rank, rank_log.path, 0, 0, 0, 0, 0, log.error().message};
      comparison.compile_time.ranks[i] = {rank_log.rank,      rank_log.path, 0, 0, {},
                                          log.error().message};
      warnings[i].push_back({rank_log.path, "rank " + std::to_string(rank_log.rank) +
                                                " not compared: " + log.error().message});
    } else {
      const Summary summary = summarize(*log);
      comparison.ranks[i] = count(summary, rank_log.rank);
      comparison.compile_time.ranks[i] =
          rank_compile_time(rank_log.rank, rank_log.path, compile_time(*log));
      facts[i] = facts_of(*log);
      warnings[i] = summary.warnings;
    }
    const std::size_t now = ++done;
    if (progress) {
      const std::lock_guard lock(progress_mutex);
      progress(now, total);
    }
  });
  std::vector<RankedFacts> read;
  for (std::size_t i = 0; i < total; ++i) {
    comparison.warnings.insert(comparison.warnings.end(), warnings[i].begin(), warnings[i].end());
    if (facts[i]) read.push_back({comparison.ranks[i].rank, std::move(*facts[i])});
  }
  comparison.divergence = find_divergence(read);
  find_slowest_rank(comparison.compile_time);
  return comparison;
}

}  // namespace fxscope::report
