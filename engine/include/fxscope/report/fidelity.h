#pragma once
// How faithfully the planner reproduces Inductor on real logs: per compile unit, planned in the
// mode the log was captured in, Inductor's launches and generated kernels beside fxscope's
// launches, the kernels formed exactly, and the misses counted by pattern (fusion/miss_pattern).
// The corpus bench prints it and the corpus ratchet test checks it against a recorded baseline.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::report {

// One Inductor kernel the plan did not form exactly, beside the planned group sharing most of
// its nodes: what a rule must change to form it.
struct MissedKernel {
  std::string pattern;          // its miss_pattern key
  std::string inductor_kernel;  // "triton_poi_fused_cat_2"
  // post-grad node names, in graph order; of a kernel naming none, the graph inputs it stores
  std::vector<std::string> inductor_nodes;
  std::string closest_group;  // empty when the plan has none
  std::vector<std::string> closest_nodes;
};

// One compile unit, its post-grad graphs (forward and backward) together.
struct UnitFidelity {
  std::string compile_id;  // "0/0"
  fusion::Mode mode = fusion::Mode::default_mode;
  bool mode_from_log = false;  // false: the log has no runnable, default mode was assumed
  std::size_t inductor_launches = 0;
  std::size_t our_launches = 0;
  std::size_t kernels = 0;  // Inductor's generated kernels compared (externs excluded)
  std::size_t exact = 0;
  // Exact kernels of the same kind as Inductor's too: a persistent reduction (triton_per) or a
  // looped one (triton_red), a pointwise kernel, a template.
  std::size_t same_kind = 0;
  std::map<std::string, std::size_t> misses;  // miss pattern -> count
  std::vector<MissedKernel> missed;           // each miss, in kernel order

  // (ours - Inductor's) / Inductor's; 0 when Inductor launched nothing.
  double launch_drift() const;
};

struct LogFidelity {
  std::string name;  // how the corpus names it: its folder or file relative to the samples
  std::string path;  // the log file read
  std::vector<UnitFidelity> units;  // units with Inductor output code only

  std::size_t kernels() const;
  std::size_t exact() const;
  std::size_t same_kind() const;
  double exact_rate() const;  // 1.0 when there is nothing to compare
  std::map<std::string, std::size_t> misses() const;
};

// One log of the corpus: sample_graphs/<folder> or sample_graphs/corpus/<folder or file>.
struct CorpusLog {
  std::string name;  // the folder under the samples root: "NAME" or "corpus/NAME"
  std::string path;  // what read_trace opens: the folder, or the log file itself
};

// Every log under SAMPLES_DIR, sorted by name: each of its folders that holds a log, and each
// folder or log file (plain, .gz or .zst) of its corpus/ folder when there is one.
std::vector<CorpusLog> find_corpus_logs(const std::string& samples_dir);

// Plans every unit of LOG with Inductor output code in the mode it was captured in and compares
// it with Inductor's kernels. NAME labels the result.
LogFidelity measure_fidelity(const trace::TraceLog& log, const std::string& name);

// The launch drift within which a unit counts as matching Inductor (issue 22).
inline constexpr double kLaunchTolerance = 0.05;

// The recorded form the corpus ratchet test reads (tests/data/fidelity_baseline.json): per log
// its kernels and exact count, per unit its launches and whether its drift is a known gap.
nlohmann::json baseline_json(const std::vector<LogFidelity>& logs);

}  // namespace fxscope::report
