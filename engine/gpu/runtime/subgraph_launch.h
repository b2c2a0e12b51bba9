#pragma once
// A subgraph step at run time: each callee an Executable of its own; torch.cond's chosen at
// every launch by the predicate's value read on the host.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/executable.h"

namespace fxscope::gpu {

using StepLaunch = std::function<std::string(cudaStream_t)>;

// The launch of subgraph step STEP of GRAPH. Each callee is built here as an Executable of its
// own (kept in CALLEES); each launch reads the predicate when there is one (a synchronisation, as
// Inductor's `pred.item()`), copies the operands into the callee's inputs, launches its steps and
// copies its outputs into the results. POINTER gives the enclosing executable's buffers. WHERE
// names the step in errors.
Result<StepLaunch> build_subgraph_launch(const graph::Graph& graph, const StepPlan& step,
                                         const std::function<char*(graph::NodeId)>& pointer,
                                         const ExecutableOptions& options, cudaStream_t stream,
                                         std::vector<std::unique_ptr<Executable>>& callees,
                                         const std::string& where);

}  // namespace fxscope::gpu
