#pragma once
// What the Guards & recompiles tab shows for one compile unit, computed off the UI thread as
// plain values: its guards, the input it was compiled for, its frame's recorded recompiles with
// fxscope's replay, and the evaluation of an edited input against the frame's cache.

#include <optional>
#include <string>
#include <vector>

#include "fxscope/guards/guard.h"
#include "fxscope/guards/proposed_input.h"
#include "models/recompile_list_model.h"
#include "window/loaded_log.h"

namespace fxscope::views {

struct UnitGuards {
  std::size_t unit = 0;
  std::string compile_id;  // "4/0"
  std::string problem;     // why there are no guards to show, when there are none
  std::vector<guards::Guard> guards;
  guards::ProposedInput recorded_input;
  std::vector<RecompileRow> recompiles;
  // Why the frame recompiled, the cause of most recompiles first, each with its fix (the text
  // `guards --check-recompiles` ends with); empty when the frame never recompiled.
  std::string ranked_causes;
  // The Dynamo graph's placeholders in order ("L_x_"): where an input sits on the graph.
  std::vector<std::string> graph_inputs;
};

// The answer for one input: each cache entry newest first, and which one runs.
struct GuardVerdict {
  std::vector<std::string> entries;   // "4/1: tensor 'x' size mismatch ...", "4/0: reused"
  std::optional<std::string> reused;  // the entry whose code runs; nullopt: recompiles
  // The first failing guard of the unit itself (index into UnitGuards::guards).
  std::optional<std::size_t> failed;
  std::string problem;  // an input the evaluator refused
};

UnitGuards load_unit_guards(const LoadedLog& log, std::size_t unit);
GuardVerdict evaluate_unit_input(const LoadedLog& log, const std::string& compile_id,
                                 const guards::ProposedInput& input);

}  // namespace fxscope::views
