#pragma once
// How many pieces Inductor splits a reduction into (ir.Reduction.num_splits with
// InductorChoices.reduction_split_factor): a reduction with too few outputs to fill the GPU is
// run as two kernels, the first reducing SPLIT parts of every row, the second combining them.

#include <cstdint>

#include "fxscope/fusion/planner.h"

namespace fxscope::fusion {

// The split of a reduction of RNUMEL elements into NUMEL outputs; INNER when the reduced
// elements are contiguous in memory (an inner reduction), else it is an outer one. 1: no split.
std::int64_t reduction_split(std::int64_t rnumel, std::int64_t numel, bool inner,
                             const PlanOptions& options);

}  // namespace fxscope::fusion
