#include "rank_divergence.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace fxscope::report {

namespace {

using KeyOf = std::function<std::optional<std::string>(const RankFacts&)>;

std::string joined(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

// The ranks grouped by what KEY_OF says of them (ranks it says nothing of are left out); a
// divergence only when two or more groups remain.
std::optional<Divergence> grouped(DivergenceKind kind, const std::vector<RankedFacts>& ranks,
                                  const KeyOf& key_of) {
  std::map<std::string, std::vector<int>> by_key;
  for (const auto& r : ranks) {
    if (auto key = key_of(r.facts)) by_key[*key].push_back(r.rank);
  }
  if (by_key.size() < 2) return std::nullopt;
  std::vector<std::pair<std::vector<int>, std::string>> groups;
  for (auto& [key, members] : by_key) groups.emplace_back(std::move(members), key);
  std::sort(groups.begin(), groups.end());
  Divergence d;
  d.kind = kind;
  for (auto& [members, key] : groups) {
    d.groups.push_back(std::move(members));
    d.values.push_back(std::move(key));
  }
  return d;
}

// Every compile id that any rank has, in the order the first rank to have it compiled it.
std::vector<std::string> all_compile_ids(const std::vector<RankedFacts>& ranks) {
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (const auto& r : ranks) {
    for (const auto& id : r.facts.compile_ids) {
      if (seen.insert(id).second) ids.push_back(id);
    }
  }
  return ids;
}

bool has_compile(const RankFacts& f, const std::string& id) {
  return std::find(f.compile_ids.begin(), f.compile_ids.end(), id) != f.compile_ids.end();
}

template <class Map>
std::optional<std::string> per_compile(const Map& map, const RankFacts& f, const std::string& id,
                                       std::string absent) {
  const auto it = map.find(id);
  if (it != map.end()) return it->second;
  return has_compile(f, id) ? std::optional(std::move(absent)) : std::nullopt;
}

// Where the first two groups' schedules first differ: "op 4: reduce_scatter_tensor against
// wait_tensor", or their lengths when one is the other's beginning.
std::string first_difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) {
      return "op " + std::to_string(i + 1) + ": " + short_op_names(a[i]) + " against " +
             short_op_names(b[i]);
    }
  }
  return std::to_string(a.size()) + " ops against " + std::to_string(b.size());
}

void collectives(const std::vector<RankedFacts>& ranks, const std::vector<std::string>& ids,
                 std::vector<Divergence>& out) {
  for (const auto& id : ids) {
    auto d = grouped(DivergenceKind::kCollectives, ranks,
                     [&](const RankFacts& f) -> std::optional<std::string> {
                       const auto it = f.collectives.find(id);
                       if (it != f.collectives.end()) return joined(it->second);
                       return has_compile(f, id) ? std::optional<std::string>("") : std::nullopt;
                     });
    if (d) {
      std::vector<std::vector<std::string>> schedules;
      for (const auto& group : d->groups) {
        const auto& f = std::find_if(ranks.begin(), ranks.end(), [&](const RankedFacts& r) {
                          return r.rank == group.front();
                        })->facts;
        const auto it = f.collectives.find(id);
        schedules.push_back(it == f.collectives.end() ? std::vector<std::string>{} : it->second);
      }
      d->compile_id = id;
      d->detail = "compile " + id + ": the ranks schedule different collectives (" +
                  ranks_text(d->groups[0]) + " against " + ranks_text(d->groups[1]) + " at " +
                  first_difference(schedules[0], schedules[1]) +
                  "); ranks that disagree on collectives wait on each other forever";
      out.push_back(std::move(*d));
    }
    auto unwaited = grouped(
        DivergenceKind::kCollectives, ranks, [&](const RankFacts& f) -> std::optional<std::string> {
          const auto it = f.unwaited.find(id);
          if (it == f.unwaited.end())
            return has_compile(f, id) ? std::optional<std::string>("0") : std::nullopt;
          return std::to_string(it->second);
        });
    // Collectives left unwaited are a fault even when every rank has the same ones.
    std::vector<int> with;
    std::string count;
    for (const auto& r : ranks) {
      const auto it = r.facts.unwaited.find(id);
      if (it != r.facts.unwaited.end()) {
        with.push_back(r.rank);
        count = std::to_string(it->second);
      }
    }
    if (with.empty()) continue;
    Divergence d2 = unwaited ? std::move(*unwaited) : Divergence{};
    if (!unwaited) {
      d2.kind = DivergenceKind::kCollectives;
      d2.groups = {with};
      d2.values = {count};
    }
    d2.compile_id = id;
    d2.detail = "compile " + id + ": the output code launches collectives it never waits on " +
                "(wait_tensor) on " + ranks_text(with) + " (" + count +
                " there); an unwaited collective races the next one";
    out.push_back(std::move(d2));
  }
}

void per_compile_check(
    DivergenceKind kind, const std::vector<RankedFacts>& ranks, const std::vector<std::string>& ids,
    const std::string& what,
    const std::function<std::optional<std::string>(const RankFacts&, const std::string&)>& key_of,
    std::vector<Divergence>& out) {
  for (const auto& id : ids) {
    auto d = grouped(kind, ranks, [&](const RankFacts& f) { return key_of(f, id); });
    if (!d) continue;
    d->compile_id = id;
    d->detail = "compile " + id + ": " + what + " (" + std::to_string(d->groups.size()) +
                " versions among the ranks)";
    out.push_back(std::move(*d));
  }
}

void graphs(const std::vector<RankedFacts>& ranks, const std::vector<std::string>& ids,
            std::vector<Divergence>& out) {
  for (const auto& id : ids) {
    auto d = grouped(DivergenceKind::kGraphs, ranks,
                     [&](const RankFacts& f) -> std::optional<std::string> {
                       const auto it = f.graphs.find(id);
                       if (it == f.graphs.end() || it->second.empty()) return std::nullopt;
                       std::string key;
                       for (const auto& [level, md5] : it->second) key += level + " " + md5 + "\n";
                       return key;
                     });
    if (!d) continue;
    // Name the first level whose hash differs between the first two groups.
    std::string level = "graph";
    const auto& a = d->values[0];
    const auto& b = d->values[1];
    std::size_t at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
    const auto line_start = a.rfind('\n', at == 0 ? 0 : at - 1);
    const auto from = at == 0 || line_start == std::string::npos ? 0 : line_start + 1;
    level = a.substr(from, a.find(' ', from) - from);
    if (level == "Dynamo" || level == "AOT" || level == "post-grad") level += " graph";
    d->compile_id = id;
    d->detail = "compile " + id + ": the same compile id holds another " + level + " on " +
                ranks_text(d->groups[1]) + " than on " + ranks_text(d->groups[0]);
    out.push_back(std::move(*d));
  }
}

void runtime(const std::vector<RankedFacts>& ranks, const std::vector<std::string>& ids,
             std::vector<Divergence>& out) {
  constexpr double kTolerance = 1.10;
  for (const auto& id : ids) {
    std::vector<std::pair<double, int>> estimates;
    for (const auto& r : ranks) {
      const auto it = r.facts.runtime_ns.find(id);
      if (it != r.facts.runtime_ns.end() && it->second > 0)
        estimates.emplace_back(it->second, r.rank);
    }
    if (estimates.size() < 2) continue;
    std::sort(estimates.begin(), estimates.end());
    const double fastest = estimates.front().first;
    const double slowest = estimates.back().first;
    if (slowest <= fastest * kTolerance) continue;
    Divergence d;
    d.kind = DivergenceKind::kRuntime;
    d.compile_id = id;
    std::vector<int> near, far;
    for (const auto& [ns, rank] : estimates)
      (ns <= fastest * kTolerance ? near : far).push_back(rank);
    std::sort(near.begin(), near.end());
    std::sort(far.begin(), far.end());
    d.groups = {near, far};
    const auto ms = [](double ns) { return std::to_string(ns / 1e6).substr(0, 6) + " ms"; };
    d.values = {ms(fastest), ms(slowest)};
    d.detail = "compile " + id + ": Inductor estimates " + ms(slowest) + " on rank " +
               std::to_string(estimates.back().second) + " against " + ms(fastest) + " on rank " +
               std::to_string(estimates.front().second) + "; the fast ranks wait for the slow";
    out.push_back(std::move(d));
  }
}

void whole_log_checks(const std::vector<RankedFacts>& ranks, const std::vector<std::string>& ids,
                      std::vector<Divergence>& out) {
  if (auto d = grouped(DivergenceKind::kCompileIds, ranks, [](const RankFacts& f) {
        std::vector<std::string> sorted = f.compile_ids;
        std::sort(sorted.begin(), sorted.end());
        return std::optional(joined(sorted));
      })) {
    std::vector<std::string> not_everywhere;
    for (const auto& id : ids) {
      if (!std::all_of(ranks.begin(), ranks.end(),
                       [&](const RankedFacts& r) { return has_compile(r.facts, id); })) {
        not_everywhere.push_back(id);
      }
    }
    constexpr std::size_t kShown = 8;
    std::vector<std::string> shown(not_everywhere.begin(),
                                   not_everywhere.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                kShown, not_everywhere.size())));
    d->detail = "the ranks compiled different frames: " + std::to_string(not_everywhere.size()) +
                " compile ids are not on every rank (" + joined(shown) +
                (not_everywhere.size() > kShown ? ", ..." : "") + ")";
    out.push_back(std::move(*d));
  }
  if (auto d = grouped(DivergenceKind::kRecompiles, ranks, [](const RankFacts& f) {
        return std::optional(joined(f.recompiles, "\n"));
      })) {
    d->detail = "the ranks recompiled differently: " + ranks_text(d->groups[0]) + " with " +
                std::to_string(std::count(d->values[0].begin(), d->values[0].end(), '\n') +
                               !d->values[0].empty()) +
                " recompile reasons, " + ranks_text(d->groups[1]) + " with " +
                std::to_string(std::count(d->values[1].begin(), d->values[1].end(), '\n') +
                               !d->values[1].empty());
    out.push_back(std::move(*d));
  }
}

}  // namespace

std::vector<Divergence> find_divergence(const std::vector<RankedFacts>& ranks) {
  std::vector<Divergence> out;
  if (ranks.empty()) return out;
  const auto ids = all_compile_ids(ranks);
  collectives(ranks, ids, out);
  if (auto d = grouped(DivergenceKind::kExecutionOrder, ranks,
                       [](const RankFacts& f) -> std::optional<std::string> {
                         if (!f.execution_order) return std::nullopt;
                         return joined(*f.execution_order);
                       })) {
    d->detail = "the ranks run their compiled graphs in different orders (" +
                ranks_text(d->groups[0]) + ": " + d->values[0] + "; " + ranks_text(d->groups[1]) +
                ": " + d->values[1] + ")";
    out.push_back(std::move(*d));
  }
  graphs(ranks, ids, out);
  whole_log_checks(ranks, ids, out);
  per_compile_check(
      DivergenceKind::kTensorMeta, ranks, ids,
      "Inductor's ops produce tensors of other shapes, strides or dtypes",
      [](const RankFacts& f, const std::string& id) {
        return per_compile(f.tensor_meta, f, id, "");
      },
      out);
  if (auto d = grouped(DivergenceKind::kCache, ranks,
                       [](const RankFacts& f) { return std::optional(joined(f.cache_events)); })) {
    d->detail = "the ranks hit and missed the compile caches in different patterns (" +
                std::to_string(d->groups.size()) +
                " patterns); a rank that misses compiles while the others wait";
    out.push_back(std::move(*d));
  }
  runtime(ranks, ids, out);
  std::stable_sort(out.begin(), out.end(), [](const Divergence& a, const Divergence& b) {
    return static_cast<int>(a.kind) < static_cast<int>(b.kind);
  });
  return out;
}

}  // namespace fxscope::report
