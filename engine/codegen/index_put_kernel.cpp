// index_put / index_put_ (ATen's semantics: self[indices] = values, or += with accumulate): a
// thread per element of the indexed shape (self's dims before the first index tensor, the index
// tensors broadcast together, self's dims after them), the values broadcast to it from the right
// and computed inline, stored at the indexed address of the output; negative indices wrap.
// Accumulating stores are atomic adds: repeated indices (an embedding's gradient) add up.
//
// A fused Scatter group (Inductor's index_put_impl_) stores into a destination another kernel
// filled. An eager call copies self into its output first, in one block, a barrier between the
// copy and the scatter: the scatter must not start before every element of the copy is stored.

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"
#include "reduction_shape.h"

namespace fxscope::codegen {
namespace {

using graph::Argument;
using graph::NodeId;

// The atomic add of VALUE (float) to element OFF of PTR, a buffer of DTYPE. 16-bit types add
// through a compare-and-swap of the 32-bit word that holds them (the prelude's fx_atomic_add_f16 /
// _bf16).
std::string atomic_add(const std::string& dtype, const std::string& ptr, const std::string& off,
                       const std::string& value) {
  if (dtype == "f16") return "fx_atomic_add_f16(" + ptr + " + " + off + ", " + value + ");";
  if (dtype == "bf16") return "fx_atomic_add_bf16(" + ptr + " + " + off + ", " + value + ");";
  return "atomicAdd(" + ptr + " + " + off + ", (" + storage_type(dtype) + ")(" + value + "));";
}

}  // namespace

bool is_index_put(const graph::Node& node) {
  const std::string_view base = ops::op_base_name(node.target);
  return base == "index_put" || base == "index_put_";
}

std::optional<NodeId> lone_index_put(const graph::Graph& graph, const fusion::KernelGroup& group) {
  if (group.nodes.size() != 1 || group.nodes.front() >= graph.size()) return std::nullopt;
  if (!is_index_put(graph.node(group.nodes.front()))) return std::nullopt;
  return group.nodes.front();
}

Result<GeneratedKernel> index_put_kernel(const KernelContext& ctx, NodeId node) {
  const graph::Graph& g = ctx.graph;
  const graph::Node& n = g.node(node);
  const auto fail = [&](const std::string& why) -> Result<GeneratedKernel> {
    return make_error(ctx.where + ": " + std::string(ops::op_key(n.target)) + " " + why);
  };
  if (n.args.size() < 3 || !n.args[0].is_node() || !n.args[2].is_node()) {
    return fail("needs self, indices and values");
  }
  const auto out = shape_of(n, ctx.hints);
  const auto self = shape_of(g.node(n.args[0].as_node()), ctx.hints);
  const auto values = shape_of(g.node(n.args[2].as_node()), ctx.hints);
  if (!out || !self || !values || self->sizes != out->sizes) {
    return fail("has no annotation of self's shape");
  }
  bool accumulate =
      n.args.size() > 3 && n.args[3].kind() == Argument::Kind::boolean && n.args[3].as_bool();
  for (const graph::KeywordArgument& kw : n.kwargs) {
    if (kw.first == "accumulate") accumulate = kw.second.as_bool();
  }
  const std::vector<Argument>& indices = n.args[1].items();
  std::size_t first = 0;
  while (first < indices.size() && indices[first].is_none()) ++first;
  std::vector<Shape> index_shapes;
  std::size_t bcast_rank = 0;
  for (std::size_t k = first; k < indices.size() && indices[k].is_node(); ++k) {
    auto s = shape_of(g.node(indices[k].as_node()), ctx.hints);
    if (!s) return fail("has an index without annotation");
    bcast_rank = std::max(bcast_rank, s->sizes.size());
    index_shapes.push_back(std::move(*s));
  }
  const std::size_t count = index_shapes.size();
  for (std::size_t k = first + count; k < indices.size(); ++k) {
    if (!indices[k].is_none()) return fail("has index tensors that are not adjacent");
  }
  if (count == 0 || first + count > out->sizes.size()) return fail("has no index tensor");
  // The indexed shape: the broadcast of the index tensors between self's outer and inner dims.
  std::vector<std::int64_t> bcast(bcast_rank, 1);
  for (const Shape& s : index_shapes) {
    const std::size_t off = bcast_rank - s.sizes.size();
    for (std::size_t d = 0; d < s.sizes.size(); ++d) {
      if (s.sizes[d] == 1) continue;
      if (bcast[off + d] != 1 && bcast[off + d] != s.sizes[d]) {
        return fail("has index tensors that do not broadcast");
      }
      bcast[off + d] = s.sizes[d];
    }
  }
  std::vector<std::int64_t> indexed;
  for (std::size_t d = 0; d < first; ++d) indexed.push_back(out->sizes[d]);
  indexed.insert(indexed.end(), bcast.begin(), bcast.end());
  for (std::size_t d = first + count; d < out->sizes.size(); ++d) indexed.push_back(out->sizes[d]);
  if (values->sizes.size() > indexed.size()) return fail("has values of a higher rank");
  std::int64_t numel = 1;
  for (const std::int64_t s : indexed) numel *= s;

  for (const NodeId w : ctx.writes) {
    if (w != node) return fail("shares its kernel with other stores (" + g.node(w).name + ")");
  }
  for (const NodeId m : ctx.members) {
    if (is_reduction(g.node(m))) return fail("shares its kernel with a reduction");
  }
  const bool copy_only = ctx.group.note == kIndexPutSelfNote;
  const bool scatter_only = ctx.group.note == kIndexPutScatterNote;
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
  const Index at = delinearize("j", indexed);
  Index dest;
  for (std::size_t d = 0; d < first; ++d) dest.dims.push_back(at.dims[d]);
  for (std::size_t k = 0; k < count; ++k) {
    const Shape& s = index_shapes[k];
    Index ii;
    const std::size_t off = bcast_rank - s.sizes.size();
    for (std::size_t d = 0; d < s.sizes.size(); ++d) {
      ii.dims.push_back(s.sizes[d] == 1 ? "0" : at.dims[first + off + d]);
    }
    auto v = em.value(indices[first + k].as_node(), ii);
    if (!v) return v.error();
    const std::string size = std::to_string(out->sizes[first + k]);
    const std::string var = "k" + std::to_string(k);
    em.line("const fx_i64 " + var + " = (fx_i64)(" + *v + ");");
    dest.dims.push_back("(" + var + " < 0 ? " + var + " + " + size + " : " + var + ")");
  }
  for (std::size_t d = first + bcast_rank; d < indexed.size(); ++d) dest.dims.push_back(at.dims[d]);
  Index vat;
  const std::size_t voff = indexed.size() - values->sizes.size();
  for (std::size_t d = 0; d < values->sizes.size(); ++d) {
    vat.dims.push_back(values->sizes[d] == 1 ? "0" : at.dims[voff + d]);
  }
  auto v = em.value(n.args[2].as_node(), vat);
  if (!v) return v.error();
  if (accumulate) {
    auto off = em.offset(node, dest);
    if (!off) return off.error();
    em.line(atomic_add(n.meta->dtype, em.param_name(node), "(" + *off + ")", *v));
  } else {
    auto st = store_statement(em, node, dest, *v);
    if (!st) return st.error();
    em.line(*st);
  }
  em.close();
  const std::int64_t grid =
      eager ? 1 : std::clamp<std::int64_t>((numel + config.block - 1) / config.block, 1, kSMs * 64);
  return finish_kernel(ctx, em, config, grid,
                       std::string(accumulate ? "index_put accumulate " : "index_put ") +
                           std::to_string(numel) + " x " + n.meta->dtype +
                           (eager ? ", self copied first, one block" : ""));
}

}  // namespace fxscope::codegen
