// ComputedBuffer.get_fill_order on the modelled addresses: each load's stride along each dim of
// the value (dep_strides), the dims ordered by scheduler.pick_loop_order, laid out innermost
// first by FlexibleLayout.fill_ordered (loop_order.h).

#include "fill_order.h"

#include "fxscope/fusion/loop_order.h"

namespace fxscope::fusion::detail {

std::vector<std::int64_t> fill_order_strides(const std::vector<std::int64_t>& sizes,
                                             const std::vector<MemoryDep>& reads) {
  std::vector<std::vector<std::int64_t>> strides;
  for (const MemoryDep& r : reads) {
    if (r.opaque || r.split > 0) continue;
    std::vector<std::int64_t> s = dep_strides(r, sizes, 1);
    if (!s.empty()) strides.push_back(std::move(s));
  }
  if (strides.empty()) return {};
  return fill_ordered_strides(sizes, pick_loop_order(strides, sizes));
}

}  // namespace fxscope::fusion::detail
