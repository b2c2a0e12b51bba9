// An index_put as one store of a kernel (Inductor's ir.Scatter): the indexed shape it iterates
// over, and the statements that store (or atomically add) one value at its indexed address. The
// index_put kernel of its own and the pointwise and reduction kernels that fuse a Scatter with
// other stores share them, so every form indexes alike.

#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {
namespace {

using graph::Argument;
using graph::NodeId;

}  // namespace

// The atomic add of VALUE (float) to element OFF of PTR, a buffer of DTYPE. 16-bit types add
// through a compare-and-swap of the 32-bit word that holds them (the prelude's fx_atomic_add_f16 /
// _bf16).
std::string atomic_add(const std::string& dtype, const std::string& ptr, const std::string& off,
                       const std::string& value) {
  if (dtype == "f16") return "fx_atomic_add_f16(" + ptr + " + " + off + ", " + value + ");";
  if (dtype == "bf16") return "fx_atomic_add_bf16(" + ptr + " + " + off + ", " + value + ");";
  return "atomicAdd(" + ptr + " + " + off + ", (" + storage_type(dtype) + ")(" + value + "));";
}

bool is_index_put(const graph::Node& node) {
  const std::string_view base = ops::op_base_name(node.target);
  return base == "index_put" || base == "index_put_";
}

std::int64_t ScatterShape::numel() const {
  std::int64_t n = 1;
  for (const std::int64_t s : indexed) n *= s;
  return n;
}

Result<ScatterShape> scatter_shape(const graph::Graph& g, NodeId node,
                                   const ops::SymbolHints& hints) {
  const graph::Node& n = g.node(node);
  const auto fail = [&](const std::string& why) -> Result<ScatterShape> {
    return make_error(std::string(ops::op_key(n.target)) + " " + why);
  };
  if (n.args.size() < 3 || !n.args[0].is_node() || !n.args[2].is_node()) {
    return fail("needs self, indices and values");
  }
  const auto out = shape_of(n, hints);
  const auto self = shape_of(g.node(n.args[0].as_node()), hints);
  const auto values = shape_of(g.node(n.args[2].as_node()), hints);
  if (!out || !self || !values || self->sizes != out->sizes) {
    return fail("has no annotation of self's shape");
  }
  ScatterShape s;
  s.node = node;
  s.out = out->sizes;
  s.values = n.args[2].as_node();
  s.values_sizes = values->sizes;
  s.accumulate =
      n.args.size() > 3 && n.args[3].kind() == Argument::Kind::boolean && n.args[3].as_bool();
  for (const graph::KeywordArgument& kw : n.kwargs) {
    if (kw.first == "accumulate") s.accumulate = kw.second.as_bool();
  }
  const std::vector<Argument>& indices = n.args[1].items();
  while (s.first < indices.size() && indices[s.first].is_none()) ++s.first;
  for (std::size_t k = s.first; k < indices.size() && indices[k].is_node(); ++k) {
    auto is = shape_of(g.node(indices[k].as_node()), hints);
    if (!is) return fail("has an index without annotation");
    s.bcast_rank = std::max(s.bcast_rank, is->sizes.size());
    s.indices.push_back(indices[k].as_node());
    s.index_sizes.push_back(std::move(is->sizes));
  }
  const std::size_t count = s.indices.size();
  for (std::size_t k = s.first + count; k < indices.size(); ++k) {
    if (!indices[k].is_none()) return fail("has index tensors that are not adjacent");
  }
  if (count == 0 || s.first + count > out->sizes.size()) return fail("has no index tensor");
  // The indexed shape: the broadcast of the index tensors between self's outer and inner dims.
  std::vector<std::int64_t> bcast(s.bcast_rank, 1);
  for (const std::vector<std::int64_t>& sizes : s.index_sizes) {
    const std::size_t off = s.bcast_rank - sizes.size();
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == 1) continue;
      if (bcast[off + d] != 1 && bcast[off + d] != sizes[d]) {
        return fail("has index tensors that do not broadcast");
      }
      bcast[off + d] = sizes[d];
    }
  }
  for (std::size_t d = 0; d < s.first; ++d) s.indexed.push_back(out->sizes[d]);
  s.indexed.insert(s.indexed.end(), bcast.begin(), bcast.end());
  for (std::size_t d = s.first + count; d < out->sizes.size(); ++d) {
    s.indexed.push_back(out->sizes[d]);
  }
  if (values->sizes.size() > s.indexed.size()) return fail("has values of a higher rank");
  return s;
}

std::optional<Error> emit_scatter(ValueEmitter& em, const ScatterShape& s, const Index& at) {
  const graph::Graph& g = em.graph();
  const graph::Node& n = g.node(s.node);
  Index dest;
  for (std::size_t d = 0; d < s.first; ++d) dest.dims.push_back(at.dims[d]);
  for (std::size_t k = 0; k < s.indices.size(); ++k) {
    const std::vector<std::int64_t>& sizes = s.index_sizes[k];
    Index ii;
    const std::size_t off = s.bcast_rank - sizes.size();
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      ii.dims.push_back(sizes[d] == 1 ? "0" : at.dims[s.first + off + d]);
    }
    auto v = em.value(s.indices[k], ii);
    if (!v) return v.error();
    const std::string size = std::to_string(s.out[s.first + k]);
    // Named for the node: a kernel may hold several scatters in one scope.
    const std::string var = "k" + std::to_string(s.node) + "_" + std::to_string(k);
    em.line("const fx_i64 " + var + " = (fx_i64)(" + *v + ");");
    dest.dims.push_back("(" + var + " < 0 ? " + var + " + " + size + " : " + var + ")");
  }
  for (std::size_t d = s.first + s.bcast_rank; d < s.indexed.size(); ++d) {
    dest.dims.push_back(at.dims[d]);
  }
  // The values broadcast to the indexed shape from the right.
  Index vat;
  const std::size_t voff = s.indexed.size() - s.values_sizes.size();
  for (std::size_t d = 0; d < s.values_sizes.size(); ++d) {
    vat.dims.push_back(s.values_sizes[d] == 1 ? "0" : at.dims[voff + d]);
  }
  auto v = em.value(s.values, vat);
  if (!v) return v.error();
  if (s.accumulate) {
    auto off = em.offset(s.node, dest);
    if (!off) return off.error();
    em.line(atomic_add(n.meta->dtype, em.param_name(s.node), "(" + *off + ")", *v));
    return std::nullopt;
  }
  auto st = store_statement(em, s.node, dest, *v);
  if (!st) return st.error();
  em.line(*st);
  return std::nullopt;
}

}  // namespace fxscope::codegen
