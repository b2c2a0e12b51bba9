// Per-unit agreement with Inductor in the captured mode, with misses keyed by pattern.

#include "fxscope/report/fidelity.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "fxscope/fusion/captured_mode.h"
#include "fxscope/fusion/miss_pattern.h"
#include "fxscope/fusion/unit_fusion.h"

namespace fxscope::report {
namespace {

// The names a kernel is compared by: its nodes, or, for one of Inductor's naming none
// (BY_INPUTS), the graph inputs it stores into, else those it reads.
std::vector<std::string> node_names(const graph::Graph& graph, const fusion::KernelGroup& group,
                                    bool by_inputs) {
  const std::vector<graph::NodeId>& ids = by_inputs ? group.input_key() : group.nodes;
  std::vector<std::string> names;
  names.reserve(ids.size());
  for (const graph::NodeId id : ids) names.push_back(graph.node(id).name);
  return names;
}

std::size_t same_kind(const fusion::GraphFusion& g) {
  std::size_t n = 0;
  for (const fusion::KernelAgreement& k : g.agreement.kernels) {
    if (!k.exact) continue;
    const fusion::FusionPlan* ours = fusion::subgraph_plan(g.ours, k.subgraph);
    const fusion::FusionPlan* inductor = fusion::subgraph_plan(g.inductor, k.subgraph);
    if (ours == nullptr || inductor == nullptr) continue;
    const fusion::KernelGroup& theirs = inductor->groups[k.inductor_group];
    // The passes of a split reduction run the same nodes: any group of those nodes may be it.
    const bool same = std::any_of(ours->groups.begin(), ours->groups.end(), [&](const auto& o) {
      return o.kind == theirs.kind && o.named_nodes.value_or(o.nodes) == theirs.nodes &&
             (!theirs.nodes.empty() || o.input_key() == theirs.input_key());
    });
    n += same;
  }
  return n;
}

void add_misses(const fusion::GraphFusion& g, UnitFidelity& unit) {
  for (const fusion::KernelAgreement& k : g.agreement.kernels) {
    if (k.exact) continue;
    // A subgraph's kernels hold its nodes, and are compared with the plan of that subgraph.
    const fusion::FusionPlan* ours = fusion::subgraph_plan(g.ours, k.subgraph);
    const fusion::FusionPlan* inductor = fusion::subgraph_plan(g.inductor, k.subgraph);
    const graph::Graph* graph =
        k.subgraph.empty() ? &g.post_grad : g.post_grad.find_subgraph(k.subgraph);
    if (inductor == nullptr || graph == nullptr) continue;
    const fusion::KernelGroup* closest =
        ours && k.closest_group < ours->groups.size() ? &ours->groups[k.closest_group] : nullptr;
    const fusion::KernelGroup& theirs = inductor->groups[k.inductor_group];
    MissedKernel miss;
    miss.pattern = fusion::miss_pattern(*graph, theirs, closest);
    miss.inductor_kernel = theirs.name;
    const bool by_inputs = theirs.nodes.empty();
    miss.inductor_nodes = node_names(*graph, theirs, by_inputs);
    if (closest) {
      miss.closest_group = closest->name;
      miss.closest_nodes = node_names(*graph, *closest, by_inputs);
    }
    ++unit.misses[miss.pattern];
    unit.missed.push_back(std::move(miss));
  }
}

namespace fs = std::filesystem;

// A TORCH_TRACE log by its name: "dedicated_log_torch_trace_x.log", optionally compressed.
bool is_log_file(const fs::path& p) {
  const std::string name = p.filename().string();
  const auto ends = [&](std::string_view s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".log") || ends(".log.gz") || ends(".log.zst");
}

bool holds_log(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && is_log_file(e.path())) return true;
  }
  return false;
}

void add_folders(const fs::path& root, const std::string& prefix, bool files_too,
                 std::vector<CorpusLog>& out) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string name = prefix + e.path().filename().string();
    if (e.is_directory() && holds_log(e.path())) {
      out.push_back({name, e.path().string()});
    } else if (files_too && e.is_regular_file() && is_log_file(e.path())) {
      out.push_back({name, e.path().string()});
    }
  }
}

}  // namespace

std::vector<CorpusLog> find_corpus_logs(const std::string& samples_dir) {
  std::vector<CorpusLog> logs;
  add_folders(samples_dir, "", false, logs);
  const fs::path corpus = fs::path(samples_dir) / "corpus";
  std::error_code ec;
  if (fs::is_directory(corpus, ec)) add_folders(corpus, "corpus/", true, logs);
  std::sort(logs.begin(), logs.end(),
            [](const CorpusLog& a, const CorpusLog& b) { return a.name < b.name; });
  return logs;
}

double UnitFidelity::launch_drift() const {
  if (inductor_launches == 0) return 0.0;
  return (static_cast<double>(our_launches) - static_cast<double>(inductor_launches)) /
         static_cast<double>(inductor_launches);
}

std::size_t LogFidelity::kernels() const {
  std::size_t n = 0;
  for (const UnitFidelity& u : units) n += u.kernels;
  return n;
}

std::size_t LogFidelity::exact() const {
  std::size_t n = 0;
  for (const UnitFidelity& u : units) n += u.exact;
  return n;
}

std::size_t LogFidelity::same_kind() const {
  std::size_t n = 0;
  for (const UnitFidelity& u : units) n += u.same_kind;
  return n;
}

double LogFidelity::exact_rate() const {
  const std::size_t total = kernels();
  return total == 0 ? 1.0 : static_cast<double>(exact()) / static_cast<double>(total);
}

std::map<std::string, std::size_t> LogFidelity::misses() const {
  std::map<std::string, std::size_t> all;
  for (const UnitFidelity& u : units) {
    for (const auto& [pattern, count] : u.misses) all[pattern] += count;
  }
  return all;
}

LogFidelity measure_fidelity(const trace::TraceLog& log, const std::string& name) {
  LogFidelity result;
  result.name = name;
  result.path = log.path();
  for (const trace::CompileUnit& unit : log.units()) {
    if (!unit.find(trace::ArtifactKind::kOutputCode) &&
        !unit.find(trace::ArtifactKind::kAotWrapperCode)) {
      continue;
    }
    UnitFidelity u;
    u.compile_id = unit.id.str();
    const auto mode = fusion::captured_mode(unit);
    u.mode_from_log = mode.has_value();
    u.mode = mode.value_or(fusion::Mode::default_mode);
    for (const fusion::GraphFusion& g : fusion::fuse_unit(unit, u.mode)) {
      if (g.inductor.groups.empty()) continue;
      u.inductor_launches += g.agreement.inductor_launches;
      u.our_launches += g.agreement.our_launches;
      u.kernels += g.agreement.kernels.size();
      u.exact += g.agreement.exact_count();
      u.same_kind += same_kind(g);
      add_misses(g, u);
    }
    result.units.push_back(std::move(u));
  }
  return result;
}

nlohmann::json baseline_json(const std::vector<LogFidelity>& logs) {
  nlohmann::json out = nlohmann::json::object();
  for (const LogFidelity& log : logs) {
    nlohmann::json units = nlohmann::json::object();
    for (const UnitFidelity& u : log.units) {
      units[u.compile_id] = {{"mode", std::string(fusion::to_string(u.mode))},
                             {"inductor_launches", u.inductor_launches},
                             {"our_launches", u.our_launches},
                             {"known_launch_gap", std::abs(u.launch_drift()) > kLaunchTolerance}};
    }
    out[log.name] = {{"kernels", log.kernels()},
                     {"exact", log.exact()},
                     {"same_kind", log.same_kind()},
                     {"units", units}};
  }
  return out;
}

}  // namespace fxscope::report
