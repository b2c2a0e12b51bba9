// scatter as Inductor lowers it (lowering.scatter, scatter_, scatter_reduce_): an ir.Scatter
// over the index's iteration space, its source inlined into it, storing into a copy of its
// destination through the loaded index.

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
  // The functional scatter without a reduction: the one form the code generator writes as two
  // launches (codegen's scatter_kernel); scatter_add and the in-place forms stay library calls.
  if (base != "scatter" || node.args.size() != 4 || !node.args[0].is_node() ||
      !node.args[2].is_node()) {
    return false;
  }
  for (const auto& kw : node.kwargs) {
    if (kw.first == "reduce" && !kw.second.is_none()) return false;
  }
  const NodeId self = node.args[0].as_node();
  const NodeId index = node.args[2].as_node();
  // A tensor source, else a number (scatter.value): a constant inlined into the Scatter.
  const bool has_src = node.args[3].is_node();
  const NodeId src = has_src ? node.args[3].as_node() : index;
  // use_scatter_fallback: a tensor source tl.atomic_add cannot store (even without a
  // reduction), or an add into an int64 or bool destination, runs the library's scatter.
  if (has_src && no_atomic_add(g_.node(src))) return false;
  // The scatter stores into clone(x), a Pointwise made (and stored) while it is lowered, so
  // with its origins.
  const std::int64_t dest_buffer = next_buffer_++;
  push(self, gathered, read_set(self), dest_buffer, numel_of(self), 1, false, true, "");
  set_value_deps(self);
  // The Scatter over the index's sizes: the source loaded where the index is (inlined), the
  // index loaded, each value stored at an address held in a temporary that no load matches.
  std::vector<std::int64_t> reads = read_set(index);
  if (has_src) add_reads(src, reads);
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
  const bool src_walked = has_src && !sizes.empty() && model_.sizes(src) == sizes;
  if (src_walked) loads.push_back({src, iteration_coords(sizes)});
  s.read_deps = walk_deps(std::move(loads), numel, reads, false);
  if (has_src && !src_walked) {
    // A source larger than the index is read at the index's positions: not modelled.
    for (const std::int64_t b : read_set(src)) s.read_deps.push_back(opaque_dep(b));
  }
  close_scatter(i, dest_buffer);
  return true;
}

}  // namespace fxscope::fusion::detail
