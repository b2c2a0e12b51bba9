#pragma once
// Whether CUDA graphs (reduce-overhead, max-autotune) can capture a graph, and if not, why: the
// conditions under which Inductor's cudagraph trees skip a graph.

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"

namespace fxscope::fusion {

// Checks GRAPH for CPU tensors, several devices, mutated inputs, .item()-like ops, RNG state ops
// and dynamic shapes; each finding is one reason.
CudaGraphVerdict check_cuda_graphs(const graph::Graph& graph);

}  // namespace fxscope::fusion
