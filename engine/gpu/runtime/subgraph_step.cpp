// Subgraph steps: the operands in the callees' placeholder order, the getitems that take the
// outputs, and each callee planned as a graph of its own.

#include "runtime/subgraph_step.h"

#include <algorithm>

#include "fxscope/fusion/planner.h"
#include "fxscope/gpu/flex_math_graph.h"
#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/random_inputs.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/ops/tuple_item.h"

namespace fxscope::gpu {
namespace {

// RESULTS[K] = the getitem of OP's output K, for each getitem of OP in G; an error when one takes
// an output past OUTPUTS.
Result<std::vector<std::optional<graph::NodeId>>> getitems_of(const graph::Graph& g,
                                                              graph::NodeId op, std::size_t outputs,
                                                              const std::string& where) {
  std::vector<std::optional<graph::NodeId>> results(outputs);
  for (graph::NodeId u = 0; u < g.size(); ++u) {
    const auto item = ops::tuple_item(g.node(u));
    if (!item || item->of != op) continue;
    if (item->index < 0 || static_cast<std::size_t>(item->index) >= outputs) {
      return make_error(where + ": " + g.node(u).name + " takes output " +
                        std::to_string(item->index) + " of " + std::to_string(outputs));
    }
    results[static_cast<std::size_t>(item->index)] = u;
  }
  return results;
}

StepPlan subgraph_step(SubgraphCall call, std::string name) {
  StepPlan s;
  s.kind = StepKind::subgraphs;
  s.name = std::move(name);
  if (call.predicate) s.reads.push_back(*call.predicate);
  for (const graph::NodeId n : call.operands) s.reads.push_back(n);
  for (const auto& r : call.results) {
    if (r) s.writes.push_back(*r);
  }
  s.call = std::move(call);
  return s;
}

}  // namespace

bool is_cond(const graph::Node& node) {
  return node.is_op() && ops::op_key(node.target) == "higher_order.cond";
}

bool is_flex_attention_forward(const graph::Node& node) {
  return node.is_op() && ops::op_key(node.target) == "higher_order.flex_attention";
}

bool is_flex_attention_backward(const graph::Node& node) {
  return node.is_op() && ops::op_key(node.target) == "higher_order.flex_attention_backward";
}

Result<StepPlan> cond_step(const graph::Graph& g, graph::NodeId cond,
                           const fusion::FusionPlan& plan, const PlanCallee& plan_callee) {
  const graph::Node& node = g.node(cond);
  const std::string where = "torch.cond " + node.name;
  // cond(pred, true_graph, false_graph, operands)
  if (node.args.size() < 4 || !node.args[0].is_node() || !node.args[1].is_node() ||
      !node.args[2].is_node()) {
    return make_error(where + ": expected cond(pred, true_fn, false_fn, operands), got " +
                      std::to_string(node.args.size()) + " arguments");
  }
  SubgraphCall spec;
  const graph::NodeId predicate = node.args[0].as_node();
  spec.predicate = predicate;
  const auto& pred = g.node(predicate).meta;
  if (!pred || pred->is_sym_scalar() || element_bytes(pred->dtype) == 0) {
    // A predicate on sizes (Inductor's ShapeAsConstantBuffer) is decided when the unit
    // compiles, from values no run of fxscope binds.
    return make_error(where + ": its predicate " + g.node(predicate).name +
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
    auto steps = std::make_shared<PlannedSteps>(plan_callee(*sub, *sub_plan));
    if (!steps->skipped.empty()) {
      return make_error(where + ": its branch " + attr.target +
                        " cannot run: " + steps->skipped.front().why);
    }
    outputs = std::max(outputs, output_nodes(*sub).size());
    spec.graphs.push_back({attr.target, nullptr, sub, std::move(steps)});
  }
  auto results = getitems_of(g, cond, outputs, where);
  if (!results) return results.error();
  spec.results = std::move(*results);
  return subgraph_step(std::move(spec), "torch.cond");
}

Result<StepPlan> flex_attention_step(const graph::Graph& g, graph::NodeId flex,
                                     const PlanCallee& plan_callee) {
  const graph::Node& node = g.node(flex);
  const bool backward = is_flex_attention_backward(node);
  const std::string where = (backward ? "flex attention backward " : "flex attention ") + node.name;
  auto math = backward ? flex_attention_backward_math(g, flex) : flex_attention_math(g, flex);
  if (!math) return math.error();
  SubgraphCall call;
  // The math graph's placeholders: q, k, v (the backward's then the attention, its log-sum-exp,
  // their gradients), then the buffers its graphs take.
  const std::vector<std::size_t> tensors =
      backward ? std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6} : std::vector<std::size_t>{0, 1, 2};
  for (const std::size_t a : tensors) {
    if (node.args[a].is_node()) call.operands.push_back(node.args[a].as_node());
  }
  for (const std::size_t a :
       backward ? std::vector<std::size_t>{13} : std::vector<std::size_t>{7, 8}) {
    if (node.args.size() > a) {
      node.args[a].for_each_node([&](graph::NodeId n) { call.operands.push_back(n); });
    }
  }
  auto owned = std::make_shared<const graph::Graph>(std::move(*math));
  auto steps = std::make_shared<PlannedSteps>(
      plan_callee(*owned, fusion::plan(*owned, fusion::Mode::eager)));
  if (!steps->skipped.empty()) {
    return make_error(where + ": its math graph cannot run: " + steps->skipped.front().why);
  }
  auto results = getitems_of(g, flex, output_nodes(*owned).size(), where);
  if (!results) return results.error();
  call.results = std::move(*results);
  call.graphs.push_back({backward ? "flex attention backward's math" : "flex attention's math",
                         owned, owned.get(), std::move(steps)});
  return subgraph_step(std::move(call), backward
                                            ? "flex attention backward (fxscope's math, op by op)"
                                            : "flex attention (fxscope's math, op by op)");
}

void add_cond_steps(const graph::Graph& g, const fusion::FusionPlan& plan,
                    const PlanCallee& plan_callee, PlannedSteps& out) {
  for (graph::NodeId n = 0; n < g.size(); ++n) {
    if (!is_cond(g.node(n))) continue;
    const std::size_t group = plan.groups.size();
    const std::string name(ops::op_key(g.node(n).target));
    auto b = cond_step(g, n, plan, plan_callee);
    const std::size_t ops = 1 + (b ? subgraph_ops(*b) : 0);
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
      if (sp.name == b->call->graphs.front().name) position = sp.position;
    }
    const auto at = std::find_if(out.steps.begin(), out.steps.end(),
                                 [&](const StepPlan& s) { return s.group >= position; });
    out.steps.insert(at, std::move(*b));
  }
}

std::size_t subgraph_ops(const StepPlan& step) {
  std::size_t n = 0;
  if (step.call) {
    for (const auto& b : step.call->graphs) n += b.steps->ops;
  }
  return n;
}

}  // namespace fxscope::gpu
