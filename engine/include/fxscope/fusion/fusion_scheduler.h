#pragma once
// Inductor's fusion pass (Scheduler.fuse_nodes) over lowered scheduler nodes: greedy rounds
// that fuse pairs sharing a buffer, best score first, under the shape, cycle, distance and
// size rules of FUSION.md.

#include <cstddef>
#include <vector>

#include "fxscope/fusion/lowering.h"
#include "fxscope/fusion/planner.h"

namespace fxscope::fusion {

// The fused groups: each a sorted list of indices into the lowered nodes, in launch order.
std::vector<std::vector<std::size_t>> fuse_nodes(const LoweredGraph& lowered,
                                                 const PlanOptions& options);

}  // namespace fxscope::fusion
