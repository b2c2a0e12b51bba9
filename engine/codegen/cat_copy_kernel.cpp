// The copies of a ConcatKernel: a cat's part that cannot be computed into its slice of the output
// (a graph input, a library call's result, a buffer some other cat already holds) is copied there
// by a kernel of its own, and Inductor fuses the copies of one part into several cats (DenseNet's
// features, copied into each later block's input). Such a group writes no node's whole buffer:
// it stores each part it reads or computes into the slice of every member cat that holds it.

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"
#include "reduction_shape.h"

namespace fxscope::codegen {
namespace {

using graph::NodeId;

// Where one part lands: in CAT, along DIM, from START.
struct Slice {
  NodeId cat;
  std::size_t dim;
  std::int64_t start;
};

}  // namespace

std::optional<Result<GeneratedKernel>> cat_copy_kernel(const KernelContext& ctx) {
  const graph::Graph& g = ctx.graph;
  const std::set<NodeId> inputs(ctx.group.inputs.begin(), ctx.group.inputs.end());
  std::map<NodeId, std::vector<Slice>> parts;  // a part the group has -> the slices it fills
  std::vector<NodeId> cats;
  for (const NodeId c : ctx.members) {
    const graph::Node& cat = g.node(c);
    if (ops::op_base_name(cat.target) != "cat" || cat.args.empty() || !cat.meta) continue;
    const auto shape = shape_of(cat, ctx.hints);
    if (!shape) continue;
    const auto dim = static_cast<std::size_t>(wrap_dim(int_at(cat, 1, 0), shape->sizes.size()));
    std::int64_t start = 0;
    bool fills = false;
    for (const graph::Argument& a : cat.args[0].items()) {
      if (!a.is_node()) continue;
      const auto part = shape_of(g.node(a.as_node()), ctx.hints);
      if (!part || part->sizes.size() != shape->sizes.size() || dim >= shape->sizes.size()) {
        continue;  // a legacy empty part
      }
      const NodeId p = a.as_node();
      if (inputs.count(p) ||
          (ctx.members.count(p) && ops::op_base_name(g.node(p).target) != "cat")) {
        parts[p].push_back({c, dim, start});
        fills = true;
      }
      start += part->sizes[dim];
    }
    if (fills) cats.push_back(c);
  }
  if (parts.empty()) return std::nullopt;
  KernelContext copy = ctx;
  copy.writes = cats;
  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  std::int64_t widest = 1;
  for (const auto& [p, slices] : parts) {
    const auto shape = shape_of(g.node(p), ctx.hints);
    const std::int64_t numel = shape->numel();
    widest = std::max(widest, numel);
    const std::string ix = index_type(copy, numel);
    em.open("for (" + ix + " i = " + ix + "(blockIdx.x) * blockDim.x + threadIdx.x; i < " +
            std::to_string(numel) + "; i += " + ix + "(gridDim.x) * blockDim.x) {");
    const Index at = delinearize("i", shape->sizes);
    auto v = em.value(p, at);
    if (!v) return v.error();
    for (const Slice& s : slices) {
      Index into = at;
      into.linear.clear();
      if (s.start) into.dims[s.dim] = "(" + at.dims[s.dim] + ") + " + std::to_string(s.start);
      auto store = store_statement(em, s.cat, into, *v);
      if (!store) return store.error();
      em.line(*store);
    }
    em.close();
  }
  return finish_kernel(copy, em, {256, 1, 1},
                       std::clamp<std::int64_t>((widest + 255) / 256, 1, kSMs * 64),
                       "cat copy of " + std::to_string(parts.size()) + " part(s) into " +
                           std::to_string(cats.size()) + " cat(s)");
}

bool fills_cat_slices_apart(const graph::Graph& g, const fusion::KernelGroup& group) {
  if (group.outputs.empty() || group.kind != fusion::GroupKind::pointwise) return false;
  // The copy recomputes the group's values without its stores to choose from: a reduction among
  // them (a few-element sum Inductor inlines) would make it a reduction kernel over other rows.
  for (const NodeId n : group.nodes) {
    if (is_reduction(g.node(n))) return false;
  }
  const std::set<NodeId> nodes(group.nodes.begin(), group.nodes.end());
  const std::set<NodeId> outputs(group.outputs.begin(), group.outputs.end());
  const std::set<NodeId> inputs(group.inputs.begin(), group.inputs.end());
  // A part the group computes from what it reads: every value it depends on is the group's or
  // read by it (a cat among the origins of a group that reads none of the part's sources was
  // filled elsewhere).
  const auto computed_here = [&](NodeId part) {
    std::vector<NodeId> stack{part};
    std::set<NodeId> seen;
    while (!stack.empty()) {
      const NodeId n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second || inputs.count(n)) continue;
      if (!nodes.count(n) || ops::runs_in_library(g.node(n).target)) return false;
      for (const NodeId a : g.inputs(n)) stack.push_back(a);
    }
    return true;
  };
  for (const NodeId c : group.nodes) {
    const graph::Node& cat = g.node(c);
    if (ops::op_base_name(cat.target) != "cat" || cat.args.empty() || outputs.count(c)) continue;
    for (const graph::Argument& a : cat.args[0].items()) {
      if (!a.is_node()) continue;
      const NodeId p = a.as_node();
      if (!inputs.count(p) && ops::op_base_name(g.node(p).target) != "cat" && computed_here(p)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace fxscope::codegen
