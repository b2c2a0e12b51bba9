// The layouts of Inductor's lowering (torch/_inductor/graph.py run_node, ir.py's
// FlexibleLayout and ExternKernel.require_stride_order): which values are stored channels-last,
// and the copies a library call or a fixed-layout user makes of an input in another layout.

#include <algorithm>
#include <iterator>
#include <numeric>
#include <optional>
#include <string_view>

#include "fill_order.h"
#include "fxscope/fusion/layout_opt.h"
#include "fxscope/fusion/lowering.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/ops/adaptive_pool.h"
#include "fxscope/ops/op_cost.h"
#include "lowerer.h"

namespace fxscope::fusion {
namespace detail {

using ops::Lowering;

bool Lowerer::channels_last(NodeId i, const std::vector<NodeId>& args) const {
  const graph::Node& node = g_.node(i);
  if (!node.meta || node.meta->rank() != 4) return false;
  if (recorded_channels_last(node)) return true;
  // GraphLowering.run_node requires a graph output in its recorded stride order; only
  // layout_opt's nodes_prefer_channels_last turns one channels-last against it.
  if (graph_output_[i] && !layout_opt_) return false;
  const std::string_view base = ops::op_base_name(node.target);
  if (base == "convolution") return layout_opt_;
  if (base == "permute" || base == "transpose" || base == "t") return false;
  // A scatter (lowering.index_put_, scatter_) stores into a clone of self: its layout is self's,
  // whatever the values scattered (an upsampling's backward scatters a channels-last gradient
  // into zeros).
  if ((base.starts_with("index_put") || base.starts_with("scatter")) && !args.empty()) {
    const graph::Node& self = g_.node(args.front());
    return channels_last_[args.front()] && self.meta && self.meta->rank() == 4;
  }
  return std::any_of(args.begin(), args.end(), [&](NodeId a) {
    const graph::Node& in = g_.node(a);
    return channels_last_[a] && in.meta && in.meta->rank() == 4;
  });
}

bool Lowerer::recorded_channels_last(const graph::Node& node) const {
  if (!layouts_differ(node) || node.meta->strides.size() != 4) return false;
  // An expand (an average pool's backward spreading [N, C, 1, 1] over the window) has stride 0
  // along what it broadcasts: a view of no layout, whatever its channels' stride.
  for (std::size_t d = 2; d < 4; ++d) {
    if (ops::eval_dim(node.meta->strides[d], options_.hints) == 0 &&
        ops::eval_dim(node.meta->sizes[d], options_.hints) > 1) {
      return false;
    }
  }
  return ops::eval_dim(node.meta->strides[1], options_.hints) == 1;
}

void Lowerer::add_layout_copies(const std::vector<NodeId>& args,
                                const std::vector<NodeId>& gathered) {
  if (args.size() < 2) return;
  for (const NodeId a : {args[1], args[0]}) {
    const graph::Node& node = g_.node(a);
    if (node.op != graph::OpKind::placeholder || !layouts_differ(node) ||
        recorded_channels_last(node) || channels_last_[a]) {
      continue;
    }
    // An input the graph also returns (a training forward's weight or image, saved for the
    // backward) is copied while Inductor lowers the input itself: run_node gives an output that
    // prefers channels-last those strides, so the copy's origins are the input alone (no ATen
    // node), it is made once whatever its users, and every user reads the copy.
    const bool own_copy = graph_output_[a];
    push(a, own_copy ? std::vector<NodeId>{} : gathered, {static_cast<std::int64_t>(a)},
         next_buffer_++, numel_of(a), 1, false, true, std::string(kLayoutCopyNote));
    if (own_copy) channels_last_[a] = true;
    sched_.back().read_deps = {make_dep(a, iteration_coords(model_.sizes(a)), layout_strides(a),
                                        model_.numel(a), model_.element_bytes(a))};
  }
}

void Lowerer::add_view_layout_copies(const std::vector<NodeId>& args,
                                     const std::vector<NodeId>& gathered) {
  if (args.size() < 2) return;
  for (const NodeId a : {args[0], args[1]}) {
    // A getitem of a split is one of its views; of a pooling op's tuple, the value itself.
    const std::vector<NodeId> inputs = g_.inputs(a);
    const bool view = info_[a].lowering == Lowering::view ||
                      (info_[a].lowering == Lowering::getitem && !inputs.empty() &&
                       info_[inputs.front()].lowering == Lowering::view);
    if (realized_[a] || !view || pointless_view(g_, a)) continue;
    // x.realize() stores what the view reads with its own origins; the view is then a
    // ReinterpretView of that buffer, laid out as the view says.
    realize(storage(a));
    if (realized_[a] || channels_last_[a] || !layouts_differ(g_.node(a))) continue;
    push(a, gathered, read_set(a), a, numel_of(a), 1, false, true, "");
    set_value_deps(a);
    realized_[a] = true;
    alias_[a] = a;
    layout_fixed_[a] = true;
    channels_last_[a] = true;
  }
}

std::optional<std::int64_t> Lowerer::stride_order_copy(NodeId i, NodeId a,
                                                       const std::vector<NodeId>& gathered) {
  const graph::Node& node = g_.node(a);
  const std::vector<std::int64_t>& sizes = model_.sizes(a);
  if (sizes.size() != 4) return other_rank_copy(i, a, gathered);
  if (!layouts_differ(node)) return std::nullopt;
  const std::vector<std::int64_t> strides = layout_strides(a);
  const bool channels_last = strides.size() == 4 && strides[1] == 1;
  if (channels_last == recorded_channels_last(g_.node(i))) return std::nullopt;
  std::vector<std::int64_t> reads;
  add_reads(a, reads);
  const std::int64_t buffer = next_buffer_++;
  // Alone, a copy to channels-last is the code generator's layout copy; fused, the kernel it
  // joins computes what it stores.
  push(a, gathered, reads, buffer, numel_of(a), 1, false, true,
       channels_last ? "" : std::string(kLayoutCopyNote));
  set_value_deps(a);
  const std::vector<std::int64_t> required =
      channels_last ? std::vector<std::int64_t>{sizes[1] * sizes[2] * sizes[3], sizes[2] * sizes[3],
                                                sizes[3], 1}
                    : std::vector<std::int64_t>{sizes[1] * sizes[2] * sizes[3], 1,
                                                sizes[3] * sizes[1], sizes[1]};
  sched_.back().write_dep =
      make_dep(buffer, iteration_coords(sizes), required, model_.numel(a), model_.element_bytes(a));
  return buffer;
}

std::optional<std::int64_t> Lowerer::other_rank_copy(NodeId i, NodeId a,
                                                     const std::vector<NodeId>& gathered) {
  const std::vector<std::int64_t>& sizes = model_.sizes(a);
  // An operand realized here has a flexible layout, frozen in the required order: no copy. A
  // view of a buffer has the strides the graph recorded; the copy stores the view's value.
  // (A graph input or a library result in another order would be copied too; not modelled.)
  const bool fixed = info_[a].lowering == Lowering::view;
  const std::vector<std::int64_t>& have = model_.strides(a);
  const std::vector<std::int64_t>& want = model_.strides(i);
  if (!fixed || sizes.size() < 3 || have.size() != sizes.size() || want.size() != sizes.size()) {
    return std::nullopt;
  }
  // ir.get_stride_order of each (argsort: of equal strides the later dim is the inner), over
  // the dims that are not of size 1 (FixedLayout.is_stride_ordered ignores those).
  const auto order = [&](const std::vector<std::int64_t>& strides) {
    std::vector<std::size_t> dims;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] > 1) dims.push_back(d);
    }
    std::sort(dims.begin(), dims.end(), [&](std::size_t x, std::size_t y) {
      return strides[x] != strides[y] ? strides[x] < strides[y] : x > y;
    });
    return dims;
  };
  const std::vector<std::size_t> required_order = order(want);
  if (order(have) == required_order) return std::nullopt;
  std::vector<std::int64_t> required(sizes.size(), 0);
  std::int64_t next = 1;
  for (const std::size_t d : required_order) {
    required[d] = next;
    next *= sizes[d];
  }
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) required[d] = next;
  }
  std::vector<std::int64_t> reads;
  add_reads(a, reads);
  push(a, gathered, reads, a, numel_of(a), 1, false, true, "");
  set_value_deps(a);
  sched_.back().write_dep =
      make_dep(a, iteration_coords(sizes), required, model_.numel(a), model_.element_bytes(a));
  realized_[a] = true;
  alias_[a] = a;
  layout_fixed_[a] = true;
  return a;
}

bool Lowerer::layouts_differ(const graph::Node& node) const {
  if (!node.meta || node.meta->rank() != 4) return false;
  const auto dim = [&](std::size_t d) {
    return ops::eval_dim(node.meta->sizes[d], options_.hints);
  };
  return dim(1) > 1 && dim(2) * dim(3) > 1;
}

bool Lowerer::stores_channels_last(NodeId i) const {
  const graph::Node& node = g_.node(i);
  if (!prefer_channels_last_[i] || graph_output_[i] || !node.meta || node.meta->rank() != 4) {
    return false;
  }
  for (const NodeId u : users_[i]) {
    const std::string_view op = ops::op_base_name(g_.node(u).target);
    if (op.starts_with("as_strided") || op.starts_with("resize")) return false;
  }
  const std::vector<std::int64_t>& sizes = model_.sizes(i);
  const std::vector<std::int64_t>& strides = model_.strides(i);
  return sizes.size() == 4 && strides.size() == 4 && dense(sizes, strides);
}

void Lowerer::realize_channels_last(NodeId i) {
  // ExternKernel.require_stride_order on a value not in memory: copy_input, a Pointwise of its
  // loader with the node's origins, stored in the order asked; the copy is the node's value.
  const std::vector<std::int64_t>& sizes = model_.sizes(i);
  std::vector<std::int64_t> strides = layout_strides(i);
  if (layouts_differ(g_.node(i))) {
    strides = {sizes[1] * sizes[2] * sizes[3], 1, sizes[3] * sizes[1], sizes[1]};
  }
  if (storage(i) == i) return realize(i, std::move(strides));
  // A view of a value not in memory: the copy is of the view, its storage left inlined, made
  // while the view is lowered (so with run_node's origins for it).
  push(i, run_node_origins(i), read_set(i), i, numel_of(i), 1, false, true, "");
  set_value_deps(i);
  realized_[i] = true;
  alias_[i] = i;
  layout_fixed_[i] = true;
  if (strides != layout_strides(i)) store_in_order(i, std::move(strides));
}

bool Lowerer::fixed_layout_user(NodeId i) const {
  return std::any_of(users_[i].begin(), users_[i].end(),
                     [&](NodeId u) { return needs_fixed_layout(g_.node(u).target, layout_opt_); });
}

bool Lowerer::layout_stays_flexible(NodeId i) const {
  for (const NodeId u : users_[i]) {
    if (graph_output_[u]) return false;
    const std::string_view base = ops::op_base_name(g_.node(u).target);
    if (base == "cat" || base.starts_with("index_put") || base.starts_with("as_strided")) {
      return false;
    }
    switch (info_[u].lowering) {
      case Lowering::extern_kernel:
      case Lowering::getitem:
      case Lowering::scan:
        return false;
      case Lowering::view:
        if (!layout_stays_flexible(u)) return false;
        break;
      default:
        break;
    }
  }
  return g_.node(i).is_op();
}

Lowerer::LayoutSource Lowerer::layout_source(NodeId i) const {
  if (!fill_strides_[i].empty()) return LayoutSource::filled;
  if (channels_last_[i] && model_.sizes(i).size() == 4) return LayoutSource::channels_last;
  const graph::Node& node = g_.node(i);
  if (!node.is_op() || graph_output_[i] || info_[i].lowering == Lowering::extern_kernel) {
    return LayoutSource::recorded;
  }
  return LayoutSource::dense;
}

std::vector<std::int64_t> Lowerer::layout_strides(NodeId i) const {
  const std::vector<std::int64_t>& sizes = model_.sizes(i);
  switch (layout_source(i)) {
    case LayoutSource::filled:
      return fill_strides_[i];
    case LayoutSource::channels_last:
      return {sizes[1] * sizes[2] * sizes[3], 1, sizes[3] * sizes[1], sizes[1]};
    case LayoutSource::recorded:
      return model_.strides(i);
    case LayoutSource::dense:
      break;
  }
  std::vector<std::int64_t> strides(sizes.size(), 1);
  for (std::size_t k = sizes.size(); k-- > 1;) strides[k - 1] = strides[k] * sizes[k];
  return strides;
}

std::vector<bool> Lowerer::lone_strides(NodeId i) const {
  const graph::Node& node = g_.node(i);
  const LayoutSource source = layout_source(i);
  if (!node.meta || source == LayoutSource::filled) return {};
  const std::vector<graph::Dim>& dims = node.meta->sizes;
  const auto symbolic = [](const graph::Dim& d) { return d.is_symbolic(); };
  if (std::none_of(dims.begin(), dims.end(), symbolic)) return {};
  const std::vector<std::int64_t> strides = layout_strides(i);
  if (strides.size() != dims.size()) return {};
  std::vector<std::optional<std::int64_t>> constants(dims.size());
  if (source == LayoutSource::recorded) {
    if (node.meta->strides.size() != dims.size()) return {};
    for (std::size_t k = 0; k < dims.size(); ++k) {
      constants[k] = ops::constant_term(node.meta->strides[k]);
    }
  } else {
    // A stride Inductor lays out is the product of the sizes inside it (channels-last: C, W
    // inside H, and C inside W); its constant term is the product of theirs.
    std::vector<std::size_t> order(dims.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    if (source == LayoutSource::channels_last) order = {0, 2, 3, 1};
    std::optional<std::int64_t> inside = 1;
    for (std::size_t k = order.size(); k-- > 0;) {
      constants[order[k]] = inside;
      const std::optional<std::int64_t> c = ops::constant_term(dims[order[k]]);
      inside = inside && c ? std::optional(*inside * *c) : std::nullopt;
    }
  }
  std::vector<bool> lone(dims.size(), false);
  bool any = false;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    lone[k] = constants[k] == 1 && strides[k] > 1;
    any = any || lone[k];
  }
  return any ? lone : std::vector<bool>{};
}

MemoryDep Lowerer::layout_dep(std::int64_t buffer, const Coords& coords, NodeId i,
                              std::int64_t iter_numel) const {
  const std::vector<std::int64_t> strides = layout_strides(i);
  MemoryDep dep = make_dep(buffer, coords, strides, iter_numel, model_.element_bytes(i));
  const std::vector<bool> lone = lone_strides(i);
  for (std::size_t k = 0; k < lone.size() && k < coords.size(); ++k) {
    if (!lone[k] || coords[k].opaque) continue;
    const auto plain = [](const IndexTerm& t) { return t.mult == 1 && t.radix > 1; };
    if (std::any_of(coords[k].terms.begin(), coords[k].terms.end(), plain)) {
      dep.lone_mults.push_back(strides[k]);
    }
  }
  return dep;
}

}  // namespace detail
}  // namespace fxscope::fusion
