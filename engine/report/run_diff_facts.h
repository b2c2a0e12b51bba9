#pragma once
// What `diff` compares of one compile unit, read once per log: its frame, the ATen op multiset of
// its graph and Inductor's kernel launches with the nodes each one computes.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/report/compile_time.h"
#include "fxscope/report/run_diff.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::report {

// One launch of the unit's output code(s): a Triton (or C++) kernel or an extern call.
struct LaunchFacts {
  std::string name;                // kernel name, or the extern op ("mm")
  std::string key;                 // name without Inductor's trailing counter: matched on
  std::vector<std::string> ops;    // its ATen ops, as Inductor's comments name them
  std::vector<std::string> nodes;  // the source nodes it computes, to pair refusions
};

struct UnitFacts {
  DiffUnit unit;
  std::string frame_key;            // "model.py:33 forward": how units pair across logs
  std::map<std::string, int> aten;  // op target -> count
  std::vector<LaunchFacts> launches;
  std::vector<CacheLookup> caches;  // log order, as the compile-time report reads them
  std::optional<double> dynamo_s;   // Dynamo's own total, forward plus backward
};

// Every unit of LOG, in log order, parsed on the machine's cores; TIMES is LOG's compile time.
std::vector<UnitFacts> unit_facts(const trace::TraceLog& log, const CompileTimeReport& times);

// "model.py:33 forward": the file's name (paths differ between machines and checkouts), the
// line and the function.
std::string frame_key(const trace::StackFrame& frame);

// NAME without a trailing "_<digits>": triton_poi_fused_add_3 -> triton_poi_fused_add.
std::string kernel_key(const std::string& name);

// The launches of A and of B that the other lacks (by kernel_key, counted), launches computing
// shared source nodes grouped into one refused change.
std::vector<KernelChange> kernel_changes(const std::vector<LaunchFacts>& a,
                                         const std::vector<LaunchFacts>& b);

// Lookups of A and B whose outcome or key differs, paired per cache in log order.
std::vector<CacheLookupChange> cache_changes(const UnitFacts& a, const UnitFacts& b);

// Every unit's lookups of A (TIMES_A) and of B counted by cache and state.
std::vector<CacheStateCount> cache_state_counts(const CompileTimeReport& times_a,
                                                const CompileTimeReport& times_b);

}  // namespace fxscope::report
