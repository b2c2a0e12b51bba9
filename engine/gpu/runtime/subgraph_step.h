#pragma once
// Steps that run other graphs' steps (SubgraphCall): torch.cond, its branches planned from the
// plan's subgraph plans, and flex attention's forward and backward, their math graphs built by
// fxscope.

#include <functional>

#include "fxscope/core/result.h"
#include "fxscope/gpu/step_plan.h"

namespace fxscope::gpu {

// Plans the steps of a callee from its plan (plan_steps with the enclosing run's options).
using PlanCallee =
    std::function<PlannedSteps(const graph::Graph& callee, const fusion::FusionPlan& plan)>;

bool is_cond(const graph::Node& node);
bool is_flex_attention_forward(const graph::Node& node);
bool is_flex_attention_backward(const graph::Node& node);

// The step that runs torch.cond COND of GRAPH, each branch planned by PLAN_CALLEE from its plan
// among PLAN.subgraphs. An error says what the step lacks: a branch without a plan, a predicate
// that is no tensor, a group of a branch that cannot run.
Result<StepPlan> cond_step(const graph::Graph& graph, graph::NodeId cond,
                           const fusion::FusionPlan& plan, const PlanCallee& plan_callee);

// The step that runs flex_attention or flex_attention_backward FLEX of GRAPH as its math graph
// (flex_math_graph.h), planned op by op (as eager runs it) by PLAN_CALLEE, in every mode:
// Inductor's template is one kernel, this step several, so its time is not the template's.
Result<StepPlan> flex_attention_step(const graph::Graph& graph, graph::NodeId flex,
                                     const PlanCallee& plan_callee);

// torch.cond is in none of a plan's groups, in any mode (it launches nothing; its branches are
// the plan's subgraph plans): each cond of GRAPH becomes a step of its own in OUT, numbered past
// PLAN's groups and placed where the plan places its branches, or a skip.
void add_cond_steps(const graph::Graph& graph, const fusion::FusionPlan& plan,
                    const PlanCallee& plan_callee, PlannedSteps& out);

// The op nodes a subgraph step runs in its callees (for coverage: every branch can run).
std::size_t subgraph_ops(const StepPlan& step);

}  // namespace fxscope::gpu
