// The index model's loads through getitems (a tuple's element: a split's piece, a sort's values),
// foreach lists and ops unrolled over their inputs (memory_index.h).

#include <algorithm>
#include <string_view>

#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/fusion/memory_index.h"
#include "fxscope/ops/op_registry.h"
#include "memory_digits.h"

namespace fxscope::fusion {

using detail::broadcast_from;
using detail::constant;
using detail::is_int;
using detail::opaque_coords;
using detail::wrap_dim;
using graph::NodeId;

std::vector<ValueLoad> IndexModel::getitem_loads(NodeId n, const Coords& out) const {
  const std::optional<NodeId> parent = node_arg(n, 0);
  const std::optional<std::int64_t> index = int_arg(n, 1);
  if (!parent) return {};
  if (!index) return {{*parent, opaque_coords(sizes_[*parent].size())}};
  const graph::Node& p = g_.node(*parent);
  if (foreach_pointwise(p.target) && *index >= 0) {
    return foreach_loads(*parent, static_cast<std::size_t>(*index), sizes_[n], out);
  }
  const std::string_view base = ops::op_base_name(p.target);
  const std::optional<NodeId> in = node_arg(*parent, 0);
  if (in && trivial_sort(g_, *parent)) {
    // A one-element sort's values are its input where they are; its indices load nothing.
    if (*index != 0) return {};
    return {{*in, out}};
  }
  if (in &&
      (base == "split" || base == "split_with_sizes" || base == "chunk" || base == "unbind")) {
    const std::vector<std::int64_t>& in_sizes = sizes_[*in];
    const std::size_t rank = in_sizes.size();
    const std::int64_t dim = wrap_dim(int_arg(*parent, base == "unbind" ? 1 : 2).value_or(0), rank);
    if (dim < 0 || dim >= static_cast<std::int64_t>(rank)) {
      return {{*in, opaque_coords(rank)}};
    }
    const auto d = static_cast<std::size_t>(dim);
    Coords c = out;
    if (base == "unbind") {
      if (c.size() + 1 != rank) return {{*in, opaque_coords(rank)}};
      c.insert(c.begin() + dim, constant(*index));
      return {{*in, std::move(c)}};
    }
    if (c.size() != rank) return {{*in, opaque_coords(rank)}};
    std::int64_t start = 0;
    if (base == "split_with_sizes") {
      const auto& pieces = p.args.size() > 1 ? p.args[1].items() : std::vector<Argument>{};
      for (std::int64_t k = 0; k < *index && k < static_cast<std::int64_t>(pieces.size()); ++k) {
        if (!is_int(pieces[static_cast<std::size_t>(k)])) return {{*in, opaque_coords(rank)}};
        start += pieces[static_cast<std::size_t>(k)].as_int();
      }
    } else {
      const std::optional<std::int64_t> arg = int_arg(*parent, 1);
      if (!arg || *arg <= 0) return {{*in, opaque_coords(rank)}};
      const std::int64_t piece = base == "chunk" ? (in_sizes[d] + *arg - 1) / *arg : *arg;
      start = piece * *index;
    }
    c[d].offset += start;
    return {{*in, std::move(c)}};
  }
  // An element of a tuple result (var_mean, max with indices, dropout): the value at the same
  // coordinates.
  return {{*parent, out}};
}

std::vector<ValueLoad> IndexModel::foreach_loads(NodeId f, std::size_t k,
                                                 const std::vector<std::int64_t>& sizes,
                                                 const Coords& out) const {
  std::vector<ValueLoad> loads;
  for (const NodeId a : foreach_element_inputs(g_, f, k)) {
    const graph::Node& in = g_.node(a);
    if (!in.meta || in.meta->is_sym_scalar()) continue;  // a scalar argument of the kernel
    const std::optional<Coords> c = broadcast_from(out, sizes, sizes_[a]);
    loads.push_back({a, c ? *c : opaque_coords(sizes_[a].size())});
  }
  return loads;
}

std::vector<ValueLoad> IndexModel::unrolled_loads(NodeId n, const Coords& out) const {
  const std::optional<NodeId> in = node_arg(n, 0);
  if (!in) return {};
  const std::vector<std::int64_t>& in_sizes = sizes_[*in];
  const std::vector<std::int64_t> dims = *reduced_dims(n);
  const std::size_t rank = in_sizes.size();
  const bool keepdim = out.size() == rank;
  std::int64_t positions = 1;
  for (const std::int64_t d : dims) positions *= in_sizes[static_cast<std::size_t>(d)];
  if (positions > 64 || (!keepdim && out.size() + dims.size() != rank)) {
    return {{*in, opaque_coords(rank)}};
  }
  // Reduction.create unrolls it: one load per position of the reduced dims.
  std::vector<ValueLoad> loads;
  for (std::int64_t p = 0; p < positions; ++p) {
    Coords c(rank);
    std::size_t kept = 0;
    std::int64_t rest = p;
    for (std::size_t k = rank; k-- > 0;) {
      const bool reduced =
          std::binary_search(dims.begin(), dims.end(), static_cast<std::int64_t>(k));
      if (reduced) {
        c[k] = constant(rest % in_sizes[k]);
        rest /= in_sizes[k];
      }
    }
    for (std::size_t k = 0; k < rank; ++k) {
      const bool reduced =
          std::binary_search(dims.begin(), dims.end(), static_cast<std::int64_t>(k));
      if (keepdim) {
        if (!reduced) c[k] = out[k];
      } else if (!reduced) {
        c[k] = out[kept++];
      }
    }
    loads.push_back({*in, std::move(c)});
  }
  return loads;
}

}  // namespace fxscope::fusion
