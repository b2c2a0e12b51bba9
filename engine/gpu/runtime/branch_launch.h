#pragma once
// torch.cond at run time: each branch an Executable of its own, chosen at every launch by the
// predicate's value read on the host.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/executable.h"

namespace fxscope::gpu {

using StepLaunch = std::function<std::string(cudaStream_t)>;

// The launch of branch step STEP of GRAPH. Each branch is built here as an Executable of its own
// (kept in BRANCHES); each launch reads the predicate (a synchronisation, as Inductor's
// `pred.item()`), copies the operands into the chosen branch's inputs, launches its steps and
// copies its outputs into the results. POINTER gives the enclosing executable's buffers. WHERE
// names the step in errors.
Result<StepLaunch> build_branch_launch(const graph::Graph& graph, const StepPlan& step,
                                       const std::function<char*(graph::NodeId)>& pointer,
                                       const ExecutableOptions& options, cudaStream_t stream,
                                       std::vector<std::unique_ptr<Executable>>& branches,
                                       const std::string& where);

}  // namespace fxscope::gpu
