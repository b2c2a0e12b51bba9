#pragma once
// Evaluates a cache entry's guards against a proposed input, in Dynamo's order, and reports the
// first failing guard in Dynamo's own words, or that the entry would be reused.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/guards/guard.h"
#include "fxscope/guards/proposed_input.h"

namespace fxscope::guards {

// The answer for one cache entry and one input.
struct GuardEvaluation {
  bool reused = false;                // no guard failed: Dynamo would run this entry's code
  std::optional<std::size_t> failed;  // index into GuardSet::guards of the first failure
  // Dynamo's reason, as its recompile log writes it after "4/0: ":
  // "tensor 'x' size mismatch at index 0. expected 8, actual 16", "act == 'relu'".
  std::string reason;
  std::size_t checked = 0;  // guards compared with a value the input gives
  std::size_t kept = 0;     // guards on sources the input leaves as the guards expect
  std::size_t assumed = 0;  // guards no input can decide (ids, types, ambient state, unknowns)
  // Guards that were assumed to hold because fxscope could not read or evaluate them, each
  // named with its text: the answer is only as good as these assumptions.
  Warnings gaps;
};

// What a cache entry's guard managers remember between calls (torch/csrc/dynamo/guards.cpp,
// GuardManager::_fail_count): how often each manager failed, and so the order its children
// are checked in. check_accessors_nopybind re-sorts a manager's children by failure count,
// most first, whenever one fails after another passed; check_verbose, which words the reason,
// walks the order the fast check left.
struct CheckOrder {
  std::vector<std::int64_t> fail_counts;           // per GuardSet::nodes entry
  std::vector<std::vector<std::size_t>> children;  // per node, the order checked now
};

// The order of a fresh cache entry: the tree's own, no failures counted.
CheckOrder fresh_order(const GuardSet& guards);

// check_verbose of a fresh cache entry.
GuardEvaluation evaluate_guards(const GuardSet& guards, const ProposedInput& input);

// One call of the frame with INPUT, as Dynamo makes it: the fast check, which counts the
// failures and re-sorts ORDER, then, when it failed, check_verbose in the order it left.
GuardEvaluation evaluate_call(const GuardSet& guards, const ProposedInput& input,
                              CheckOrder& order);

}  // namespace fxscope::guards
