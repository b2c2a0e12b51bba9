// A reduction's output layout and loop order as Inductor decides them (lowerer.h,
// order_reduction_loops): ComputedBuffer.get_fill_order lays a flexible buffer out in the order
// its loads walk memory, and simplify_and_reorder runs its loops in the order its store and loads
// vote (scheduler.pick_loop_order). A layer norm's backward over a transposed gradient so stores
// its first row sum (a load of the gradient alone) transposed, in a loop of its own order: the
// input gradient reading it row-major loads it at an address its store does not match, and the
// two sums run as two kernels. The first pass of an outer split reduction over a buffer laid out
// in its parts reads it through loops that buffer's writer can take.

#include <algorithm>

#include "fxscope/fusion/loop_order.h"
#include "lowerer.h"

namespace fxscope::fusion::detail {

using ops::Lowering;

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

void Lowerer::order_pointwise_loops(NodeId v) {
  // ComputedBuffer.simplify_and_reorder: on a GPU every address votes (the store's, then the
  // loads', as Triton does not prefer the store's order), so a copy whose loads walk memory in
  // another order than its store runs in theirs: a window partition (the clone of a layer
  // norm's output viewed in windows) loops over the rows the layer norm stored, and so can be
  // its epilogue.
  const std::vector<std::int64_t>& sizes = model_.sizes(v);
  SchedulerNode& s = sched_.back();
  if (sizes.size() < 2 || s.reduction || model_.numel(v) != s.numel) return;
  std::vector<std::vector<std::int64_t>> strides{dep_strides(s.write_dep, sizes, 1)};
  if (strides.front().empty()) return;
  for (const MemoryDep& d : s.read_deps) {
    std::vector<std::int64_t> st = dep_strides(d, sizes, 1);
    if (!st.empty()) strides.push_back(std::move(st));
  }
  std::vector<std::size_t> loops = pick_loop_order(strides, sizes);
  std::reverse(loops.begin(), loops.end());
  std::vector<std::size_t> kept;
  for (const std::size_t k : loops) {
    if (sizes[k] > 1) kept.push_back(k);
  }
  if (std::is_sorted(kept.begin(), kept.end())) return;
  const LoopOrder order = loop_order_of(sizes, loops, 1);
  for (MemoryDep& d : s.read_deps) d = reorder_loops(d, order);
  s.write_dep = reorder_loops(s.write_dep, order);
}

void Lowerer::split_parts_as_loops(NodeId i, const std::vector<NodeId>& args, std::int64_t out,
                                   std::int64_t rnumel, std::int64_t split, SchedulerNode& first) {
  if (args.empty() || rnumel % split != 0) return;
  // The buffer the reduction's input views.
  NodeId base = args.front();
  while (!realized_[base] && info_[base].lowering == Lowering::view) {
    const std::vector<NodeId> in = g_.inputs(base);
    if (in.empty()) return;
    base = in.front();
  }
  if (!realized_[base] || info_[base].lowering == Lowering::extern_kernel) return;
  // A writer loading a buffer computed in the graph fuses with that buffer's kernel first where
  // they share more (score_fusion), which the reordered loops here do not weigh: only a writer
  // loading graph inputs and library calls' results is taken.
  const auto writer = std::find_if(sched_.rbegin(), sched_.rend(), [&](const SchedulerNode& w) {
    return w.buffer == static_cast<std::int64_t>(base);
  });
  if (writer == sched_.rend()) return;
  for (const std::int64_t b : writer->reads) {
    if (b < 0 || b >= static_cast<std::int64_t>(n_)) return;
    const auto r = static_cast<NodeId>(b);
    if (g_.node(r).is_op() && info_[r].lowering != Lowering::extern_kernel &&
        info_[r].lowering != Lowering::getitem) {
      return;
    }
  }
  // Scheduler.shared_data_after_reordering_loop reorders only between addresses of as many
  // loop variables: the writer's dims must be the pass's loops (parts, kept dims, a part's rows).
  const std::int64_t part = rnumel / split;
  std::vector<std::int64_t> loops{split, part};
  for (const std::int64_t s : model_.sizes(i)) {
    if (s > 1) loops.push_back(s);
  }
  std::vector<std::int64_t> dims;
  for (const std::int64_t s : model_.sizes(base)) {
    if (s > 1) dims.push_back(s);
  }
  std::sort(loops.begin(), loops.end());
  std::sort(dims.begin(), dims.end());
  if (loops != dims) return;
  // Reduction.create_multilayer's first pass runs over the kept dims and the parts (laid out
  // parts outermost, as an outer reduction's loads vote), then a part's rows.
  const LoopOrder order{{1, part, 1}, {part, split, out * part}, {rnumel, out, part}};
  for (MemoryDep& d : first.read_deps) d = reorder_loops(d, order);
  first.no_prologue = false;
}

}  // namespace fxscope::fusion::detail
