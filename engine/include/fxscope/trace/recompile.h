#pragma once
// Recompiles from `recompile_reasons` artifacts: which cached compile's guards failed and how.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/trace/compile_id.h"
#include "fxscope/trace/stack_frame.h"

namespace fxscope::trace {

// One failed guard of one earlier compile: "4/1: tensor 'x' dtype mismatch. expected ...".
struct RecompileReason {
  CompileId failed_id;  // the cached compile whose guard failed (4/1); invalid if unreadable
  std::string text;     // the reason line after "4/1: ", as Dynamo wrote it
  std::string guard;    // text without the trailing source comment ("___stack0 == 124.3")
  Stack user_stack;     // the "User stack trace:" frames, when present
};

// One recompile: the new compile `id` and why every cached entry of its frame was rejected.
struct Recompile {
  CompileId id;
  std::size_t line = 0;  // envelope line of the artifact
  std::vector<RecompileReason> reasons;
};

// Parses a payload in either form Dynamo writes: plain text or a JSON list of strings.
std::vector<RecompileReason> parse_recompile_reasons(std::string_view text);

}  // namespace fxscope::trace
