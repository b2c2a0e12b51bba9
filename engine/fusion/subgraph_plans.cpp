// Control flow's subgraphs, planned one by one.

#include "subgraph_plans.h"

#include <algorithm>
#include <vector>

#include "fxscope/fusion/lowering_ops.h"

namespace fxscope::fusion::detail {
namespace {

// NODE and everything computed from it.
std::vector<bool> descendants(const graph::Graph& graph, graph::NodeId node) {
  const std::vector<std::vector<graph::NodeId>> users = graph.users();
  std::vector<bool> reached(graph.size(), false);
  std::vector<graph::NodeId> stack{node};
  while (!stack.empty()) {
    const graph::NodeId v = stack.back();
    stack.pop_back();
    if (reached[v]) continue;
    reached[v] = true;
    for (const graph::NodeId u : users[v]) stack.push_back(u);
  }
  return reached;
}

}  // namespace

void plan_subgraphs(const graph::Graph& graph, Mode mode, const PlanOptions& options,
                    FusionPlan& plan) {
  for (graph::NodeId id = 0; id < graph.size(); ++id) {
    const graph::Node& node = graph.node(id);
    if (!node.is_op() || !runs_subgraphs(node.target)) continue;
    const std::vector<bool> after = descendants(graph, id);
    const auto first_reader =
        std::find_if(plan.groups.begin(), plan.groups.end(), [&](const KernelGroup& g) {
          return std::any_of(g.nodes.begin(), g.nodes.end(),
                             [&](graph::NodeId n) { return after[n]; });
        });
    const auto position = static_cast<std::size_t>(first_reader - plan.groups.begin());
    for (const graph::NodeId in : graph.inputs(id)) {
      const graph::Node& arg = graph.node(in);
      if (arg.op != graph::OpKind::get_attr) continue;
      const graph::Graph* sub = graph.find_subgraph(arg.target);
      if (sub == nullptr) continue;
      // Its inputs are the op's operands, in memory already (InputBuffers of the subgraph).
      PlanOptions inner = options;
      inner.static_inputs.clear();
      plan.subgraphs.push_back({sub->name(), position, fusion::plan(*sub, mode, inner)});
    }
  }
}

}  // namespace fxscope::fusion::detail
