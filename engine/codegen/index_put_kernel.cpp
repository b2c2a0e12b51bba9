// index_put / index_put_ (ATen's semantics: self[indices] = values, or += with accumulate): a
// thread per element of the indexed shape (self's dims before the first index tensor, the index
// tensors broadcast together, self's dims after them), the values broadcast to it from the right
// and computed inline, stored at the indexed address of the output; negative indices wrap.
// Accumulating stores are atomic adds: repeated indices (an embedding's gradient) add up.
//
// A fused Scatter group (Inductor's index_put_impl_) stores into a destination another kernel
// filled. An eager call copies self into its output first, in one block, a barrier between the
// copy and the scatter: the scatter must not start before every element of the copy is stored.

#include <algorithm>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"
#include "reduction_shape.h"

namespace fxscope::codegen {

using graph::NodeId;

std::optional<NodeId> lone_index_put(const graph::Graph& graph, const fusion::KernelGroup& group) {
  if (group.nodes.size() != 1 || group.nodes.front() >= graph.size()) return std::nullopt;
  if (!is_index_put(graph.node(group.nodes.front()))) return std::nullopt;
  return group.nodes.front();
}

Result<GeneratedKernel> index_put_kernel(const KernelContext& ctx, NodeId node, bool copy_self) {
  const graph::Graph& g = ctx.graph;
  const graph::Node& n = g.node(node);
  auto shape = scatter_shape(g, node, ctx.hints);
  if (!shape) return make_error(ctx.where + ": " + shape.error().message);
  const ScatterShape& sc = *shape;
  const auto out = shape_of(n, ctx.hints);
  if (!out) return op_error(ctx, n, "has no annotation of its output");
  const std::int64_t numel = sc.numel();
  const bool accumulate = sc.accumulate;

  const bool copy_only = copy_self || ctx.group.note == kIndexPutSelfNote;
  const bool scatter_only = ctx.group.note == kIndexPutScatterNote;
  // A group whose other stores or reductions this kernel would drop: the pointwise and reduction
  // kernels store a Scatter among them.
  for (const NodeId w : ctx.writes) {
    if (w != node && !copy_only) {
      return op_error(ctx, n, "shares its kernel with other stores (" + g.node(w).name + ")");
    }
  }
  for (const NodeId m : ctx.members) {
    if (is_reduction(g.node(m)) && !copy_only)
      return op_error(ctx, n, "shares its kernel with a reduction");
  }
  // One block copying and then scattering: an eager call without the runtime's split.
  const bool eager = !copy_only && !scatter_only && ctx.group.kind == fusion::GroupKind::eager_op;
  const LaunchConfig config = ctx.default_config ? LaunchConfig{256, 1, 1} : ctx.config;
  const std::string ix = index_type(ctx, std::max(numel, out->numel()));
  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  em.set_indent(2);
  if (eager || copy_only) {
    const std::string from =
        eager ? std::string("threadIdx.x") : ix + "(blockIdx.x) * blockDim.x + threadIdx.x";
    em.open("for (" + ix + " i = " + from + "; i < " + std::to_string(out->numel()) + "; i += " +
            (eager ? std::string("blockDim.x") : ix + "(gridDim.x) * blockDim.x") + ") {");
    const Index at = delinearize("i", out->sizes);
    auto v = em.value(n.args[0].as_node(), at);
    if (!v) return v.error();
    auto st = store_statement(em, node, at, *v);
    if (!st) return st.error();
    em.line(*st);
    em.close();
    if (copy_only) {
      const std::int64_t blocks =
          std::clamp<std::int64_t>((out->numel() + config.block - 1) / config.block, 1, kSMs * 64);
      return finish_kernel(
          ctx, em, config, blocks,
          "index_put's self copied, " + std::to_string(out->numel()) + " x " + n.meta->dtype);
    }
    em.line("__syncthreads();  // self is copied before any element is scattered over it");
  }
  const std::string start = eager ? "threadIdx.x" : ix + "(blockIdx.x) * blockDim.x + threadIdx.x";
  const std::string stride = eager ? "blockDim.x" : ix + "(gridDim.x) * blockDim.x";
  em.open("for (" + ix + " j = " + start + "; j < " + std::to_string(numel) + "; j += " + stride +
          ") {");
  if (auto e = emit_scatter(em, sc, delinearize("j", sc.indexed))) return *e;
  em.close();
  const std::int64_t grid =
      eager ? 1 : std::clamp<std::int64_t>((numel + config.block - 1) / config.block, 1, kSMs * 64);
  return finish_kernel(ctx, em, config, grid,
                       std::string(accumulate ? "index_put accumulate " : "index_put ") +
                           std::to_string(numel) + " x " + n.meta->dtype +
                           (eager ? ", self copied first, one block" : ""));
}

}  // namespace fxscope::codegen
