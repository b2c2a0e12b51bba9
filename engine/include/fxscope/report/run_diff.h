#pragma once
// `fxscope-cli diff A B`: what changed between two logs. Compile units pair up by the frame
// Dynamo compiled and by their graph's ATen ops, not by compile id (ids shift when a break
// moves); recompiles of one frame pair up in order.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/trace/stack_frame.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::report {

// One compile unit of either log, as the diff names it.
struct DiffUnit {
  std::string compile_id;
  trace::StackFrame frame;       // the function Dynamo compiled
  trace::StackFrame user_frame;  // the innermost frame in the user's code
  std::size_t aten_ops = 0;      // AOT graph ops (inference, or forward + backward); else Dynamo's
  std::size_t launches = 0;      // Inductor's kernel launches, Triton and extern
  double compile_s = 0;          // forward plus backward, from the compile-time events
};

// One ATen op whose count differs: A's count and B's.
struct OpCountChange {
  std::string op;
  int a = 0;
  int b = 0;
};

enum class KernelChangeKind { added, removed, refused };
std::string_view to_string(KernelChangeKind kind);

// Kernel launches present on one side only. `refused` pairs A's and B's launches that compute
// the same source nodes, fused into other kernels (an extern addmm and a GELU kernel in A, one
// GEMM template with the GELU epilogue in B).
struct KernelChange {
  KernelChangeKind kind = KernelChangeKind::added;
  std::vector<std::string> a;    // A's launches (kernel names or extern ops)
  std::vector<std::string> b;    // B's launches
  std::vector<std::string> ops;  // their ATen ops, union, sorted
};

// One line of the details PyTorch logs with a cache key ("[hash] name: value"), whose hash
// differs between A's key and B's or that one key lacks. Values are the first line, shortened.
struct KeyComponentChange {
  std::string name;  // "inductor_config[max_autotune_pointwise]", "gm", "example_inputs[0]"
  std::string a;     // empty where A's key has no such component
  std::string b;
};

// One lookup in one of Inductor's caches, A's beside B's, where the outcome or the key differs.
// Lookups of one cache pair up in log order (an FX graph lookup for the forward, then one for
// the backward); a lookup without a partner has an empty state on the other side.
struct CacheLookupChange {
  std::string cache;    // "FX graph" or "AOTAutograd"
  std::string a_state;  // "hit", "miss", "bypass", "disabled", as logged; empty where absent
  std::string b_state;
  bool same_key = false;
  std::vector<KeyComponentChange> components;  // where both keys were logged and differ
};

// How many lookups of one cache ended in one state in A and in B, over every unit, paired or
// not: the cache's hits and misses before and after.
struct CacheStateCount {
  std::string cache;  // "FX graph" or "AOTAutograd"
  std::string state;  // "hit", "miss", "bypass", "disabled", as logged
  std::size_t a = 0;
  std::size_t b = 0;
};

// A unit of A paired with one of B.
struct UnitDiff {
  DiffUnit a;
  DiffUnit b;
  std::vector<OpCountChange> ops;  // differing counts, by op name
  std::vector<KernelChange> kernels;
  std::vector<CacheLookupChange> caches;
  std::optional<double> a_dynamo_s;  // Dynamo's own compile total, when logged
  std::optional<double> b_dynamo_s;

  bool same_graph() const { return ops.empty(); }
  bool changed() const { return !ops.empty() || !kernels.empty(); }
};

// A graph break (reason at a user location) on one side only.
struct BreakChange {
  std::string location;  // file:line of the break
  std::string reason;
  std::size_t count = 0;                 // hits on the side that has it
  std::vector<std::string> compile_ids;  // compiles that hit it, on that side
};

// A recompile (of a frame, with the guards that failed) on one side only.
struct RecompileChange {
  std::string compile_id;  // the new compile, on the side that has it
  std::string frame;       // "model.py:88 forward": the recompiled frame
  std::string guard;       // the first failing guard, without its source comment
};

// One compile-time phase whose self time over the whole run differs.
struct PhaseChange {
  std::string name;
  double a_s = 0;
  double b_s = 0;
};

struct RunDiff {
  std::string a_path;
  std::string b_path;
  std::size_t a_units = 0;
  std::size_t b_units = 0;
  std::vector<UnitDiff> matched;  // A's log order
  std::vector<DiffUnit> only_a;
  std::vector<DiffUnit> only_b;
  std::vector<BreakChange> breaks_fixed;  // in A, gone in B
  std::vector<BreakChange> breaks_new;
  std::vector<RecompileChange> recompiles_fixed;
  std::vector<RecompileChange> recompiles_new;
  std::size_t a_launches = 0;  // every unit's kernel launches
  std::size_t b_launches = 0;
  double a_compile_s = 0;  // every unit's compile time, from the events
  double b_compile_s = 0;
  std::vector<PhaseChange> phases;  // differing phases, largest change first
  // Each cache either log looked up: FX graph, then AOTAutograd; per cache "hit" and "miss"
  // (counted 0 where none), then other states by name.
  std::vector<CacheStateCount> cache_states;

  // Fewer than half of the larger log's units pair with a unit of the same frame. Units of
  // Dynamo's resume functions on one side only are left out: they come and go with a break.
  bool unrelated() const;
  // Nothing but timing differs: units, graphs, kernels, breaks and recompiles agree.
  bool same_compiles() const;
};

RunDiff diff_runs(const trace::TraceLog& a, const trace::TraceLog& b);

// The graph breaks one compile unit hit, of those fixed or new: a break is read where it
// happened, in the unit Dynamo was compiling when it broke.
struct UnitBreaks {
  std::string compile_id;
  trace::StackFrame frame;  // the unit's frame; empty when the diff does not list the unit
  std::vector<BreakChange> breaks;
};

// BREAKS (the diff's breaks_fixed, read on A's side, or breaks_new, on B's) under the units that
// hit them, in the order the breaks come; a break hit by several compiles is under each.
std::vector<UnitBreaks> breaks_by_unit(const RunDiff& diff, const std::vector<BreakChange>& breaks,
                                       bool a_side);

}  // namespace fxscope::report
