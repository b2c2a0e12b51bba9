#pragma once
// The canonical digits of an address (memory_index.cpp), shared with the loop reordering
// (memory_loop_order.cpp).

#include <cstdint>
#include <vector>

#include "fxscope/fusion/memory_index.h"

namespace fxscope::fusion::detail {

// The digits of an iteration of NUMEL as TERMS leave them: gaps filled with digits the address
// does not use, sorted outermost first, adjacent digits that step as one merged.
std::vector<IndexTerm> canonical(std::vector<IndexTerm> terms, std::int64_t numel);

}  // namespace fxscope::fusion::detail
