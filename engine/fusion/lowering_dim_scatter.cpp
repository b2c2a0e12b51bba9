// scatter and scatter_add as Inductor lowers them (lowering.scatter, scatter_, scatter_add,
// scatter_add_, scatter_reduce_): an ir.Scatter over the index's iteration space, its source
// inlined into it, storing into its realized destination through the loaded index.

#include <algorithm>
#include <string_view>

#include "lowerer.h"

namespace fxscope::fusion::detail {

namespace {

// utils.needs_fallback_due_to_atomic_add_limitations: tl.atomic_add has none of these.
bool no_atomic_add(const graph::Node& node) {
  return node.meta &&
         (node.meta->dtype == "i64" || node.meta->dtype == "b8" || node.meta->dtype == "bf16");
}

}  // namespace

bool Lowerer::lower_dim_scatter(NodeId i, const std::vector<NodeId>& gathered) {
  const graph::Node& node = g_.node(i);
  const std::string_view base = ops::op_base_name(node.target);
  const bool add = base == "scatter_add" || base == "scatter_add_";
  if ((base != "scatter" && base != "scatter_" && !add) || node.args.size() < 4 ||
      !node.args[0].is_node() || !node.args[2].is_node()) {
    return false;
  }
  bool reduce_add = add;
  for (const auto& [name, value] : node.kwargs) {
    if (name != "reduce" || value.is_none()) continue;
    // scatter_fallback (use_scatter_fallback): a reduction other than add falls back.
    if (value.text() != "add") return false;
    reduce_add = true;
  }
  const NodeId self = node.args[0].as_node();
  const NodeId index = node.args[2].as_node();
  const std::optional<NodeId> src =
      node.args[3].is_node() ? std::optional<NodeId>(node.args[3].as_node()) : std::nullopt;
  // use_scatter_fallback: a tensor source tl.atomic_add cannot store (even without a
  // reduction), or an add into an int64 or bool destination, runs the library's scatter.
  if ((src && no_atomic_add(g_.node(*src))) ||
      (reduce_add && g_.node(self).meta &&
       (g_.node(self).meta->dtype == "i64" || g_.node(self).meta->dtype == "b8"))) {
    return false;
  }
  // scatter_ and scatter_add_ store into their destination; the functional forms into
  // clone(x), a Pointwise made (and stored) while they are lowered, so with their origins.
  std::int64_t dest_buffer = -1;
  if (base == "scatter_" || base == "scatter_add_") {
    realize(self);
    dest_buffer = static_cast<std::int64_t>(alias_[storage(self)]);
    loadless_[alias_[storage(self)]] = false;
  } else {
    dest_buffer = next_buffer_++;
    push(self, gathered, read_set(self), dest_buffer, numel_of(self), 1, false, true, "");
    set_value_deps(self);
  }
  // The Scatter over the index's sizes: the source loaded where the index is (inlined), the
  // index loaded, each value stored at an address held in a temporary that no load matches.
  std::vector<std::int64_t> reads = read_set(index);
  if (src) add_reads(*src, reads);
  reads.push_back(dest_buffer);
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  const std::int64_t numel = numel_of(index);
  push(i, gathered, reads, i, numel, 1, false, true, "");
  SchedulerNode& s = sched_.back();
  const std::vector<std::int64_t>& sizes = model_.sizes(index);
  std::vector<ValueLoad> loads;
  if (!sizes.empty()) {
    loads.push_back({index, iteration_coords(sizes)});
  }
  const bool src_walked = src && !sizes.empty() && model_.sizes(*src) == sizes;
  if (src_walked) loads.push_back({*src, iteration_coords(sizes)});
  s.read_deps = walk_deps(std::move(loads), numel, reads, false);
  if (src && !src_walked) {
    // A source larger than the index is read at the index's positions: not modelled.
    for (const std::int64_t b : read_set(*src)) s.read_deps.push_back(opaque_dep(b));
  }
  s.read_deps.push_back(opaque_dep(dest_buffer));
  s.write_dep = opaque_dep(i);
  realized_[i] = true;
  layout_fixed_[i] = true;
  return true;
}

}  // namespace fxscope::fusion::detail
