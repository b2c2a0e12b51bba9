// The cache half of `diff`: each paired unit's lookups in Inductor's FX graph cache and
// AOTAutograd's cache, A's beside B's, and each log's lookups counted by outcome. Two keys
// differ exactly where the hashes of the details PyTorch logged with them differ, so a miss
// after a change names what changed.

#include <algorithm>
#include <map>

#include "run_diff_facts.h"

namespace fxscope::report {
namespace {

std::string cache_title(const std::string& cache) {
  if (cache == "fx_graph") return "FX graph";
  if (cache == "aot_autograd") return "AOTAutograd";
  return cache;
}

std::vector<KeyComponentChange> component_changes(const CacheLookup& x, const CacheLookup& y) {
  std::map<std::string, KeyComponentChange> all;
  for (const auto& [name, hv] : x.key_details) all[name].a = hv.second;
  for (const auto& [name, hv] : y.key_details) all[name].b = hv.second;
  std::vector<KeyComponentChange> out;
  for (auto& [name, change] : all) {
    const auto ix = x.key_details.find(name);
    const auto iy = y.key_details.find(name);
    if (ix != x.key_details.end() && iy != y.key_details.end() &&
        ix->second.first == iy->second.first) {
      continue;
    }
    change.name = name;
    out.push_back(std::move(change));
  }
  return out;
}

// Hits and misses lead, as a reader asks about them first; other states follow by name.
int state_rank(const std::string& state) {
  if (state == "hit") return 0;
  if (state == "miss") return 1;
  return 2;
}

void count_lookups(const CompileTimeReport& times, bool a_side,
                   std::map<std::string, std::map<std::string, CacheStateCount>>& counts) {
  for (const auto& unit : times.units) {
    for (const auto& l : unit.caches) {
      auto& c = counts[l.cache][l.state];
      ++(a_side ? c.a : c.b);
    }
  }
}

}  // namespace

std::vector<CacheStateCount> cache_state_counts(const CompileTimeReport& times_a,
                                                const CompileTimeReport& times_b) {
  std::map<std::string, std::map<std::string, CacheStateCount>> counts;
  count_lookups(times_a, true, counts);
  count_lookups(times_b, false, counts);
  std::vector<CacheStateCount> out;
  for (const std::string cache : {"fx_graph", "aot_autograd"}) {
    const auto it = counts.find(cache);
    if (it == counts.end()) continue;
    auto& states = it->second;
    states.try_emplace("hit");
    states.try_emplace("miss");
    std::vector<CacheStateCount> rows;
    for (auto& [state, count] : states) {
      count.cache = cache_title(cache);
      count.state = state;
      rows.push_back(count);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
      return state_rank(x.state) < state_rank(y.state);
    });
    out.insert(out.end(), rows.begin(), rows.end());
  }
  return out;
}

std::vector<CacheLookupChange> cache_changes(const UnitFacts& a, const UnitFacts& b) {
  std::vector<CacheLookupChange> out;
  for (const std::string cache : {"fx_graph", "aot_autograd"}) {
    std::vector<const CacheLookup*> in_a, in_b;
    for (const auto& l : a.caches) {
      if (l.cache == cache) in_a.push_back(&l);
    }
    for (const auto& l : b.caches) {
      if (l.cache == cache) in_b.push_back(&l);
    }
    for (std::size_t i = 0; i < std::max(in_a.size(), in_b.size()); ++i) {
      const CacheLookup* x = i < in_a.size() ? in_a[i] : nullptr;
      const CacheLookup* y = i < in_b.size() ? in_b[i] : nullptr;
      CacheLookupChange c;
      c.cache = cache_title(cache);
      c.a_state = x != nullptr ? x->state : "";
      c.b_state = y != nullptr ? y->state : "";
      c.same_key = x != nullptr && y != nullptr && x->key == y->key;
      if (c.a_state == c.b_state && c.same_key) continue;
      if (x != nullptr && y != nullptr && !x->key.empty() && !y->key.empty() && !c.same_key)
        c.components = component_changes(*x, *y);
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace fxscope::report
