#pragma once
// The compile mode a log's Inductor compile ran in, read from the log itself: Inductor logs a
// compile's fx_graph_runnable (its config included) before its post-grad graph, and
// torch.compile's modes set config options the runnable prints.

#include <optional>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/trace/compile_unit.h"

namespace fxscope::fusion {

// The mode of the compile whose post-grad graph is POST_GRAD, from the last fx_graph_runnable of
// UNIT logged before it; nullopt without one.
std::optional<Mode> captured_mode(const trace::CompileUnit& unit, const trace::Artifact& post_grad);

// The mode of UNIT's first post-grad graph (a unit's forward and backward share one compile).
std::optional<Mode> captured_mode(const trace::CompileUnit& unit);

}  // namespace fxscope::fusion
