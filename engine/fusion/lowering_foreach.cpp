// Inductor's foreach lowering (torch/_inductor/lowering.py make_foreach_pointwise,
// register_foreach_pointwise, register_foreach_inplace): a foreach op is a list of Pointwise
// values, one per position of its lists. Each is inlined into what reads it, as any Pointwise,
// unless the op's results must exist on their own; then every element is realized, and the
// buffers are registered as one list (V.graph.register_operation_list), which the scheduler makes
// a ForeachKernelSchedulerNode of (combo_kernels.cpp).

#include <algorithm>
#include <iterator>
#include <optional>

#include "fxscope/fusion/lowering_ops.h"
#include "lowerer.h"

namespace fxscope::fusion::detail {

std::vector<NodeId> Lowerer::value_inputs(NodeId i) const {
  if (foreach_op_[i] != n_) return foreach_element_inputs(g_, foreach_op_[i], foreach_index_[i]);
  const graph::Node& node = g_.node(i);
  if (info_[i].lowering == Lowering::getitem && node.args.size() > 1 && node.args[0].is_node() &&
      node.args[1].kind() == graph::Argument::Kind::integer &&
      trivial_sort(g_, node.args[0].as_node())) {
    // A one-element sort's values read its input; its indices (0) read nothing.
    if (node.args[1].as_int() != 0) return {};
    return g_.inputs(node.args[0].as_node());
  }
  return g_.inputs(i);
}

bool Lowerer::lower_foreach(NodeId f) {
  const graph::Node& node = g_.node(f);
  if (!foreach_pointwise(node.target)) return false;
  const std::size_t count = foreach_length(node);
  if (count == 0) return false;
  // The op's value is a list: its elements are the values, each held by its getitem. Marking the
  // op itself in memory stops storage() at the getitem.
  realized_[f] = true;
  // make_foreach_pointwise's realize_outputs: no users, an in-place op, or a user of a result
  // that is no foreach op (cur_node_has_non_foreach_users).
  bool realize_all = users_[f].empty() || foreach_in_place(node.target);
  for (const NodeId u : users_[f]) {
    for (const NodeId v : users_[u]) realize_all |= !foreach_pointwise(g_.node(v).target);
  }
  std::vector<std::optional<NodeId>> element(count);
  for (const NodeId u : users_[f]) {
    const graph::Node& user = g_.node(u);
    if (info_[u].lowering != Lowering::getitem || user.args.size() < 2 ||
        user.args[1].kind() != graph::Argument::Kind::integer) {
      continue;
    }
    const std::int64_t k = user.args[1].as_int();
    if (k >= 0 && static_cast<std::size_t>(k) < count) element[static_cast<std::size_t>(k)] = u;
  }
  const int list = static_cast<int>(foreach_list_sizes_.size());
  if (realize_all) foreach_list_sizes_.push_back(count);
  for (std::size_t k = 0; k < count; ++k) {
    const std::vector<NodeId> inputs = foreach_element_inputs(g_, f, k);
    // Inductor gathers no origins through list arguments (gather_origins looks at IR nodes
    // only), so an element's origins are its op; the ops inlined into it are named here too, so
    // that a kernel's nodes are the work it does. A combo kernel's header names no origins at
    // all (ForeachKernelSchedulerNode.origins is empty), so no comparison depends on them.
    std::vector<NodeId> origins{f};
    std::size_t opcount = 1;
    for (const NodeId a : inputs) {
      if (realized_[a]) continue;
      std::vector<NodeId> merged;
      std::set_union(origins.begin(), origins.end(), origins_[a].begin(), origins_[a].end(),
                     std::back_inserter(merged));
      origins.swap(merged);
      opcount += opcount_[a];
    }
    const std::size_t pushed = sched_.size();
    if (element[k]) {
      const NodeId v = *element[k];
      foreach_op_[v] = f;
      foreach_index_[v] = k;
      origins_[v] = std::move(origins);
      inlinable_[v] = true;
      opcount_[v] = opcount;
      if (realize_all) realize(v);
    } else if (realize_all && !inputs.empty()) {
      // An element no getitem takes out is computed all the same, into a buffer of its own.
      const NodeId item = inputs.front();
      const std::vector<std::int64_t>& sizes = model_.sizes(item);
      std::vector<std::int64_t> reads;
      for (const NodeId a : inputs) add_reads(a, reads);
      std::sort(reads.begin(), reads.end());
      reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
      push(f, std::move(origins), reads, next_buffer_++, model_.numel(item), 1, false, true, "");
      sched_.back().read_deps =
          walk_deps(model_.foreach_loads(f, k, sizes, iteration_coords(sizes)), model_.numel(item),
                    reads, false);
    }
    if (sched_.size() == pushed) continue;
    SchedulerNode& s = sched_.back();
    s.foreach_list = list;
    s.foreach_index = k;
    // register_foreach_inplace: mutate_to(item, result, unsafe_alias=True) stores the result
    // into a graph input (MutationLayoutSHOULDREMOVE); an intermediate buffer only swings its
    // data pointer.
    if (foreach_in_place(node.target) && !inputs.empty() && !g_.node(inputs.front()).is_op()) {
      s.mutates = inputs.front();
    }
  }
  return true;
}

}  // namespace fxscope::fusion::detail
