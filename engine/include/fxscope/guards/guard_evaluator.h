#pragma once
// Evaluates a cache entry's guards against a proposed input, in Dynamo's order, and reports the
// first failing guard in Dynamo's own words, or that the entry would be reused.

#include <cstddef>
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

GuardEvaluation evaluate_guards(const GuardSet& guards, const ProposedInput& input);

}  // namespace fxscope::guards
