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

// GROUPS (indices into NODES) reordered so that no group launches before a group writing what it
// reads (Scheduler.topological_sort_schedule after fusion), otherwise in the order given: a group
// holding an early node and a later consumer (a batch norm's backward: one row sum, and the
// pointwise that reads the other, split in passes of its own; a template's epilogue reading a
// scatter) waits for what it reads.
void order_for_dependencies(const std::vector<SchedulerNode>& nodes,
                            std::vector<std::vector<std::size_t>>& groups);

}  // namespace fxscope::fusion
