#pragma once
// The fusion planner: Inductor's lowering and scheduling rules (FUSION.md) replayed on an ATen
// graph, or eager PyTorch's one kernel per op.

#include <cstddef>
#include <cstdint>
#include <set>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::fusion {

// Inductor's thresholds (torch/_inductor/config.py), each a knob a user may change.
struct PlanOptions {
  ops::SymbolHints hints;                       // values of symbolic sizes
  std::size_t max_group_nodes = 64;             // config.max_fusion_size
  std::int64_t horizontal_window = 64;          // nodes further apart never fuse horizontally
  int fusion_rounds = 10;                       // greedy rounds of fuse_nodes_once
  std::size_t realize_reads_threshold = 4;      // reused pointwise with more reads is stored
  std::size_t realize_opcount_threshold = 30;   // ... or with a larger inner function
  std::size_t realize_acc_reads_threshold = 8;  // any pointwise reading more is stored
  std::int64_t unroll_rnumel = 8;               // config.unroll_reductions_threshold
  std::size_t max_pointwise_cat_inputs = 8;     // config.max_pointwise_cat_inputs
  // InductorChoices.should_use_persistent_reduction: a kernel of inner reductions up to 1,024
  // elements keeps a row in one block, any other up to 64.
  std::int64_t persistent_rnumel = 1024;
  std::int64_t persistent_rnumel_not_inner = 64;
  std::int64_t split_rnumel = 8192;  // larger reductions with few outputs split
  std::int64_t sm_count = 132;       // H200; split when outputs < 2 x SMs
  // config.score_fusion_memory_threshold: two kernels sharing fewer bytes of loads and stores
  // do not fuse.
  std::int64_t score_fusion_memory_threshold = 10;
  // Fuse by memory dependencies (Inductor's addresses of each load and store, loop reordering
  // included) rather than by the buffers two kernels share.
  bool memory_deps = true;
  // config.combo_kernel_max_num_args: the reads and writes one combo kernel (a foreach node's
  // launch) may take; its sub-kernels are cut into several launches past it.
  std::size_t combo_kernel_max_num_args = 250;
  // GraphLowering.is_inference: an inference graph (no backward) decides channels-last layout by
  // its convolutions' FLOPs, a training graph by their shapes (decide_layout_opt).
  bool inference = true;
  // Positions of the compiled function's inputs that are parameters or buffers: cudagraph trees
  // capture a graph that mutates these (cudagraph_static_inputs).
  std::set<std::size_t> static_inputs;
};

// Plans GRAPH (the post-grad graph; the AOT graph for eager) in MODE. Never fails: unknown ops
// run alone and are named in plan.unknown_ops, and a graph without ATen ops gives an empty plan
// with a note.
FusionPlan plan(const graph::Graph& graph, Mode mode, const PlanOptions& options = {});

}  // namespace fxscope::fusion
