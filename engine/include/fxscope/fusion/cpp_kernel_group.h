#pragma once
// Inductor's C++ backend for CPU tensors: every scheduler node it is handed joins one kernel
// group, written out as a single cpp_fused_* function (one launch) when the scheduler flushes.

#include <cstddef>
#include <vector>

#include "fxscope/fusion/lowering.h"
#include "fxscope/graph/graph.h"

namespace fxscope::fusion {

// The arguments past which CppScheduling flushes its kernel group
// (CppScheduling.MAX_FUSED_KERNEL_ARGS_NUM).
inline constexpr std::size_t kMaxCppKernelArgs = 500;

// Merges the fused GROUPS (in launch order) that run on the CPU into Inductor's C++ kernels: a
// run of consecutive CPU groups is one kernel, cut where Scheduler._codegen flushes (a group on
// another device, an extern call or a template) or where CppScheduling.codegen_node finds more
// than kMaxCppKernelArgs buffers scheduled. Nodes that launch nothing cut no run.
void group_cpp_kernels(const graph::Graph& graph, const LoweredGraph& lowered,
                       std::vector<std::vector<std::size_t>>& groups);

}  // namespace fxscope::fusion
