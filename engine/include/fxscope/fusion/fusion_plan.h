#pragma once
// A fusion plan: the kernels one compile mode launches for an ATen graph, each as a group of
// post-grad (or, for eager, AOT) nodes. Inductor's real kernels use the same form, so the two
// compare group by group.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/graph/argument.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {

// The compile modes of torch.compile, plus eager PyTorch.
enum class Mode : std::uint8_t { eager, default_mode, reduce_overhead, max_autotune };

// What one kernel is, with Inductor's name prefixes where it has one.
enum class GroupKind : std::uint8_t {
  pointwise,             // triton_poi
  reduction,             // triton_red: loops over the reduced dimension
  persistent_reduction,  // triton_per: the reduced dimension fits one block
  template_gemm,         // triton_tem: a GEMM template, possibly with an epilogue
  combo,                 // triton_for: a foreach node's sub-kernels, launched together
  extern_kernel,         // cuBLAS, cuDNN, SDPA, an ATen fallback
  eager_op,              // one eager ATen call
};

std::string_view to_string(Mode mode);
// The four modes in the order users compare them.
inline constexpr Mode kAllModes[] = {Mode::eager, Mode::default_mode, Mode::reduce_overhead,
                                     Mode::max_autotune};
// "eager", "default", "reduce-overhead", "max-autotune" (underscores accepted); else nullopt.
std::optional<Mode> parse_mode(std::string_view text);
std::string_view to_string(GroupKind kind);

// One kernel launch of a plan.
struct KernelGroup {
  std::size_t id = 0;
  std::string name;  // "triton_poi_fused_add_gelu_mul_0", "extern_kernels.mm", "aten.addmm"
  GroupKind kind = GroupKind::pointwise;
  std::vector<graph::NodeId> nodes;    // member nodes, sorted: what the kernel computes
  std::vector<graph::NodeId> inputs;   // nodes whose buffers it reads
  std::vector<graph::NodeId> outputs;  // nodes whose buffers it writes
  // Where Inductor's header and provenance name other nodes than NODES for such a kernel, those
  // (sorted): a combo kernel names the origins of its sub-kernels that are one scheduler node
  // each, and nothing of those fused from several (set_kernel_post_grad_provenance_tracing reads
  // snode.node, which a fused node lacks). Kernels are compared by them.
  std::optional<std::vector<graph::NodeId>> named_nodes;
  // The graph inputs it stores into, sorted (an optimizer step's parameters and state, updated in
  // place). Of an Inductor kernel, read off its launch's arguments, and only where it names no
  // nodes and every buffer it stores is a graph input: such a kernel is compared by them.
  std::vector<graph::NodeId> stored_inputs;
  // Where it names no nodes and stores into no graph input: the graph inputs it reads, sorted (a
  // layout copy of an input the graph also returns, which Inductor makes while lowering the input
  // itself, so with no ATen node among its origins). Such a kernel is compared by them.
  std::vector<graph::NodeId> read_inputs;
  // What a kernel naming no nodes is compared by: the graph inputs it stores into, else those it
  // reads.
  const std::vector<graph::NodeId>& input_key() const {
    return stored_inputs.empty() ? read_inputs : stored_inputs;
  }
  // The nodes a drawing puts in its cluster, where no other kernel claims them: its own, or for a
  // copy of a graph input that names none (Inductor makes it while lowering the input), the
  // input it copies.
  const std::vector<graph::NodeId>& drawn_nodes() const {
    return nodes.empty() ? read_inputs : nodes;
  }
  double bytes_read = 0.0;
  double bytes_written = 0.0;
  double flops = 0.0;
  // Issue slots its arithmetic takes on CUDA cores (ops/alu_cost.h): full-precision math counts
  // many a FLOP; 0 for a layout copy.
  double alu_slots = 0.0;
  std::int64_t numel = 0;   // launch grid: output elements
  std::int64_t rnumel = 1;  // reduced elements per output (1 for pointwise)
  // Its reduction reduces an axis that lies across memory (SchedulerNode::outer_reduction).
  bool outer_reduction = false;
  std::string note;  // why it is as it is: "eager launches 2 kernels", "split reduction"
};

// The notes of the groups that copy one buffer into a layout of its own, which no graph node
// holds: a convolution's channels-last input or weight, SDPA's aligned mask.
inline constexpr std::string_view kLayoutCopyNote = "layout copy to channels-last";
inline constexpr std::string_view kMaskCopyNote = "attention mask copied to an aligned layout";
// Such a copy computes nothing and writes what it reads. Its nodes are Inductor's origins of the
// kernel (everything the convolution or the attention call gathered), not work it does.
inline bool is_layout_copy(const KernelGroup& g) {
  return g.note == kLayoutCopyNote || g.note == kMaskCopyNote;
}

// An eager group of scalars the host computes (a symbolic size, a comparison of sizes, a
// runtime assert of an unbacked size): PyTorch's eager runs it in C++ on the CPU, launching
// nothing (Inductor's wrapper code likewise), so it costs no kernel and no launch.
inline constexpr std::string_view kHostScalarNote = "computed on the host: no kernel";
inline bool on_host(const KernelGroup& g) {
  return g.note == kHostScalarNote;
}

// A split reduction's kernels: the first reduces parts of each row into partial results, the
// second combines them. Each carries the nodes of the whole reduction (Inductor's origins), but the
// second computes only the combine, over numel x rnumel partial results.
inline constexpr std::string_view kSplitFirstPassNote = "split reduction, first pass";
inline constexpr std::string_view kSplitSecondPassNote = "split reduction, second pass";
// Between them when the first pass is split again: each row combines parts of the first pass's
// partial states into partial states of its own.
inline constexpr std::string_view kSplitMiddlePassNote = "split reduction, middle pass";

// Why CUDA graphs cannot be used, one reason a line ("CPU tensor arg3_1").
struct CudaGraphVerdict {
  bool usable = true;
  std::vector<std::string> reasons;
};

struct SubgraphPlan;

// The result of planning one graph in one mode.
struct FusionPlan {
  Mode mode = Mode::default_mode;
  std::vector<KernelGroup> groups;  // in launch order
  CudaGraphVerdict cuda_graphs;     // reduce-overhead and max-autotune only
  std::vector<ops::UnknownOp> unknown_ops;
  std::vector<std::string> notes;  // gaps: "no ATen graph", "3 unknown ops ran alone"
  Warnings warnings;

  // The subgraphs a higher-order op runs (torch.cond's branches), each planned on its own; their
  // groups' nodes are the subgraph's (graph::Graph::find_subgraph), not this graph's.
  std::vector<SubgraphPlan> subgraphs;

  // Its groups' launches and its subgraphs' (every branch, as Inductor's code holds them all).
  std::size_t launches() const;
  // Its own groups' launches alone (a group of host scalars launches nothing).
  std::size_t own_launches() const;
};

// The plan of a subgraph that Inductor lowers as a graph of its own (GraphLowering.make_subgraph
// for ir.Conditional and ir.WhileLoop): its kernels fuse within it alone.
struct SubgraphPlan {
  std::string name;  // the subgraph's class name in the post-grad graph: "true_graph_0"
  // The enclosing plan's groups launched before it (0 in Inductor's plan read from output code,
  // where the subgraph's function is called by no launch).
  std::size_t position = 0;
  FusionPlan plan;
};

inline std::size_t FusionPlan::own_launches() const {
  std::size_t n = 0;
  for (const KernelGroup& g : groups) n += !on_host(g);
  return n;
}

inline std::size_t FusionPlan::launches() const {
  std::size_t n = own_launches();
  for (const SubgraphPlan& s : subgraphs) n += s.plan.launches();
  return n;
}

// The plan of subgraph NAME among PLAN's, or PLAN itself for ""; nullptr when it has none.
inline const FusionPlan* subgraph_plan(const FusionPlan& plan, std::string_view name) {
  if (name.empty()) return &plan;
  for (const SubgraphPlan& s : plan.subgraphs) {
    if (s.name == name) return &s.plan;
  }
  return nullptr;
}

}  // namespace fxscope::fusion
