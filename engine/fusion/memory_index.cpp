// Addresses as sums of iteration digits, and how each ATen op maps its output's coordinates to
// its inputs' (the index functions of Inductor's lowerings: permute, select, slice, expand,
// reshape, cat, constant_pad_nd, the pointwise broadcast).

#include "fxscope/fusion/memory_index.h"

#include "memory_digits.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string_view>

#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/ops/adaptive_pool.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {

using detail::broadcast_from;
using detail::constant;
using detail::is_int;
using detail::opaque_coords;
using detail::opaque_expr;
using detail::wrap_dim;

namespace {

using graph::Argument;
using graph::NodeId;

IndexExpr digit(std::int64_t place, std::int64_t radix) {
  IndexExpr e;
  if (radix > 1) e.terms.push_back({place, radix, 1});
  return e;
}

void add_scaled(IndexExpr& into, const IndexExpr& e, std::int64_t m) {
  if (e.opaque) {
    // Opaque parts of different indirect loads make an address no other equals.
    into.tag = into.opaque && into.tag != e.tag ? 0 : e.tag;
    into.opaque = true;
  }
  into.offset += e.offset * m;
  if (m == 0) return;
  for (IndexTerm t : e.terms) {
    t.mult *= m;
    into.terms.push_back(t);
  }
}

// Terms of the same digit summed, digits that add nothing dropped, innermost first.
void normalize(IndexExpr& e) {
  std::sort(e.terms.begin(), e.terms.end(), [](const IndexTerm& a, const IndexTerm& b) {
    return a.place != b.place ? a.place < b.place : a.radix < b.radix;
  });
  std::vector<IndexTerm> out;
  for (const IndexTerm& t : e.terms) {
    if (!out.empty() && out.back().place == t.place && out.back().radix == t.radix) {
      out.back().mult += t.mult;
    } else {
      out.push_back(t);
    }
  }
  std::erase_if(out, [](const IndexTerm& t) { return t.mult == 0 || t.radix <= 1; });
  e.terms = std::move(out);
}

std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> strides(sizes.size(), 1);
  for (std::size_t k = sizes.size(); k-- > 1;) strides[k - 1] = strides[k] * sizes[k];
  return strides;
}

std::int64_t product(const std::vector<std::int64_t>& sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), std::int64_t{1}, std::multiplies<>());
}

// (E / s) % r of a sum of digits E without offset, when the digits line up with s and r
// (splitting a digit the cut falls inside); opaque otherwise.
IndexExpr extract(const IndexExpr& e, std::int64_t s, std::int64_t r) {
  if (e.opaque || s <= 0 || r <= 0) return opaque_expr();
  std::int64_t low_max = 0;
  std::vector<IndexTerm> high;
  for (const IndexTerm& t : e.terms) {
    if (t.mult < 0) return opaque_expr();
    if (t.mult >= s) {
      high.push_back(t);
      continue;
    }
    if (t.mult * t.radix <= s) {
      low_max += (t.radix - 1) * t.mult;
      continue;
    }
    if (s % t.mult != 0 || t.radix % (s / t.mult) != 0) return opaque_expr();
    const std::int64_t k = s / t.mult;
    low_max += (k - 1) * t.mult;
    high.push_back({t.place * k, t.radix / k, s});
  }
  if (low_max >= s) return opaque_expr();
  IndexExpr out;
  std::int64_t kept_max = 0;
  for (const IndexTerm& t : high) {
    if (t.mult % s != 0) return opaque_expr();
    const std::int64_t q = t.mult / s;
    if (q % r == 0) continue;
    if (q > r) return opaque_expr();
    if (q * t.radix <= r) {
      out.terms.push_back({t.place, t.radix, q});
      kept_max += (t.radix - 1) * q;
      continue;
    }
    if (r % q != 0 || t.radix % (r / q) != 0) return opaque_expr();
    const std::int64_t k = r / q;
    out.terms.push_back({t.place, k, q});
    kept_max += (k - 1) * q;
  }
  if (kept_max >= r) return opaque_expr();
  return out;
}

}  // namespace

namespace detail {

// The digits of an iteration of NUMEL as TERMS leave them: gaps filled with digits the address
// does not use, sorted outermost first, adjacent digits that step as one merged.
std::vector<IndexTerm> canonical(std::vector<IndexTerm> terms, std::int64_t numel) {
  std::sort(terms.begin(), terms.end(), [](const IndexTerm& a, const IndexTerm& b) {
    return a.place != b.place ? a.place < b.place : a.radix < b.radix;
  });
  std::vector<IndexTerm> filled;
  std::int64_t cur = 1;
  for (const IndexTerm& t : terms) {
    if (t.place > cur && t.place % cur == 0) filled.push_back({cur, t.place / cur, 0});
    filled.push_back(t);
    cur = std::max(cur, t.place * t.radix);
  }
  if (numel > cur && numel % cur == 0) filled.push_back({cur, numel / cur, 0});
  std::vector<IndexTerm> merged;  // innermost first
  for (const IndexTerm& t : filled) {
    if (t.radix <= 1) continue;
    if (!merged.empty()) {
      IndexTerm& in = merged.back();
      if (t.place == in.place * in.radix && t.mult == in.mult * in.radix) {
        in.radix *= t.radix;
        continue;
      }
    }
    merged.push_back(t);
  }
  std::reverse(merged.begin(), merged.end());
  return merged;
}

}  // namespace detail

Coords iteration_coords(const std::vector<std::int64_t>& sizes) {
  Coords out;
  std::int64_t place = 1;
  out.resize(sizes.size());
  for (std::size_t k = sizes.size(); k-- > 0;) {
    out[k] = digit(place, sizes[k]);
    place *= std::max<std::int64_t>(sizes[k], 1);
  }
  return out;
}

Coords reduction_coords(const std::vector<std::int64_t>& sizes,
                        const std::vector<std::int64_t>& reduced) {
  std::vector<std::size_t> order;
  const auto is_reduced = [&](std::size_t d) {
    return std::find(reduced.begin(), reduced.end(), static_cast<std::int64_t>(d)) != reduced.end();
  };
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (!is_reduced(d)) order.push_back(d);
  }
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (is_reduced(d)) order.push_back(d);
  }
  Coords out(sizes.size());
  std::int64_t place = 1;
  for (std::size_t k = order.size(); k-- > 0;) {
    out[order[k]] = digit(place, sizes[order[k]]);
    place *= std::max<std::int64_t>(sizes[order[k]], 1);
  }
  return out;
}

MemoryDep make_dep(std::int64_t buffer, const Coords& coords,
                   const std::vector<std::int64_t>& strides, std::int64_t iter_numel,
                   std::int64_t element_bytes) {
  MemoryDep dep;
  dep.buffer = buffer;
  IndexExpr address;
  if (coords.size() != strides.size()) address.opaque = true;
  for (std::size_t k = 0; k < coords.size() && k < strides.size(); ++k) {
    add_scaled(address, coords[k], strides[k]);
  }
  normalize(address);
  dep.opaque = address.opaque;
  dep.tag = address.opaque ? address.tag : 0;
  dep.offset = address.offset;
  dep.terms = detail::canonical(std::move(address.terms), iter_numel);
  std::int64_t covered = 1;
  for (const IndexTerm& t : dep.terms) covered *= t.mult != 0 ? t.radix : 1;
  dep.bytes = (dep.opaque ? iter_numel : covered) * element_bytes;
  return dep;
}

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  return a - floor_div(a, b) * b;
}

// One block of a reshape whose sizes have equal products: the coordinates flattened, then cut
// into the input's digits.
Coords reshape_block(const Coords& out, const std::vector<std::int64_t>& out_sizes,
                     const std::vector<std::int64_t>& in_sizes) {
  IndexExpr flat;
  const std::vector<std::int64_t> out_strides = contiguous_strides(out_sizes);
  for (std::size_t k = 0; k < out.size(); ++k) add_scaled(flat, out[k], out_strides[k]);
  normalize(flat);
  if (flat.opaque) return opaque_coords(in_sizes.size(), flat.tag);
  const std::vector<std::int64_t> in_strides = contiguous_strides(in_sizes);
  IndexExpr digits = flat;
  digits.offset = 0;
  Coords in;
  for (std::size_t j = 0; j < in_sizes.size(); ++j) {
    // The outermost dim of the block is FloorDiv(flat, stride): unbounded, so a masked load
    // reaching past the block (a cat's piece) keeps an address. Each inner dim is
    // ModularIndexing(flat, stride, size), which drops a constant part that is a multiple of
    // stride x size: a slice's start of a whole number of rows (the rotated half of a rotary
    // embedding) reads the same element as the unsliced value.
    const std::int64_t size = std::max<std::int64_t>(in_sizes[j], 1);
    IndexExpr c = extract(digits, in_strides[j],
                          j == 0 ? std::numeric_limits<std::int64_t>::max() / 2 : size);
    const std::int64_t o =
        j == 0 ? floor_div(flat.offset, in_strides[j])
               : floor_div(floor_mod(flat.offset, in_strides[j] * size), in_strides[j]);
    std::int64_t max = o;
    for (const IndexTerm& t : c.terms) max += (t.radix - 1) * t.mult;
    // A constant part that carries out of an inner dim is not one ModularIndexing: opaque.
    if (max >= in_sizes[j]) c.opaque = true;
    c.offset = o;
    in.push_back(std::move(c));
  }
  return in;
}

}  // namespace

Coords reshape_coords(const Coords& out, const std::vector<std::int64_t>& out_sizes,
                      const std::vector<std::int64_t>& in_sizes) {
  if (out_sizes == in_sizes) return out;
  if (product(out_sizes) != product(in_sizes) || out.size() != out_sizes.size()) {
    return opaque_coords(in_sizes.size());
  }
  // View._dynamic_reshape_indexer: the sizes are matched in blocks of equal products, a dim of
  // size 1 on either side is its own block (the input's at coordinate 0), and a dim the same on
  // both sides passes its coordinate through. Only a block that merges or cuts dims indexes
  // through FloorDiv and ModularIndexing, so a coordinate reaching past its dim (a masked load
  // of a cat's piece) stays within its block.
  Coords in(in_sizes.size());
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < out_sizes.size() || j < in_sizes.size()) {
    if (i < out_sizes.size() && out_sizes[i] == 1) {
      ++i;
      continue;
    }
    if (j < in_sizes.size() && in_sizes[j] == 1) {
      in[j++] = constant(0);
      continue;
    }
    if (i == out_sizes.size() || j == in_sizes.size()) return opaque_coords(in_sizes.size());
    const std::size_t i0 = i;
    const std::size_t j0 = j;
    std::int64_t po = out_sizes[i++];
    std::int64_t pi = in_sizes[j++];
    while (po != pi) {
      if (po < pi) {
        if (i == out_sizes.size()) return opaque_coords(in_sizes.size());
        po *= out_sizes[i++];
      } else {
        if (j == in_sizes.size()) return opaque_coords(in_sizes.size());
        pi *= in_sizes[j++];
      }
    }
    const auto di0 = static_cast<std::ptrdiff_t>(i0);
    const auto di = static_cast<std::ptrdiff_t>(i);
    const auto dj0 = static_cast<std::ptrdiff_t>(j0);
    const auto dj = static_cast<std::ptrdiff_t>(j);
    if (i == i0 + 1 && j == j0 + 1) {
      in[j0] = out[i0];
      continue;
    }
    const Coords block = reshape_block(Coords(out.begin() + di0, out.begin() + di),
                                       {out_sizes.begin() + di0, out_sizes.begin() + di},
                                       {in_sizes.begin() + dj0, in_sizes.begin() + dj});
    std::copy(block.begin(), block.end(), in.begin() + dj0);
  }
  return in;
}

IndexModel::IndexModel(const graph::Graph& graph, const ops::SymbolHints& hints)
    : g_(graph), hints_(hints), users_(graph.users()) {
  sizes_.resize(graph.size());
  for (NodeId n = 0; n < graph.size(); ++n) {
    const graph::Node* meta_node = &graph.node(n);
    if (!meta_node->meta) {
      // A tuple's value: its first element's, as its first getitem records it.
      for (const NodeId u : users_[n]) {
        if (graph.node(u).meta) {
          meta_node = &graph.node(u);
          break;
        }
      }
    }
    if (!meta_node->meta || meta_node->meta->is_sym_scalar()) continue;
    for (const graph::Dim& d : meta_node->meta->sizes) {
      sizes_[n].push_back(ops::eval_dim(d, hints));
    }
  }
}

std::vector<std::int64_t> IndexModel::strides(NodeId n) const {
  const graph::Node& node = g_.node(n);
  if (node.meta && node.meta->strides.size() == sizes_[n].size() && !sizes_[n].empty()) {
    std::vector<std::int64_t> out;
    for (const graph::Dim& d : node.meta->strides) out.push_back(ops::eval_dim(d, hints_));
    return out;
  }
  return contiguous_strides(sizes_[n]);
}

std::int64_t IndexModel::element_bytes(NodeId n) const {
  const graph::Node& node = g_.node(n);
  return node.meta ? ops::dtype_bytes(node.meta->dtype) : 4;
}

std::int64_t IndexModel::numel(NodeId n) const {
  return product(sizes_[n]);
}

std::optional<std::int64_t> IndexModel::int_arg(NodeId n, std::size_t pos) const {
  const graph::Node& node = g_.node(n);
  if (node.args.size() <= pos || !is_int(node.args[pos])) return std::nullopt;
  return node.args[pos].as_int();
}

std::optional<NodeId> IndexModel::node_arg(NodeId n, std::size_t pos) const {
  const graph::Node& node = g_.node(n);
  if (node.args.size() <= pos || !node.args[pos].is_node()) return std::nullopt;
  return node.args[pos].as_node();
}

std::optional<std::vector<std::int64_t>> IndexModel::reduced_dims(NodeId n) const {
  static const std::string_view kPlain[] = {"sum",    "mean", "amax", "amin",     "prod",
                                            "any",    "all",  "max",  "min",      "argmax",
                                            "argmin", "var",  "std",  "var_mean", "logsumexp"};
  const graph::Node& node = g_.node(n);
  const std::string_view base = ops::op_base_name(node.target);
  if (std::find(std::begin(kPlain), std::end(kPlain), base) == std::end(kPlain)) {
    return std::nullopt;
  }
  const std::optional<NodeId> in = node_arg(n, 0);
  if (!in) return std::nullopt;
  const std::size_t rank = sizes_[*in].size();
  std::vector<std::int64_t> dims;
  const graph::Argument* d = node.args.size() > 1 ? &node.args[1] : nullptr;
  for (const auto& [name, value] : node.kwargs) {
    if (name == "dim") d = &value;
  }
  if (d != nullptr && is_int(*d)) dims.push_back(wrap_dim(d->as_int(), rank));
  if (d != nullptr) {
    for (const graph::Argument& item : d->items()) {
      if (is_int(item)) dims.push_back(wrap_dim(item.as_int(), rank));
    }
  }
  if (dims.empty()) {
    for (std::size_t k = 0; k < rank; ++k) dims.push_back(static_cast<std::int64_t>(k));
  }
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

std::vector<ValueLoad> IndexModel::loads(NodeId n, const Coords& out) const {
  const graph::Node& node = g_.node(n);
  const ops::OpInfo info = ops::classify(node.target);
  const std::string_view base = ops::op_base_name(node.target);
  if (info.lowering == ops::Lowering::getitem) return getitem_loads(n, out);
  if (info.lowering == ops::Lowering::view) return view_loads(n, out);
  if (ops::adaptive_pool_is_clone(g_, n, hints_)) {
    const std::optional<NodeId> in = node_arg(n, 0);
    return in ? std::vector<ValueLoad>{{*in, out}} : std::vector<ValueLoad>{};
  }
  if (ops::reduces(info.lowering) && reduced_dims(n)) return unrolled_loads(n, out);
  if (info.op_class == ops::OpClass::injective) return injective_loads(n, out);
  static const std::string_view kNoLoads[] = {"full_like",  "zeros_like", "ones_like",
                                              "empty_like", "rand_like",  "randn_like"};
  if (std::find(std::begin(kNoLoads), std::end(kNoLoads), base) != std::end(kNoLoads)) return {};
  if (info.lowering == ops::Lowering::pointwise &&
      (info.op_class == ops::OpClass::pointwise || info.op_class == ops::OpClass::broadcast)) {
    return broadcast_loads(n, out);
  }
  return opaque_loads(n);
}

std::vector<ValueLoad> IndexModel::opaque_loads(NodeId n) const {
  std::vector<ValueLoad> out;
  for (const NodeId a : g_.inputs(n)) {
    if (!sizes_[a].empty() || (g_.node(a).meta && !g_.node(a).meta->is_sym_scalar())) {
      out.push_back({a, opaque_coords(sizes_[a].size(), n + 1)});
    }
  }
  return out;
}

std::vector<ValueLoad> IndexModel::broadcast_loads(NodeId n, const Coords& out) const {
  const graph::Node& node = g_.node(n);
  std::vector<ValueLoad> loads;
  std::vector<NodeId> tensors;
  const bool copy_into = ops::op_base_name(node.target).starts_with("copy");
  for (std::size_t pos = 0; pos < node.args.size(); ++pos) {
    if (copy_into && pos == 0) continue;  // copy_(dst, src) loads only src
    node.args[pos].for_each_node([&](NodeId a) { tensors.push_back(a); });
  }
  for (const auto& [name, value] : node.kwargs) {
    value.for_each_node([&](NodeId a) { tensors.push_back(a); });
  }
  for (const NodeId a : tensors) {
    const graph::Node& in = g_.node(a);
    if (!in.meta || in.meta->is_sym_scalar()) continue;  // a scalar argument of the kernel
    const std::optional<Coords> c = broadcast_from(out, sizes_[n], sizes_[a]);
    loads.push_back({a, c ? *c : opaque_coords(sizes_[a].size())});
  }
  return loads;
}

std::vector<ValueLoad> IndexModel::view_loads(NodeId n, const Coords& out) const {
  const graph::Node& node = g_.node(n);
  const std::optional<NodeId> in = node_arg(n, 0);
  if (!in) return {};
  const std::vector<std::int64_t>& in_sizes = sizes_[*in];
  const std::size_t rank = in_sizes.size();
  const std::string_view base = ops::op_base_name(node.target);
  const auto load = [&](Coords c) { return std::vector<ValueLoad>{{*in, std::move(c)}}; };
  if (out.size() != sizes_[n].size()) return load(opaque_coords(rank));
  if (base == "permute" && node.args.size() > 1 && node.args[1].items().size() == rank) {
    Coords c(rank);
    const auto& dims = node.args[1].items();
    for (std::size_t k = 0; k < rank; ++k) {
      if (!is_int(dims[k])) return load(opaque_coords(rank));
      const std::int64_t d = wrap_dim(dims[k].as_int(), rank);
      if (d < 0 || d >= static_cast<std::int64_t>(rank)) return load(opaque_coords(rank));
      c[static_cast<std::size_t>(d)] = out[k];
    }
    return load(std::move(c));
  }
  if (base == "transpose" || base == "t") {
    Coords c = out;
    if (rank < 2) return load(std::move(c));
    const std::int64_t d0 = base == "t" ? 0 : wrap_dim(int_arg(n, 1).value_or(0), rank);
    const std::int64_t d1 = base == "t" ? 1 : wrap_dim(int_arg(n, 2).value_or(1), rank);
    if (d0 < 0 || d1 < 0 || d0 >= static_cast<std::int64_t>(rank) ||
        d1 >= static_cast<std::int64_t>(rank)) {
      return load(opaque_coords(rank));
    }
    std::swap(c[static_cast<std::size_t>(d0)], c[static_cast<std::size_t>(d1)]);
    return load(std::move(c));
  }
  if (base == "expand" || base == "expand_as") {
    const std::optional<Coords> c = broadcast_from(out, sizes_[n], in_sizes);
    return load(c ? *c : opaque_coords(rank));
  }
  if (base == "select") {
    const std::optional<std::int64_t> dim = int_arg(n, 1);
    const std::optional<std::int64_t> index = int_arg(n, 2);
    if (!dim || !index || rank == 0) return load(opaque_coords(rank));
    const auto d = static_cast<std::size_t>(wrap_dim(*dim, rank));
    if (d >= rank) return load(opaque_coords(rank));
    Coords c = out;
    const std::int64_t i = *index < 0 ? *index + in_sizes[d] : *index;
    c.insert(c.begin() + static_cast<std::ptrdiff_t>(d), constant(i));
    return load(std::move(c));
  }
  if (base == "slice") {
    const std::int64_t dim = wrap_dim(int_arg(n, 1).value_or(0), rank);
    if (dim < 0 || dim >= static_cast<std::int64_t>(rank) || rank != out.size()) {
      return load(opaque_coords(rank));
    }
    const auto d = static_cast<std::size_t>(dim);
    std::int64_t start = 0;
    if (node.args.size() > 2 && !node.args[2].is_none()) {
      if (!is_int(node.args[2])) return load(opaque_coords(rank));
      start = node.args[2].as_int();
      if (start < 0) start += in_sizes[d];
      start = std::clamp<std::int64_t>(start, 0, in_sizes[d]);
    }
    const std::int64_t step = int_arg(n, 4).value_or(1);
    Coords c = out;
    IndexExpr e = constant(start);
    add_scaled(e, out[d], step);
    c[d] = std::move(e);
    return load(std::move(c));
  }
  if (base == "alias" || base == "detach" || base == "lift_fresh") return load(out);
  if (base == "view" || base == "reshape" || base == "_unsafe_view" || base == "view_as" ||
      base == "squeeze" || base == "unsqueeze" || base == "flatten") {
    const graph::Node& in_node = g_.node(*in);
    const graph::Node& out_node = g_.node(n);
    if (in_node.meta && out_node.meta && in_node.meta->dtype != out_node.meta->dtype) {
      return load(opaque_coords(rank));  // a view as another dtype
    }
    return load(reshape_coords(out, sizes_[n], in_sizes));
  }
  return load(opaque_coords(rank));
}

std::vector<ValueLoad> IndexModel::injective_loads(NodeId n, const Coords& out) const {
  const graph::Node& node = g_.node(n);
  const std::string_view base = ops::op_base_name(node.target);
  const std::size_t rank = out.size();
  if (rank != sizes_[n].size()) return opaque_loads(n);
  if (base == "cat" && !node.args.empty()) {
    const std::int64_t dim = wrap_dim(int_arg(n, 1).value_or(0), rank);
    if (dim < 0 || dim >= static_cast<std::int64_t>(rank)) return opaque_loads(n);
    std::vector<ValueLoad> loads;
    std::int64_t at = 0;
    for (const Argument& a : node.args[0].items()) {
      if (!a.is_node()) continue;
      const NodeId piece = a.as_node();
      if (sizes_[piece].size() != rank) continue;  // an empty piece of another rank
      // A masked load of the piece at the cat's coordinate less the piece's start.
      Coords c = out;
      c[static_cast<std::size_t>(dim)].offset -= at;
      at += sizes_[piece][static_cast<std::size_t>(dim)];
      loads.push_back({piece, std::move(c)});
    }
    return loads;
  }
  if (base == "constant_pad_nd") {
    const std::optional<NodeId> in = node_arg(n, 0);
    if (!in || node.args.size() < 2) return opaque_loads(n);
    Coords c = out;
    const auto& pad = node.args[1].items();
    for (std::size_t i = 0; 2 * i < pad.size() && i < rank; ++i) {
      if (!is_int(pad[2 * i])) return opaque_loads(n);
      c[rank - 1 - i].offset -= pad[2 * i].as_int();
    }
    return {{*in, std::move(c)}};
  }
  if (base == "select_scatter" || base == "slice_scatter") {
    const std::optional<NodeId> self = node_arg(n, 0);
    const std::optional<NodeId> src = node_arg(n, 1);
    if (!self || !src) return opaque_loads(n);
    const std::int64_t dim = wrap_dim(int_arg(n, 2).value_or(0), rank);
    if (dim < 0 || dim >= static_cast<std::int64_t>(rank)) return opaque_loads(n);
    Coords c = out;
    if (base == "select_scatter") {
      c.erase(c.begin() + dim);
    } else {
      std::int64_t start = 0;
      if (node.args.size() > 3 && is_int(node.args[3])) start = node.args[3].as_int();
      if (start < 0) start += sizes_[n][static_cast<std::size_t>(dim)];
      const std::int64_t step = int_arg(n, 5).value_or(1);
      IndexExpr& at = c[static_cast<std::size_t>(dim)];
      if (step != 1) {
        // lowering.slice_scatter loads src at FloorDiv(idx - start, step) where the mask holds
        // (idx = start + k * step): with start below the step that is idx's digits above the
        // step, when they line up with it; elsewhere the load is masked off.
        const std::int64_t src_size =
            sizes_[*src].size() == rank ? sizes_[*src][static_cast<std::size_t>(dim)] : 0;
        if (at.opaque || at.offset != 0 || start < 0 || start >= step || src_size <= 0) {
          c = opaque_coords(sizes_[*src].size());
        } else {
          at = extract(at, step, src_size);
        }
      } else {
        c[static_cast<std::size_t>(dim)].offset -= start;
      }
    }
    return {{*self, out}, {*src, std::move(c)}};
  }
  // Indirect loads: the indices at the output's coordinates, the data at addresses they hold.
  const auto indirect = [&](std::size_t data_pos, std::size_t index_pos, Coords index_coords) {
    std::vector<ValueLoad> loads;
    if (const std::optional<NodeId> idx = node_arg(n, index_pos)) {
      loads.push_back({*idx, std::move(index_coords)});
    }
    if (const std::optional<NodeId> data = node_arg(n, data_pos)) {
      loads.push_back({*data, opaque_coords(sizes_[*data].size(), n + 1)});
    }
    return loads;
  };
  if (base == "embedding" && rank >= 1) {
    return indirect(0, 1, Coords(out.begin(), out.end() - 1));
  }
  if (base == "gather") return indirect(0, 2, out);
  if ((base == "index" || base == "_unsafe_index") && node.args.size() > 1 &&
      node.args[1].items().size() == 1 && node.args[1].items().front().is_node()) {
    // One index tensor on the leading dim (lowering.index_impl): it is loaded at the output's
    // leading coordinates, the data at the address it holds and the remaining coordinates.
    const NodeId idx = node.args[1].items().front().as_node();
    const std::optional<NodeId> data = node_arg(n, 0);
    const std::size_t idx_rank = sizes_[idx].size();
    if (data && idx_rank >= 1 && idx_rank <= rank && sizes_[*data].size() == rank - idx_rank + 1) {
      Coords c{opaque_expr(static_cast<std::int64_t>(n) + 1)};
      c.insert(c.end(), out.begin() + static_cast<std::ptrdiff_t>(idx_rank), out.end());
      return {{idx, Coords(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(idx_rank))},
              {*data, std::move(c)}};
    }
  }
  if ((base == "index" || base == "_unsafe_index") && node.args.size() > 1) {
    // Index tensors on adjacent dims, None elsewhere (lowering.index_impl_helper): they are
    // broadcast together and take those dims' place in the output; each is loaded at the
    // broadcast coordinates its own dims cover (none along a dim of size 1), the data at the
    // addresses they hold. An upsampling gathers a row index along the rows and a column index
    // along the columns.
    const auto& items = node.args[1].items();
    std::vector<NodeId> indices;
    std::size_t first = items.size();
    bool adjacent = true;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_node()) {
        if (items[i].kind() != graph::Argument::Kind::none) return opaque_loads(n);
        continue;
      }
      if (first == items.size()) first = i;
      adjacent = adjacent && i == first + indices.size();
      indices.push_back(items[i].as_node());
    }
    const std::optional<NodeId> data = node_arg(n, 0);
    std::size_t broadcast = 0;
    for (const NodeId idx : indices) broadcast = std::max(broadcast, sizes_[idx].size());
    if (!data || indices.empty() || !adjacent ||
        sizes_[*data].size() + broadcast != rank + indices.size()) {
      return opaque_loads(n);
    }
    std::vector<ValueLoad> loads;
    for (const NodeId idx : indices) {
      const std::vector<std::int64_t>& idx_sizes = sizes_[idx];
      Coords c;
      for (std::size_t j = 0; j < idx_sizes.size(); ++j) {
        const std::size_t dim = first + broadcast - idx_sizes.size() + j;
        c.push_back(idx_sizes[j] == 1 ? IndexExpr{} : out[dim]);
      }
      loads.push_back({idx, std::move(c)});
    }
    loads.push_back({*data, opaque_coords(sizes_[*data].size(), n + 1)});
    return loads;
  }
  if (base == "index_select") {
    const std::int64_t dim = wrap_dim(int_arg(n, 1).value_or(0), rank);
    if (dim < 0 || dim >= static_cast<std::int64_t>(rank)) return opaque_loads(n);
    return indirect(0, 2, Coords{out[static_cast<std::size_t>(dim)]});
  }
  return opaque_loads(n);
}

}  // namespace fxscope::fusion
