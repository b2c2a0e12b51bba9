// A reduction's output layout and loop order as Inductor decides them (lowerer.h,
// order_reduction_loops): ComputedBuffer.get_fill_order lays a flexible buffer out in the order
// its loads walk memory, and simplify_and_reorder runs its loops in the order its store and loads
// vote (scheduler.pick_loop_order). A layer norm's backward over a transposed gradient so stores
// its first row sum (a load of the gradient alone) transposed, in a loop of its own order: the
// input gradient reading it row-major loads it at an address its store does not match, and the
// two sums run as two kernels.

#include <algorithm>

#include "fxscope/fusion/loop_order.h"
#include "lowerer.h"

namespace fxscope::fusion::detail {

namespace {

// Whether two layouts of SIZES place every dim of more than one element alike.
bool same_layout(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& a,
                 const std::vector<std::int64_t>& b) {
  if (a.size() != sizes.size() || b.size() != sizes.size()) return false;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] > 1 && a[k] != b[k]) return false;
  }
  return true;
}

}  // namespace

void Lowerer::order_reduction_loops(NodeId i, std::int64_t buffer, std::int64_t rnumel) {
  const std::vector<std::int64_t>& sizes = model_.sizes(i);
  // A graph output's strides are required as recorded (require_stride_order), a channels-last
  // value's are decided already, and a library call or a view that freezes the buffer wants it
  // contiguous: only a buffer whose readers are all pointwise keeps a flexible layout.
  if (!g_.node(i).meta || sizes.size() < 2 || graph_output_[i] ||
      (channels_last_[i] && sizes.size() == 4)) {
    return;
  }
  for (const NodeId u : users_[i]) {
    if (!pointwise_use(u)) return;
  }
  SchedulerNode& s = sched_.back();
  std::vector<std::vector<std::int64_t>> strides;
  for (const MemoryDep& d : s.read_deps) {
    std::vector<std::int64_t> st = dep_strides(d, sizes, rnumel);
    if (!st.empty()) strides.push_back(std::move(st));
  }
  if (strides.empty()) return;
  const std::vector<std::int64_t> layout =
      fill_ordered_strides(sizes, pick_loop_order(strides, sizes));
  if (same_layout(sizes, layout, layout_strides(i))) return;
  fill_strides_[i] = layout;
  set_reduction_write(i, buffer);
  // _apply_loop_reordering: the store's address votes first, then the loads'.
  strides.insert(strides.begin(), layout);
  std::vector<std::size_t> loops = pick_loop_order(strides, sizes);
  std::reverse(loops.begin(), loops.end());
  std::vector<std::int64_t> loop_sizes;
  std::vector<std::size_t> kept;
  for (const std::size_t k : loops) {
    if (sizes[k] > 1) {
      loop_sizes.push_back(sizes[k]);
      kept.push_back(k);
    }
  }
  // Loops in the value's own order: Inductor's sizes are the value's, as every other node's.
  if (std::is_sorted(kept.begin(), kept.end())) return;
  if (rnumel > 1) loop_sizes.push_back(rnumel);
  const LoopOrder reads = loop_order_of(sizes, loops, rnumel);
  for (MemoryDep& d : s.read_deps) {
    d = reorder_loops(d, reads);
    d.loops = loop_sizes;
  }
  s.write_dep = reorder_loops(s.write_dep, loop_order_of(sizes, loops, 1));
  s.write_dep.loops = loop_sizes;
}

}  // namespace fxscope::fusion::detail
