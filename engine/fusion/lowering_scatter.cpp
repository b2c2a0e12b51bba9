// index_put as Inductor lowers it (lowering.index_put_impl_): an ir.Scatter whose values are
// inlined into it, storing into its (realized) destination through the loaded indices.

#include <algorithm>
#include <optional>
#include <string_view>

#include "lowerer.h"

namespace fxscope::fusion::detail {

namespace {

bool byte_or_bool(const graph::Node& node) {
  return node.meta && (node.meta->dtype == "b8" || node.meta->dtype == "u8");
}

}  // namespace

void Lowerer::close_scatter(NodeId i, std::int64_t dest_buffer) {
  // The Scatter's store goes through an address held in a temporary: it reads its destination
  // as a whole and writes a buffer no load matches; the value stays in memory as it is laid out.
  SchedulerNode& s = sched_.back();
  s.read_deps.push_back(opaque_dep(dest_buffer));
  s.write_dep = opaque_dep(i);
  realized_[i] = true;
  layout_fixed_[i] = true;
}

bool Lowerer::lower_scatter(NodeId i, const std::vector<NodeId>& gathered) {
  const graph::Node& node = g_.node(i);
  const std::string_view base = ops::op_base_name(node.target);
  if ((base != "index_put" && base != "index_put_") || node.args.size() < 3 ||
      !node.args[0].is_node() || !node.args[2].is_node()) {
    return false;
  }
  const NodeId self = node.args[0].as_node();
  const NodeId values = node.args[2].as_node();
  std::vector<NodeId> indices;
  node.args[1].for_each_node([&](NodeId n) { indices.push_back(n); });
  const bool accumulate = node.args.size() > 3 &&
                          node.args[3].kind() == graph::Argument::Kind::boolean &&
                          node.args[3].as_bool();
  // Boolean indices, and atomic adds Triton has none of (int64, bool), fall back to the
  // library's index_put_ (IndexPutFallback).
  const graph::Node& dest = g_.node(self);
  const bool no_atomic = dest.meta && (dest.meta->dtype == "i64" || dest.meta->dtype == "b8");
  if (indices.empty() || (accumulate && no_atomic) ||
      std::any_of(indices.begin(), indices.end(),
                  [&](NodeId n) { return byte_or_bool(g_.node(n)); })) {
    return false;
  }
  // index_put_ realizes its destination as it is; the functional index_put scatters into
  // clone(x), a Pointwise made (and stored) while it is lowered, so with its origins.
  std::int64_t dest_buffer = -1;
  if (base == "index_put_") {
    realize(self);
    dest_buffer = static_cast<std::int64_t>(alias_[storage(self)]);
    // A mutated buffer is loaded (make_loader); a renamed one (a MutationOutput) has no flag.
    if (alias_[storage(self)] < n_) loadless_[alias_[storage(self)]] = false;
  } else {
    dest_buffer = next_buffer_++;
    push(self, gathered, read_set(self), dest_buffer, numel_of(self), 1, false, true, "");
    set_value_deps(self);
  }
  // The Scatter: the values' loader inlined, the indices loaded, each value stored (or added)
  // at an address held in a temporary, which no load of the buffer matches.
  std::vector<std::int64_t> reads = read_set(values);
  for (const NodeId n : indices) add_reads(n, reads);
  std::vector<std::int64_t> index_reads;
  for (const NodeId n : indices) add_reads(n, index_reads);
  reads.push_back(dest_buffer);
  // The Scatter iterates over the values' shape (expected_vals_size); index tensors for self's
  // leading dims, none of them None, broadcast together (check_and_broadcast_indices) and are
  // loaded at the leading coordinates, each right-aligned in the broadcast shape, its dims of
  // one element at 0 (output_indexer loads them at idx[:len(tensor_size)]): direct loads, only
  // the store's address is indirect.
  const std::vector<std::int64_t>& value_sizes = model_.sizes(values);
  const std::vector<std::int64_t>& self_sizes = model_.sizes(self);
  const bool all_tensors = node.args[1].items().size() == indices.size() &&
                           std::all_of(node.args[1].items().begin(), node.args[1].items().end(),
                                       [](const graph::Argument& a) { return a.is_node(); });
  std::vector<Coords> index_coords;
  if (all_tensors && indices.size() <= self_sizes.size()) {
    std::size_t rank = 0;
    for (const NodeId n : indices) rank = std::max(rank, model_.sizes(n).size());
    std::vector<std::int64_t> broadcast(rank, 1);
    for (const NodeId n : indices) {
      const std::vector<std::int64_t>& sizes = model_.sizes(n);
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        std::int64_t& b = broadcast[rank - sizes.size() + k];
        if (b == 1) b = sizes[k];
      }
    }
    std::vector<std::int64_t> expected = broadcast;
    expected.insert(expected.end(),
                    self_sizes.begin() + static_cast<std::ptrdiff_t>(indices.size()),
                    self_sizes.end());
    if (rank > 0 && expected == value_sizes) {
      const Coords all = iteration_coords(value_sizes);
      for (const NodeId n : indices) {
        const std::vector<std::int64_t>& sizes = model_.sizes(n);
        Coords c;
        for (std::size_t k = 0; k < sizes.size(); ++k) {
          c.push_back(sizes[k] == 1 ? IndexExpr{} : all[rank - sizes.size() + k]);
        }
        index_coords.push_back(std::move(c));
      }
    }
  }
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  const std::int64_t numel = numel_of(values);
  push(i, gathered, reads, i, numel, 1, false, true, "");
  SchedulerNode& s = sched_.back();
  const std::vector<std::int64_t>& sizes = model_.sizes(values);
  s.read_deps = sizes.empty() ? std::vector<MemoryDep>{}
                              : walk_deps({{values, iteration_coords(sizes)}}, numel,
                                          read_set(values), false);
  if (!index_coords.empty()) {
    std::vector<ValueLoad> loads;
    for (std::size_t k = 0; k < indices.size(); ++k) loads.push_back({indices[k], index_coords[k]});
    for (MemoryDep& d : walk_deps(std::move(loads), numel, index_reads, false)) {
      add_dep(s.read_deps, std::move(d));
    }
  } else {
    for (const std::int64_t b : index_reads) s.read_deps.push_back(opaque_dep(b));
  }
  close_scatter(i, dest_buffer);
  return true;
}

}  // namespace fxscope::fusion::detail
