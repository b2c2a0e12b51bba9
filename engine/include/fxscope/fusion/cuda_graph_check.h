#pragma once
// Whether CUDA graphs (reduce-overhead, max-autotune) can capture a graph, and if not, why: the
// conditions under which Inductor's cudagraph trees skip a graph.

#include <cstddef>
#include <set>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"
#include "fxscope/trace/compile_unit.h"

namespace fxscope::fusion {

// The positions among UNIT's Dynamo graph inputs of its modules' parameters and buffers: the
// static inputs Inductor's cudagraph trees let a graph mutate (a batch norm's running stats), as
// Dynamo marks every unspecialized parameter and buffer static (torch/_dynamo/variables/builder.py,
// torch/_inductor/cudagraph_utils.py check_for_mutation).
std::set<std::size_t> cudagraph_static_inputs(const trace::CompileUnit& unit);

// Checks GRAPH for CPU tensors, several devices, mutated inputs other than STATIC_INPUTS (positions
// among the compiled function's inputs: AOT's primals_K is position K-1, argJ_1 position J),
// .item()-like ops, RNG state ops and dynamic shapes. One reason per kind of finding; the
// mutations share one, naming every mutating op.
CudaGraphVerdict check_cuda_graphs(const graph::Graph& graph,
                                   const std::set<std::size_t>& static_inputs = {});

}  // namespace fxscope::fusion
