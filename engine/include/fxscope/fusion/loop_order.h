#pragma once
// Inductor's loop and layout order heuristic (torch/_inductor/scheduler.py pick_loop_order): a
// buffer whose layout is still flexible is laid out in the order its reads walk memory
// (ComputedBuffer.get_fill_order), and a node's loops are reordered by the strides of its store
// and loads (ComputedBuffer.simplify_and_reorder, _apply_loop_reordering).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fxscope/fusion/memory_index.h"

namespace fxscope::fusion {

// pick_loop_order: the dims of SIZES ordered innermost first, by the strides each address of
// STRIDES gives them (one vector per address, one stride per dim). A dim goes inside another
// when more addresses step it by less (or not at all by the other); ties keep the later dim
// inside; dims of size 1 go last. Sorted as Python's list.sort orders small lists.
std::vector<std::size_t> pick_loop_order(const std::vector<std::vector<std::int64_t>>& strides,
                                         const std::vector<std::int64_t>& sizes);

// The step DEP's address takes for one step of each dim of SIZES, when those dims are the
// iteration's outer digits above INNER_NUMEL inner ones (a reduction's reduced elements);
// empty for an opaque address.
std::vector<std::int64_t> dep_strides(const MemoryDep& dep, const std::vector<std::int64_t>& sizes,
                                      std::int64_t inner_numel);

// The contiguous strides of SIZES laid out in FILL_ORDER (innermost first):
// FlexibleLayout.fill_ordered.
std::vector<std::int64_t> fill_ordered_strides(const std::vector<std::int64_t>& sizes,
                                               const std::vector<std::size_t>& fill_order);

// The renaming that runs the dims of SIZES (above INNER_NUMEL inner digits, which stay) in
// LOOP_ORDER, outermost first.
LoopOrder loop_order_of(const std::vector<std::int64_t>& sizes,
                        const std::vector<std::size_t>& loop_order, std::int64_t inner_numel);

}  // namespace fxscope::fusion
