// aten.scatter (self, dim, index, src or value) and aten.scatter_add (self, dim, index, src) as
// generated code, ATen's definition: the output is self, then for each element j of index,
// out[j with dim replaced by index[j]] = src[j] (or the value; scatter_add adds it). One block:
// self copied, a barrier, then every element of index stored; where several land on one place, one
// of them wins, as on ATen's CUDA kernel. A negative index counts from the end, as ATen wraps it.

#include <algorithm>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {

using graph::NodeId;

bool is_scatter(const graph::Node& node) {
  const std::string key(ops::op_key(node.target));
  return (key == "aten.scatter" || key == "aten.scatter_add") && node.args.size() >= 4;
}

Result<GeneratedKernel> scatter_kernel(const KernelContext& ctx, NodeId node, ScatterPart part) {
  const graph::Graph& g = ctx.graph;
  const graph::Node& n = g.node(node);
  if (!n.args[0].is_node() || !n.args[2].is_node() || !n.meta) {
    return op_error(ctx, n, "needs self, dim and index tensors");
  }
  if (kwarg(n, "reduce") != nullptr || n.args.size() > 4) {
    return op_error(ctx, n, "with a reduce argument is not generated");
  }
  const NodeId self = n.args[0].as_node();
  const NodeId index = n.args[2].as_node();
  const auto out = shape_of(n, ctx.hints);
  const auto at = shape_of(g.node(index), ctx.hints);
  if (!out || !at || at->sizes.size() != out->sizes.size()) {
    return op_error(ctx, n, "needs an index of the output's rank");
  }
  const std::size_t rank = out->sizes.size();
  const auto dim = static_cast<std::size_t>(wrap_dim(int_at(n, 1, 0), rank));
  if (dim >= rank) return op_error(ctx, n, "scatters along a dimension the output lacks");
  const LaunchConfig config = ctx.default_config ? LaunchConfig{256, 1, 1} : ctx.config;
  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  em.set_indent(2);
  // The planned parts are launches of their own, each over the whole grid.
  const bool split = part != ScatterPart::both;
  const std::string first =
      split ? "(long long)blockIdx.x * blockDim.x + threadIdx.x" : "threadIdx.x";
  const std::string step = split ? "(long long)gridDim.x * blockDim.x" : "blockDim.x";
  const auto blocks = [&](std::int64_t numel) {
    return std::clamp<std::int64_t>((numel + config.block - 1) / config.block, 1, kSMs * 64);
  };
  if (part != ScatterPart::scatter) {
    em.open("for (long long i = " + first + "; i < " + std::to_string(out->numel()) +
            "LL; i += " + step + ") {");
    const Index all = delinearize("i", out->sizes);
    auto v = em.value(self, all);
    if (!v) return v.error();
    auto copy = store_statement(em, node, all, *v);
    if (!copy) return copy.error();
    em.line(*copy);
    em.close();
    if (part == ScatterPart::self_copy) {
      return finish_kernel(
          ctx, em, config, blocks(out->numel()),
          "scatter's self copied, " + std::to_string(out->numel()) + " x " + n.meta->dtype);
    }
    em.line("__syncthreads();  // self is in place before any element is scattered over it");
  }
  em.open("for (long long j = " + first + "; j < " + std::to_string(at->numel()) +
          "LL; j += " + step + ") {");
  const Index from = delinearize("j", at->sizes);
  auto where = em.value(index, from);
  if (!where) return where.error();
  const std::string size = std::to_string(out->sizes[dim]) + "LL";
  em.line("long long to = (long long)(" + *where + ");");
  em.line("if (to < 0) to += " + size + ";");
  Index target = from;
  target.linear.clear();
  target.dims[dim] = "to";
  std::string value;
  if (n.args[3].is_node()) {
    auto s = em.value(n.args[3].as_node(), from);
    if (!s) return s.error();
    value = *s;
  } else if (n.args[3].kind() == graph::Argument::Kind::integer) {
    value = std::to_string(n.args[3].as_int()) + "LL";
  } else if (n.args[3].kind() == graph::Argument::Kind::floating) {
    value = float_literal(n.args[3].as_float());
  } else {
    return op_error(ctx, n, "scatters a value that is neither a tensor nor a number");
  }
  if (ops::op_key(n.target) == "aten.scatter_add") {
    // scatter_add sums what lands on one place: atomically, in no set order (as ATen's kernel).
    auto off = em.offset(node, target);
    if (!off) return off.error();
    em.line(atomic_add(n.meta->dtype, em.param_name(node), "(" + *off + ")", value));
  } else {
    auto store = store_statement(em, node, target, value);
    if (!store) return store.error();
    em.line(*store);
  }
  em.close();
  if (split) {
    return finish_kernel(ctx, em, config, blocks(at->numel()),
                         "scatter " + std::to_string(at->numel()) + " elements into " +
                             std::to_string(out->numel()));
  }
  return finish_kernel(ctx, em, config, 1,
                       "scatter " + std::to_string(at->numel()) + " elements into " +
                           std::to_string(out->numel()) + ", self copied first, one block");
}

}  // namespace fxscope::codegen
