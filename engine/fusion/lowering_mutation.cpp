// Mutations of buffers the graph computes (torch/_inductor/lowering.py copy_ and mutate_to,
// ir.py MutationLayoutSHOULDREMOVE.realize_into, graph.py mark_buffer_mutated, scheduler.py
// compute_dependencies): the post-grad reinplacing pass turns as_strided_scatter into
// clone -> as_strided -> copy_, whose copy_ stores into a view of the clone's buffer. The copy is
// a kernel of its own that runs after every earlier reader of the buffer and before every later
// one, and whose inputs as_strided needs in memory.

#include <algorithm>
#include <string_view>

#include "lowerer.h"

namespace fxscope::fusion::detail {

using ops::Lowering;

bool dense(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides) {
  if (sizes.size() != strides.size()) return false;
  std::vector<std::size_t> dims(sizes.size());
  for (std::size_t d = 0; d < dims.size(); ++d) dims[d] = d;
  std::stable_sort(dims.begin(), dims.end(),
                   [&](std::size_t a, std::size_t b) { return strides[a] < strides[b]; });
  std::int64_t expected = 1;
  for (const std::size_t d : dims) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

namespace {

// GraphLowering.run_node's as_strided_ops.
bool restrides_input(std::string_view base) {
  return base == "as_strided" || base == "as_strided_" || base == "as_strided_scatter" ||
         base == "resize" || base == "resize_as";
}

}  // namespace

void Lowerer::realize_for_as_strided(NodeId i) {
  const graph::Node& node = g_.node(i);
  if (!node.meta || node.meta->is_sym_scalar() || realized_[storage(i)]) return;
  if (std::none_of(users_[i].begin(), users_[i].end(), [&](NodeId u) {
        return restrides_input(ops::op_base_name(g_.node(u).target));
      })) {
    return;
  }
  const std::vector<std::int64_t>& sizes = model_.sizes(i);
  const std::vector<std::int64_t>& strides = model_.strides(i);
  if (sizes.empty() || !dense(sizes, strides)) return;
  // A view of a value not in memory stores that value (as the as_strided lowering would).
  if (storage(i) != i) return realize(i);
  realize(i, strides);
}

std::optional<std::int64_t> Lowerer::mutated_buffer(NodeId i) const {
  const std::optional<NodeId> dst = arg_node(i, 0);
  // Into a value itself (a StorageBox), mutate_to swings the value's data to the copy: no
  // mutation. Into a graph input, the input's MutationLayout (SchedulerNode::mutates).
  if (!dst || !g_.node(*dst).is_op() || info_[*dst].lowering != Lowering::view) {
    return std::nullopt;
  }
  NodeId d = *dst;
  while (!realized_[d] &&
         (info_[d].lowering == Lowering::view || info_[d].lowering == Lowering::getitem)) {
    const std::vector<NodeId> args = g_.inputs(d);
    if (args.empty()) return std::nullopt;
    d = args.front();
  }
  if (!realized_[d] || !g_.node(d).is_op() || is_sym(d)) return std::nullopt;
  return static_cast<std::int64_t>(alias_[d]);
}

void Lowerer::realize_readers_of(std::int64_t buffer, NodeId copy) {
  // name_to_users holds every value lowered so far that reads the buffer; one with no reader
  // left to lower is dead, and the scheduler drops its kernel.
  for (NodeId j = 0; j < copy; ++j) {
    if (!inlinable_[j] || realized_[j] || storage(j) != j) continue;
    const bool live =
        std::any_of(users_[j].begin(), users_[j].end(), [&](NodeId u) { return u > copy; });
    if (!live) continue;
    const std::vector<std::int64_t> reads = read_set(j);
    if (std::binary_search(reads.begin(), reads.end(), buffer)) realize(j);
  }
}

void Lowerer::mutate_buffer(NodeId i, std::int64_t buffer) {
  SchedulerNode& s = sched_.back();
  add_dep(s.read_deps, opaque_dep(buffer));
  const auto at = std::lower_bound(s.reads.begin(), s.reads.end(), buffer);
  if (at == s.reads.end() || *at != buffer) s.reads.insert(at, buffer);
  for (std::size_t k = 0; k + 1 < sched_.size(); ++k) {
    const SchedulerNode& r = sched_[k];
    if (r.buffer != buffer && std::binary_search(r.reads.begin(), r.reads.end(), buffer)) {
      s.after.push_back(r.buffer);
    }
  }
  std::sort(s.after.begin(), s.after.end());
  s.after.erase(std::unique(s.after.begin(), s.after.end()), s.after.end());
  // ComputedBuffer.make_loader loads a mutated buffer, whatever it computes.
  loadless_[static_cast<std::size_t>(buffer)] = false;
  for (NodeId x = 0; x < n_; ++x) {
    if (static_cast<std::int64_t>(alias_[x]) == buffer && realized_[x]) alias_[x] = i;
  }
}

}  // namespace fxscope::fusion::detail
