#pragma once
// Replays the recompiles of a log: the inputs of each new compile unit, evaluated against the
// guards of every earlier cache entry of its frame, compared with the reasons Dynamo recorded.

#include <string>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/guards/guard.h"
#include "fxscope/guards/proposed_input.h"
#include "fxscope/guards/recompile_cause.h"
#include "fxscope/trace/compile_id.h"
#include "fxscope/trace/compile_unit.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::guards {

// One recorded recompile and fxscope's prediction for it, both as "4/1: <reason>" lines,
// newest cache entry first: Dynamo checks and logs them most recently used first, which is
// newest first unless an older entry was hit since, and the log records no hits.
struct RecompileCheck {
  trace::CompileId compile_id;         // the new compile
  std::vector<std::string> recorded;   // Dynamo's reasons, whitespace and comments normalised
  std::vector<std::string> predicted;  // "4/0: reused" when no guard of 4/0 fails
  bool match = false;
  Warnings gaps;  // guards assumed to hold while predicting
  // Each recorded reason explained, in the order of `recorded`: the value that changed, before
  // and after, the user's line and the change that avoids it.
  std::vector<RecompileCause> causes;
};

std::vector<RecompileCheck> replay_recompiles(const trace::TraceLog& log);

// The input UNIT was compiled for, read from its own guards (dtype, device, static sizes and
// strides, constants) and, for dynamic dims and scalars, from its symbols' hints.
ProposedInput unit_input(const trace::CompileUnit& unit, const GuardSet& guards);

// Dynamo's reason text reduced for comparison: first line only, the trailing "# comment"
// removed, runs of whitespace made one space.
std::string normalize_reason(std::string_view reason);

}  // namespace fxscope::guards
