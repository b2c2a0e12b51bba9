#pragma once
// The order steps run in: the plan's order wherever it respects the data, else the nearest order
// that does.

#include <functional>
#include <vector>

#include "fxscope/gpu/step_plan.h"

namespace fxscope::gpu {

// Reorders STEPS so that each runs after the steps that write what it reads. A fusion plan
// lists a group where its first node sits, so a group that also computes a later node's
// consumer (a convolution with an epilogue adding a GEMM's output) can come before the GEMM;
// such a step moves after the writers of what it reads, and whatever reads its outputs after
// it. Steps keep their order otherwise: a buffer's writers keep theirs, and a step that reads
// a buffer's value stays before the next write to it. BASE maps a node to the buffer it lives
// in (a view to its base); IS_INPUT says a buffer holds a value before any step runs. A split
// reduction's second pass runs after the first pass that writes its partial states.
void order_by_dependences(std::vector<StepPlan>& steps,
                          const std::function<graph::NodeId(graph::NodeId)>& base,
                          const std::function<bool(graph::NodeId)>& is_input);

}  // namespace fxscope::gpu
