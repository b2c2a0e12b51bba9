// Groups that read what no step writes, dropped with what they lack (unwritten_reads.h).

#include "runtime/unwritten_reads.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/ops/tuple_item.h"

namespace fxscope::gpu {
namespace {

// How a buffer no step writes is named: a result of control flow (torch.cond) says why.
std::string lacked(const graph::Graph& g, graph::NodeId r) {
  const graph::Node& node = g.node(r);
  const auto item = ops::tuple_item(node);
  const graph::NodeId from = item ? item->of : r;
  if (!fusion::runs_subgraphs(g.node(from).target)) return node.name;
  return node.name + ", the result of " + std::string(ops::op_key(g.node(from).target)) + " " +
         g.node(from).name + ", which did not run";
}

}  // namespace

void drop_unwritten_reads(const graph::Graph& g, const fusion::FusionPlan& plan, PlannedSteps& out,
                          const std::vector<bool>& inputs,
                          const std::function<graph::NodeId(graph::NodeId)>& base) {
  std::vector<bool> skipped_writes(g.size(), false);
  for (const SkippedGroup& k : out.skipped) {
    // A torch.cond outside the plan's groups (a compiled mode's) writes its getitems.
    if (k.group >= plan.groups.size()) continue;
    for (const graph::NodeId n : plan.groups[k.group].nodes) skipped_writes[base(n)] = true;
  }
  // A tuple's elements (a skipped convolution_backward's gradients) are what it was to write.
  for (graph::NodeId u = 0; u < g.size(); ++u) {
    const graph::Node& un = g.node(u);
    if (ops::op_key(un.target) == "operator.getitem" && !un.args.empty() && un.args[0].is_node() &&
        skipped_writes[un.args[0].as_node()]) {
      skipped_writes[base(u)] = true;
    }
  }
  while (true) {
    std::vector<bool> ever(inputs);
    for (graph::NodeId n = 0; n < g.size(); ++n) ever[n] = ever[n] || skipped_writes[n];
    for (const StepPlan& s : out.steps) {
      for (const graph::NodeId w : s.writes) ever[base(w)] = true;
    }
    // A split reduction's second pass reads the partial states its first pass writes to scratch.
    std::set<std::pair<graph::NodeId, std::string>> partials;
    for (const StepPlan& s : out.steps) {
      if (s.variants.empty()) continue;
      for (const auto& p : s.variants.front().params) {
        if (p.scratch_elements > 0 && p.written) partials.insert({p.node, p.dtype});
      }
    }
    std::map<std::size_t, std::string> lacking;  // group -> the first buffer it lacks
    for (const StepPlan& s : out.steps) {
      for (const graph::NodeId r : s.reads) {
        if (!ever[base(r)] && !lacking.count(s.group)) lacking[s.group] = lacked(g, r);
      }
      if (s.variants.empty() || lacking.count(s.group)) continue;
      for (const auto& p : s.variants.front().params) {
        if (p.scratch_elements > 0 && !p.written && !partials.count({p.node, p.dtype})) {
          lacking[s.group] = "the partial states of " + g.node(p.node).name + "'s split reduction";
          break;
        }
      }
    }
    if (lacking.empty()) return;
    std::vector<StepPlan> kept;
    std::set<std::size_t> dropped;
    for (StepPlan& s : out.steps) {
      const auto it = lacking.find(s.group);
      if (it == lacking.end()) {
        kept.push_back(std::move(s));
        continue;
      }
      if (!dropped.insert(s.group).second) continue;
      out.ran_ops -= std::min(out.ran_ops, s.group_ops);
      out.skipped.push_back({s.group, s.group_name, s.group_ops,
                             "group " + std::to_string(s.group) + " " + s.group_name + ": reads " +
                                 it->second + ", which no kernel of the plan writes"});
    }
    out.steps = std::move(kept);
  }
}

}  // namespace fxscope::gpu
