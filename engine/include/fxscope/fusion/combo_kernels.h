#pragma once
// Inductor's combo kernels for foreach lists (codegen/triton_combo_kernel.py, run by
// SIMDScheduling.codegen_combo_kernel): the sub-kernels of one ForeachKernelSchedulerNode launch
// together, as few kernels as the limit on a kernel's arguments allows.

#include <cstddef>
#include <vector>

#include "fxscope/fusion/lowering.h"
#include "fxscope/fusion/planner.h"

namespace fxscope::fusion {

// One launch: the fused groups it runs. A plain kernel runs one; a combo kernel (triton_for) one
// per sub-kernel, in the order it dispatches them.
struct Launch {
  std::vector<std::vector<std::size_t>> subkernels;
  bool combo = false;
  // A combo kernel's nodes as Inductor names them (KernelGroup::named_nodes): the origins of
  // its foreach node's sub-kernels that are one scheduler node each.
  std::vector<graph::NodeId> named;
};

// The fused groups (fuse_nodes) as launches. The groups holding elements of foreach lists are
// sub-kernels: those of lists fused into one foreach node, ordered by position in the lists, are
// cut into combo kernels in that order (ComboKernel._base_horizontal_partition): a sub-kernel
// starts a new kernel when it would take the kernel's reads and writes past
// options.combo_kernel_max_num_args. Launches come in the order of their first nodes.
std::vector<Launch> form_launches(const LoweredGraph& lowered,
                                  const std::vector<std::vector<std::size_t>>& groups,
                                  const PlanOptions& options);

// The reads and writes of one sub-kernel as the partition counts them (len(read_writes.reads) +
// len(read_writes.writes) of its fused scheduler node): each buffer it loads and does not store,
// each buffer it stores, and a StarDep for each graph input it stores into.
std::size_t subkernel_args(const LoweredGraph& lowered, const std::vector<std::size_t>& members);

}  // namespace fxscope::fusion
