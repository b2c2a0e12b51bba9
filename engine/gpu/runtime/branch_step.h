#pragma once
// torch.cond as a step of its own (BranchSpec): what it reads and writes, and each branch's
// steps, planned from the plan's subgraph plans.

#include <functional>

#include "fxscope/core/result.h"
#include "fxscope/gpu/step_plan.h"

namespace fxscope::gpu {

// Plans the steps of one subgraph from its plan (plan_steps with the enclosing run's options).
using PlanBranch =
    std::function<PlannedSteps(const graph::Graph& subgraph, const fusion::FusionPlan& plan)>;

bool is_cond(const graph::Node& node);

// The step that runs torch.cond COND of GRAPH, each branch planned by PLAN_BRANCH from its plan
// among PLAN.subgraphs. An error says what the step lacks: a branch without a plan, a predicate
// that is no tensor, a group of a branch that cannot run.
Result<StepPlan> branch_step(const graph::Graph& graph, graph::NodeId cond,
                             const fusion::FusionPlan& plan, const PlanBranch& plan_branch);

// A compiled mode's torch.cond is in none of PLAN's groups (it launches nothing; its branches
// are the plan's subgraph plans): each such cond of GRAPH (IN_GROUPS false) becomes a step of its
// own in OUT, numbered past the groups and placed where the plan places its branches, or a skip.
void add_branches_outside_groups(const graph::Graph& graph, const fusion::FusionPlan& plan,
                                 const std::vector<bool>& in_groups, const PlanBranch& plan_branch,
                                 PlannedSteps& out);

// The op nodes a branch step runs in its branches (for coverage: every branch can run).
std::size_t branch_ops(const StepPlan& step);

}  // namespace fxscope::gpu
