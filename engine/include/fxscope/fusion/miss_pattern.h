#pragma once
// A short key that groups the Inductor kernels a plan did not form exactly by what they are and
// how the plan differs: "reduction + epilogue [convert] / fxscope fuses less". Counting misses by
// key shows which of Inductor's decisions the planner models wrong, rather than which kernels.

#include <string>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"

namespace fxscope::fusion {

// The key of THEIRS, an Inductor kernel over GRAPH that no planned group matches exactly;
// CLOSEST is the planned group sharing most nodes with it (null when the plan has none). The key
// has three parts: the kernel's shape (pointwise; a reduction with a prologue, an epilogue, or
// several reductions), tags for the ops that decide lowerings (cat, scatter, an indirect load, a
// dtype conversion, a backward op), and how the closest group relates to it (a superset: fxscope
// fuses more; a subset: less; overlapping; none).
std::string miss_pattern(const graph::Graph& graph, const KernelGroup& theirs,
                         const KernelGroup* closest);

}  // namespace fxscope::fusion
