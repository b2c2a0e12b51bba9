// How many loops each scheduler node runs, as Inductor counts them before fusion (lowerer.h,
// count_loop_vars). Under loop_ordering_after_fusion a GPU node's loops are not merged when it
// is made (ComputedBuffer.simplify_and_reorder, should_merge_loops), and its dependencies are not
// normalized (SchedulerNode._compute_attrs): each one names every loop variable of its node other
// than those of one element (_RecordLoadStoreInner.canonicalize). That count, MemoryDep.num_vars,
// decides whether Scheduler.shared_data_after_reordering_loop may reorder a node's loops towards
// another's, and a window partition (a 6-d clone) read by a layer norm over 4 dims cannot.

#include <algorithm>

#include "lowerer.h"

namespace fxscope::fusion::detail {

namespace {

std::int64_t dims_over_one(const std::vector<std::int64_t>& sizes) {
  return std::count_if(sizes.begin(), sizes.end(), [](std::int64_t s) { return s != 1; });
}

}  // namespace

void Lowerer::count_loop_vars() {
  for (SchedulerNode& s : sched_) {
    std::int64_t vars = 0;
    if (s.fusable && !s.template_gemm && s.foreach_list < 0) {
      if (!s.reduction) {
        // A Pointwise runs one loop per dim of its value.
        if (model_.numel(s.node) == s.numel) vars = dims_over_one(model_.sizes(s.node));
      } else if (const std::optional<NodeId> in = arg_node(s.node, 0);
                 in && model_.reduced_dims(s.node) && model_.numel(s.node) == s.numel &&
                 model_.numel(*in) == s.numel * s.rnumel) {
        // An unsplit reduction runs its kept dims, then its reduced ones: every dim of its
        // input. The passes of a split one loop over parts and rows, not counted here.
        vars = dims_over_one(model_.sizes(*in));
      }
    }
    s.write_dep.vars = vars;
    for (MemoryDep& d : s.read_deps) d.vars = vars;
  }
}

}  // namespace fxscope::fusion::detail
