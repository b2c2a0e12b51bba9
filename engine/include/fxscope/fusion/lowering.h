#pragma once
// Inductor's lowering replayed on a post-grad graph: which nodes become buffers (scheduler
// nodes) and which are inlined into their consumers, and for each buffer its origins, the
// post-grad nodes whose code it runs. An inlined node reused by several consumers is computed
// in each of them, so origins of different buffers can overlap, exactly as in Inductor.

#include <cstdint>
#include <string>
#include <vector>

#include "fxscope/fusion/memory_index.h"
#include "fxscope/fusion/planner.h"
#include "fxscope/fusion/reduction_split.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {

// One buffer of the lowered graph: a node of Inductor's scheduler.
struct SchedulerNode {
  graph::NodeId node = 0;              // the post-grad node that made it
  std::vector<graph::NodeId> origins;  // sorted: every node whose code it runs
  std::vector<std::int64_t> reads;     // sorted buffer ids it loads
  // Sorted: the buffers among READS it loads through indirect indexing (an index, gather or
  // embedding of them), whose addresses no dependency of their writer matches.
  std::vector<std::int64_t> indirect_reads;
  std::int64_t buffer = -1;  // the buffer id it writes
  // Its loads and its store as addresses over its own loop (read_writes of Inductor's node).
  std::vector<MemoryDep> read_deps;
  MemoryDep write_dep;
  std::int64_t numel = 1;
  std::int64_t rnumel = 1;  // > 1 or reduction: the reduced size
  bool reduction = false;
  bool fusable = true;         // false for extern kernels and scans
  bool template_gemm = false;  // max-autotune: a Triton GEMM template
  // false for a MultiOutput: one output of an extern call that returns several (SDPA, a
  // convolution's backward). It launches nothing, but it is a node of Inductor's scheduler, so
  // it holds a position in the order that horizontal fusion's distance is measured in.
  bool launches = true;
  // The first pass of an outer split reduction: it reads its input re-indexed by the split, so
  // no producer's writes match its reads and nothing fuses into it as a prologue.
  bool no_prologue = false;
  // A reduction whose loads voted its reduced axis across memory (Inductor's ReductionHint.OUTER,
  // reduction_split.cpp's vote): consecutive reduced elements lie a row apart, so a row's loads
  // do not coalesce. Set on the kernel that reads the input (the first pass of a split one).
  bool outer_reduction = false;
  // Inductor's ReductionHint of a reduction node (Reduction.num_splits), which decides with its
  // kernel's other reductions whether the kernel keeps a row in one block (reduction_split.h).
  ReductionHint hint = ReductionHint::inner;
  // Its reduced size is symbolic: no bound on it is known when the kernel is generated.
  bool symbolic_rnumel = false;
  // An element of a foreach op realized with its list (lowering.make_foreach_pointwise registers
  // the list with V.graph.register_operation_list; the scheduler makes one
  // ForeachKernelSchedulerNode of it): the list's number among the graph's lists, or -1, and the
  // element's position in it.
  int foreach_list = -1;
  std::size_t foreach_index = 0;
  // A graph input this node stores its value into (mutate_to's MutationLayoutSHOULDREMOVE:
  // copy_'s destination, an in-place foreach op's item), else -1. Inductor's scheduler gives the
  // node a StarDep on it, one more dependency among its reads.
  std::int64_t mutates = -1;
  // Sorted: buffers whose writers must run before it, though it loads none of them: the
  // earlier readers of a buffer it mutates (Scheduler's WeakDep), which must see the old
  // contents.
  std::vector<std::int64_t> after;
  // It stores into a slice of a ConcatKernel's buffer (ConcatKernel.realize_into gives it a
  // NonOwningLayout), so its buffer aliases another (get_inputs_that_alias_output).
  bool aliased = false;
  std::string note;
};

// The scheduler nodes of a graph in creation order (a topological order), and what was unknown.
struct LoweredGraph {
  std::vector<SchedulerNode> nodes;
  std::vector<ops::UnknownOp> unknown_ops;
  // The length of each foreach list (SchedulerNode::foreach_list numbers them).
  std::vector<std::size_t> foreach_list_sizes;
};

// Lowers GRAPH as Inductor would; GEMM_TEMPLATES turns addmm into max-autotune templates.
LoweredGraph lower_graph(const graph::Graph& graph, const PlanOptions& options,
                         bool gemm_templates);

}  // namespace fxscope::fusion
