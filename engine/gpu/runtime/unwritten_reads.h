#pragma once
// The last check of a plan's steps: what each step reads, some step or an input must write.

#include <functional>
#include <vector>

#include "fxscope/gpu/step_plan.h"

namespace fxscope::gpu {

// A group whose steps read a buffer that no step writes and no input holds cannot run right (a
// template epilogue reading a residual that the planner's origins list in another group whose
// kernel does not store it): it is skipped, named with what it lacks, and so is every group that
// then lacks its outputs. Running it would compute from uninitialised memory. What a group
// skipped for another reason was to write is not counted: the mode is not compared then anyway,
// and the rest still runs for its times.
// INPUTS says a buffer holds a value before any step runs; BASE maps a node to the buffer it
// lives in.
void drop_unwritten_reads(const graph::Graph& graph, const fusion::FusionPlan& plan,
                          PlannedSteps& out, const std::vector<bool>& inputs,
                          const std::function<graph::NodeId(graph::NodeId)>& base);

}  // namespace fxscope::gpu
