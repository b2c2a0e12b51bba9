#pragma once
// Kernel names in Inductor's style: a prefix by kind, "fused_", the sorted distinct base names
// of the ops the kernel runs, and a running index: triton_poi_fused_add_gelu_mul_0.

#include <cstddef>
#include <string>
#include <vector>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"

namespace fxscope::fusion {

// "triton_poi", "triton_red", "triton_per", "triton_tem"; empty for extern and eager kinds.
std::string_view kernel_prefix(GroupKind kind);

// The name of a generated kernel running NODES of GRAPH; Inductor names by the original ATen op
// of each node, which the post-grad text does not print, so the node's own op stands in.
std::string kernel_name(const graph::Graph& graph, const std::vector<graph::NodeId>& nodes,
                        GroupKind kind, std::size_t index);

}  // namespace fxscope::fusion
