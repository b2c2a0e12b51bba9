// torch.cond's step: the predicate, the operands in the branches' placeholder order, the getitems
// that take the outputs, and each branch planned as a graph of its own.

#include "runtime/branch_step.h"

#include <algorithm>

#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/random_inputs.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::gpu {

bool is_cond(const graph::Node& node) {
  return node.is_op() && ops::op_key(node.target) == "higher_order.cond";
}

Result<StepPlan> branch_step(const graph::Graph& g, graph::NodeId cond,
                             const fusion::FusionPlan& plan, const PlanBranch& plan_branch) {
  const graph::Node& node = g.node(cond);
  const std::string where = "torch.cond " + node.name;
  // cond(pred, true_graph, false_graph, operands)
  if (node.args.size() < 4 || !node.args[0].is_node() || !node.args[1].is_node() ||
      !node.args[2].is_node()) {
    return make_error(where + ": expected cond(pred, true_fn, false_fn, operands), got " +
                      std::to_string(node.args.size()) + " arguments");
  }
  BranchSpec spec;
  spec.predicate = node.args[0].as_node();
  const auto& pred = g.node(spec.predicate).meta;
  if (!pred || pred->is_sym_scalar() || element_bytes(pred->dtype) == 0) {
    // A predicate on sizes (Inductor's ShapeAsConstantBuffer) is decided when the unit
    // compiles, from values no run of fxscope binds.
    return make_error(where + ": its predicate " + g.node(spec.predicate).name +
                      " is no tensor (a condition on sizes): not run");
  }
  for (const graph::Argument& a : node.args[3].items()) {
    if (!a.is_node()) {
      return make_error(where + ": an operand is a constant (" + a.to_string() +
                        "), which a branch cannot take as an input here");
    }
    spec.operands.push_back(a.as_node());
  }
  std::size_t outputs = 0;
  for (const std::size_t arg : {1u, 2u}) {
    const graph::Node& attr = g.node(node.args[arg].as_node());
    const graph::Graph* sub = g.find_subgraph(attr.target);
    const fusion::FusionPlan* sub_plan = fusion::subgraph_plan(plan, attr.target);
    if (sub == nullptr || sub_plan == nullptr || attr.target.empty()) {
      return make_error(where + ": its branch " + attr.target + " has no " +
                        (sub == nullptr ? "graph in the log" : "plan"));
    }
    if (graph_inputs(*sub).size() != spec.operands.size()) {
      return make_error(where + ": its branch " + attr.target + " takes " +
                        std::to_string(graph_inputs(*sub).size()) + " inputs, the cond passes " +
                        std::to_string(spec.operands.size()));
    }
    auto steps = std::make_shared<PlannedSteps>(plan_branch(*sub, *sub_plan));
    if (!steps->skipped.empty()) {
      return make_error(where + ": its branch " + attr.target +
                        " cannot run: " + steps->skipped.front().why);
    }
    outputs = std::max(outputs, output_nodes(*sub).size());
    spec.branches.push_back({attr.target, sub, std::move(steps)});
  }
  spec.results.assign(outputs, std::nullopt);
  for (graph::NodeId u = 0; u < g.size(); ++u) {
    const graph::Node& un = g.node(u);
    if (ops::op_key(un.target) != "operator.getitem" || un.args.size() < 2 ||
        !un.args[0].is_node() || un.args[0].as_node() != cond) {
      continue;
    }
    const std::int64_t k = un.args[1].as_int();
    if (k < 0 || static_cast<std::size_t>(k) >= outputs) {
      return make_error(where + ": " + un.name + " takes output " + std::to_string(k) + " of " +
                        std::to_string(outputs));
    }
    spec.results[static_cast<std::size_t>(k)] = u;
  }
  StepPlan s;
  s.kind = StepKind::branch;
  s.name = "torch.cond";
  s.reads.push_back(spec.predicate);
  for (const graph::NodeId n : spec.operands) s.reads.push_back(n);
  for (const auto& r : spec.results) {
    if (r) s.writes.push_back(*r);
  }
  s.branch = std::move(spec);
  return s;
}

void add_branches_outside_groups(const graph::Graph& g, const fusion::FusionPlan& plan,
                                 const std::vector<bool>& in_groups, const PlanBranch& plan_branch,
                                 PlannedSteps& out) {
  for (graph::NodeId n = 0; n < g.size(); ++n) {
    if (in_groups[n] || !is_cond(g.node(n))) continue;
    const std::size_t group = plan.groups.size();
    const std::string name(ops::op_key(g.node(n).target));
    auto b = branch_step(g, n, plan, plan_branch);
    const std::size_t ops = 1 + (b ? branch_ops(*b) : 0);
    out.ops += ops;
    if (!b) {
      out.skipped.push_back({group, name, ops, b.error().message});
      continue;
    }
    out.ran_ops += ops;
    b->group = group;
    b->group_name = name;
    b->nodes = {n};
    b->group_ops = ops;
    // Where the plan places its branches: before the first group that reads its result.
    std::size_t position = plan.groups.size();
    for (const fusion::SubgraphPlan& sp : plan.subgraphs) {
      if (sp.name == b->branch->branches.front().name) position = sp.position;
    }
    const auto at = std::find_if(out.steps.begin(), out.steps.end(),
                                 [&](const StepPlan& s) { return s.group >= position; });
    out.steps.insert(at, std::move(*b));
  }
}

std::size_t branch_ops(const StepPlan& step) {
  std::size_t n = 0;
  if (step.branch) {
    for (const auto& b : step.branch->branches) n += b.steps->ops;
  }
  return n;
}

}  // namespace fxscope::gpu
