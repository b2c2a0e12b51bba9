#pragma once
// ComputedBuffer.decide_layout: a buffer whose layout is still flexible when the graph is
// finalized is stored in the stride order of its reads (get_fill_order), not in the FX graph's.

#include <cstdint>
#include <vector>

#include "fxscope/fusion/memory_index.h"

namespace fxscope::fusion::detail {

// The strides of a value of SIZES stored in the order scheduler.pick_loop_order picks from
// READS (its loads, over an iteration of exactly that value), as fill_ordered lays them out.
std::vector<std::int64_t> fill_order_strides(const std::vector<std::int64_t>& sizes,
                                             const std::vector<MemoryDep>& reads);

}  // namespace fxscope::fusion::detail
