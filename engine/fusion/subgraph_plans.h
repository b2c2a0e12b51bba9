#pragma once
// The subgraphs a control-flow op runs (torch.cond's branches, while_loop's condition and body),
// which Inductor lowers as graphs of their own (GraphLowering.make_subgraph): each is planned on
// its own, its kernels fusing within it alone.

#include "fxscope/fusion/planner.h"

namespace fxscope::fusion::detail {

// Plans every subgraph of GRAPH that a runs_subgraphs op of it takes, in MODE, into
// PLAN.subgraphs, each placed before the first of PLAN's groups that reads the op's result.
void plan_subgraphs(const graph::Graph& graph, Mode mode, const PlanOptions& options,
                    FusionPlan& plan);

}  // namespace fxscope::fusion::detail
