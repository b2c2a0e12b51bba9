#include "fxscope/report/run_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "rank_facts.h"
#include "run_diff_facts.h"

namespace fxscope::report {
namespace {

using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;

// Pairs the units of one frame: first those with the same ATen ops (a recompile that did not
// change the graph finds its twin even when an extra recompile sits before it), then the rest
// in order.
void pair_frame(const std::vector<UnitFacts>& a, const std::vector<std::size_t>& in_a,
                const std::vector<UnitFacts>& b, const std::vector<std::size_t>& in_b,
                Pairs& pairs) {
  std::vector<bool> used_a(in_a.size()), used_b(in_b.size());
  for (std::size_t i = 0; i < in_a.size(); ++i) {
    for (std::size_t j = 0; j < in_b.size(); ++j) {
      if (used_b[j] || a[in_a[i]].aten != b[in_b[j]].aten) continue;
      pairs.emplace_back(in_a[i], in_b[j]);
      used_a[i] = used_b[j] = true;
      break;
    }
  }
  std::size_t j = 0;
  for (std::size_t i = 0; i < in_a.size(); ++i) {
    if (used_a[i]) continue;
    while (j < in_b.size() && used_b[j]) ++j;
    if (j == in_b.size()) break;
    pairs.emplace_back(in_a[i], in_b[j]);
    used_a[i] = used_b[j] = true;
  }
}

Pairs pair_units(const std::vector<UnitFacts>& a, const std::vector<UnitFacts>& b) {
  std::map<std::string, std::vector<std::size_t>> frames_a, frames_b;
  for (std::size_t i = 0; i < a.size(); ++i) frames_a[a[i].frame_key].push_back(i);
  for (std::size_t i = 0; i < b.size(); ++i) frames_b[b[i].frame_key].push_back(i);
  Pairs pairs;
  for (const auto& [key, in_a] : frames_a) {
    const auto it = frames_b.find(key);
    if (it != frames_b.end()) pair_frame(a, in_a, b, it->second, pairs);
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

std::vector<OpCountChange> op_changes(const std::map<std::string, int>& a,
                                      const std::map<std::string, int>& b) {
  std::map<std::string, OpCountChange> all;
  for (const auto& [op, n] : a) all[op].a = n;
  for (const auto& [op, n] : b) all[op].b = n;
  std::vector<OpCountChange> out;
  for (auto& [op, change] : all) {
    if (change.a == change.b) continue;
    change.op = op;
    out.push_back(change);
  }
  return out;
}

UnitDiff diff_unit(const UnitFacts& a, const UnitFacts& b) {
  UnitDiff d;
  d.a = a.unit;
  d.b = b.unit;
  d.ops = op_changes(a.aten, b.aten);
  d.kernels = kernel_changes(a.launches, b.launches);
  d.caches = cache_changes(a, b);
  d.a_dynamo_s = a.dynamo_s;
  d.b_dynamo_s = b.dynamo_s;
  return d;
}

std::string file_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Breaks of FROM whose site and reason OTHER lacks. Sites are named by file name and line, as
// frames are, so that the same script in another checkout matches.
std::vector<BreakChange> missing_breaks(const trace::TraceLog& from, const trace::TraceLog& other) {
  const auto key = [](const trace::GraphBreak& g) {
    return file_name(g.file) + ":" + std::to_string(g.line) + "|" + g.reason;
  };
  std::map<std::string, int> there;
  for (const auto& g : other.graph_breaks()) ++there[key(g)];
  std::vector<BreakChange> out;
  for (const auto& g : from.graph_breaks()) {
    if (there[key(g)]-- > 0) continue;
    BreakChange c{g.location(), g.reason, g.count, {}};
    for (const auto& id : g.compile_ids) c.compile_ids.push_back(id.without_attempt().str());
    out.push_back(std::move(c));
  }
  return out;
}

struct RecompileKey {
  std::string key;  // frame and every failing guard: what makes two recompiles the same
  RecompileChange change;
};

std::vector<RecompileKey> recompile_keys(const trace::TraceLog& log) {
  std::vector<RecompileKey> out;
  for (const auto& r : log.recompiles()) {
    RecompileKey k;
    k.change.compile_id = r.id.without_attempt().str();
    if (const auto* unit = log.find_unit(r.id); unit && unit->compiled_frame()) {
      k.change.frame = frame_key(*unit->compiled_frame());
    }
    if (!r.reasons.empty()) {
      // The guard without Dynamo's trailing source comment, which repeats the frame's line.
      const auto& first = r.reasons.front();
      k.change.guard = first.guard.empty() ? first.text : first.guard;
    }
    k.key = k.change.frame;
    // Object ids and addresses differ between processes; the guard does not.
    for (const auto& reason : r.reasons) k.key += "|" + without_addresses(reason.guard);
    out.push_back(std::move(k));
  }
  return out;
}

std::vector<RecompileChange> missing_recompiles(const std::vector<RecompileKey>& from,
                                                const std::vector<RecompileKey>& other) {
  std::map<std::string, int> there;
  for (const auto& k : other) ++there[k.key];
  std::vector<RecompileChange> out;
  for (const auto& k : from) {
    if (there[k.key]-- <= 0) out.push_back(k.change);
  }
  return out;
}

std::vector<PhaseChange> phase_changes(const CompileTimeReport& a, const CompileTimeReport& b) {
  std::map<std::string, PhaseChange> all;
  for (const auto& p : a.by_phase) all[p.name].a_s = p.self_s;
  for (const auto& p : b.by_phase) all[p.name].b_s = p.self_s;
  std::vector<PhaseChange> out;
  for (auto& [name, change] : all) {
    if (change.a_s == change.b_s) continue;
    change.name = name;
    out.push_back(change);
  }
  std::stable_sort(out.begin(), out.end(), [](const PhaseChange& x, const PhaseChange& y) {
    return std::fabs(x.b_s - x.a_s) > std::fabs(y.b_s - y.a_s);
  });
  return out;
}

}  // namespace

bool RunDiff::unrelated() const {
  const auto resumes = [](const std::vector<DiffUnit>& units) {
    return static_cast<std::size_t>(std::count_if(
        units.begin(), units.end(),
        [](const DiffUnit& u) { return u.frame.function.starts_with("torch_dynamo_resume_in_"); }));
  };
  const std::size_t larger = std::max(a_units - resumes(only_a), b_units - resumes(only_b));
  return larger > 0 && matched.size() * 2 < larger;
}

bool RunDiff::same_compiles() const {
  return only_a.empty() && only_b.empty() && breaks_fixed.empty() && breaks_new.empty() &&
         recompiles_fixed.empty() && recompiles_new.empty() &&
         std::none_of(matched.begin(), matched.end(),
                      [](const UnitDiff& u) { return u.changed(); });
}

RunDiff diff_runs(const trace::TraceLog& a, const trace::TraceLog& b) {
  RunDiff d;
  d.a_path = a.path();
  d.b_path = b.path();
  const auto times_a = compile_time(a);
  const auto times_b = compile_time(b);
  const auto facts_a = unit_facts(a, times_a);
  const auto facts_b = unit_facts(b, times_b);
  d.a_units = facts_a.size();
  d.b_units = facts_b.size();
  std::vector<bool> paired_a(facts_a.size()), paired_b(facts_b.size());
  for (const auto& [i, j] : pair_units(facts_a, facts_b)) {
    d.matched.push_back(diff_unit(facts_a[i], facts_b[j]));
    paired_a[i] = paired_b[j] = true;
  }
  for (std::size_t i = 0; i < facts_a.size(); ++i) {
    if (!paired_a[i]) d.only_a.push_back(facts_a[i].unit);
    d.a_launches += facts_a[i].unit.launches;
  }
  for (std::size_t j = 0; j < facts_b.size(); ++j) {
    if (!paired_b[j]) d.only_b.push_back(facts_b[j].unit);
    d.b_launches += facts_b[j].unit.launches;
  }
  d.breaks_fixed = missing_breaks(a, b);
  d.breaks_new = missing_breaks(b, a);
  const auto recompiles_a = recompile_keys(a);
  const auto recompiles_b = recompile_keys(b);
  d.recompiles_fixed = missing_recompiles(recompiles_a, recompiles_b);
  d.recompiles_new = missing_recompiles(recompiles_b, recompiles_a);
  d.a_compile_s = times_a.total_s;
  d.b_compile_s = times_b.total_s;
  d.phases = phase_changes(times_a, times_b);
  d.cache_states = cache_state_counts(times_a, times_b);
  return d;
}

}  // namespace fxscope::report
