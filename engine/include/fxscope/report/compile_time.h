#pragma once
// Where compile time went (`fxscope-cli compile-time`): per compile unit, the tree of phases
// Dynamo, AOTAutograd and Inductor timed (their chromium_event begin/end pairs) with each
// phase's own time, checked against Dynamo's own total; and the whole run ranked by phase.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::report {

// One row of a phase tree: the spans of one name under one parent, merged (a phase run twice,
// such as async_compile.precompile, is one row with count 2).
struct PhaseTime {
  std::string name;  // the event's name, as PyTorch logs it
  std::string what;  // what the phase does, in a user's words; empty for phases without a label
  int depth = 0;     // 0 for the root
  double total_s = 0;
  double self_s = 0;  // total less the time of its timed children
  int count = 0;
};

// One timed compile: the forward frame (entire_frame_compile) or the backward
// (entire_backward_compile) of a unit.
struct PhaseTree {
  std::string root;                // the root event's name
  std::vector<PhaseTime> phases;   // depth first; siblings by total time, largest first
  double events_s = 0;             // the root's duration from its begin and end events
  double accounted_s = 0;          // the sum of every row's self time: what the events explain
  double other_s = 0;              // the root's self time: inside the compile, in no timed phase
  std::optional<double> dynamo_s;  // Dynamo's own total for it (compilation_metrics), if logged

  // accounted_s against dynamo_s: (accounted - dynamo) / dynamo; nullopt without dynamo_s.
  std::optional<double> deviation() const;
};

// One cache lookup as Inductor logged it.
struct CacheLookup {
  std::string cache;   // "fx_graph" or "aot_autograd"
  std::string state;   // "hit", "miss", "bypass", "disabled", ... as logged
  std::string key;     // empty when none was logged
  std::string reason;  // the bypass (or disable) reason, as logged
  bool backward = false;
  // What PyTorch hashed into the key, one "[hash] name: value" line each, by name: the line's
  // hash and its value's first line ("inductor_config[max_autotune]" -> hash, "False"). Two
  // keys differ exactly where these hashes do. Empty when the log has no lookup artifact.
  std::map<std::string, std::pair<std::string, std::string>> key_details;
};

// A timed span outside the compile: what ran at the unit's first call (a kernel's configs
// benchmarked, a CUDA graph recorded).
struct RuntimeSpan {
  std::string name;
  std::string kernel;  // kernel_name from args, when the event names one
  double seconds = 0;
};

struct UnitCompileTime {
  std::string compile_id;
  std::optional<PhaseTree> forward;
  std::optional<PhaseTree> backward;
  std::vector<RuntimeSpan> runtime;
  std::vector<CacheLookup> caches;
  std::vector<trace::KernelCompileTime> triton_compiles;  // forward then backward, as logged
  std::optional<std::int64_t> autotune_us;                // compile_time_autotune_time_us
  std::optional<std::int64_t> guard_count;
  std::optional<std::int64_t> guard_latency_us;
  std::optional<std::string> cudagraph_skip_reason;  // as PyTorch logged it
  // fxscope's own check of the unit's post-grad graphs (fusion/cuda_graph_check.h), beside
  // PyTorch's verdict: made where the unit compiled in a mode that uses CUDA graphs
  // (reduce-overhead, max-autotune) or PyTorch logged a skip reason; a backward graph's reasons
  // start "backward: ".
  std::optional<fusion::CudaGraphVerdict> cuda_graph_prediction;
  // CUDA graphs CUDA graph trees recorded at the unit's calls (CUDAGraphNode.record events),
  // known where the unit ran under them (a cudagraphify.get_container event). None recorded
  // with no skip reason logged is a skip decided at a call, which the trace gives no reason for
  // (a mutated input is found there), or a unit called only once (the first call warms up).
  std::optional<std::size_t> cuda_graphs_recorded;
  std::optional<std::string> failure;  // fail_type: fail_reason
  std::size_t unmatched_events = 0;    // an end without its begin, or a begin never ended

  double compile_s() const;  // forward plus backward, from the events
  // PyTorch skipped CUDA graphs for the unit: it logged a reason, or recorded none at its calls.
  bool cuda_graphs_skipped() const;
  // fxscope's prediction says what PyTorch did (both skipped, or both captured); nullopt
  // without a prediction or without PyTorch's verdict.
  std::optional<bool> cuda_graph_prediction_agrees() const;
};

struct CompileTimeReport {
  std::string path;
  std::vector<UnitCompileTime> units;  // log order
  std::vector<PhaseTime> by_phase;     // self time of each phase name over every unit, ranked
  double total_s = 0;                  // every unit's compile_s
};

// The tolerance of the check between the events and Dynamo's own total.
inline constexpr double kCompileTimeTolerance = 0.02;

CompileTimeReport compile_time(const trace::TraceLog& log);

// What a phase does, for the phases users meet in every compile; empty for the rest.
std::string phase_label(std::string_view name);

}  // namespace fxscope::report
