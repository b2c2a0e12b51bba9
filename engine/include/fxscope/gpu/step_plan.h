#pragma once
// What each group of a fusion plan runs, decided before any device memory exists: a generated
// CUDA C kernel (with its max-autotune variants), a cuBLASLt GEMM, a cuDNN convolution or the
// runtime's attention kernel, and the nodes whose buffers it reads and writes. A group nothing
// can run is kept as a skip with the reason, and counted against coverage.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/gpu/attention_kernel.h"
#include "fxscope/gpu/conv_spec.h"
#include "fxscope/gpu/gemm_epilogue.h"
#include "fxscope/gpu/gemm_spec.h"

namespace fxscope::gpu {

enum class StepKind { generated, gemm, conv, conv_backward, attention, subgraphs };

struct PlannedSteps;

// A step that runs another graph's steps: torch.cond's branches, of which its predicate picks one
// (read on the host when the step runs, as Inductor's wrapper does: `if pred.item():` around each
// subgraph's calls, codegen_conditional), or flex attention's math, a graph fxscope builds from
// its score and mask subgraphs. Inductor's subgraph takes the operands' buffers and hands back its
// outputs'; a callee here owns its buffers, so the operands are copied in and the outputs out
// (device to device, no kernel).
struct SubgraphCall {
  std::optional<graph::NodeId> predicate;  // torch.cond's: true runs GRAPHS[0], false GRAPHS[1]
  std::vector<graph::NodeId> operands;     // the callees' inputs, in their placeholders' order
  // Output I of a callee goes to RESULTS[I] (the op's getitem I), when a getitem takes it.
  std::vector<std::optional<graph::NodeId>> results;
  struct Callee {
    std::string name;                           // "true_graph_0", "flex attention's math"
    std::shared_ptr<const graph::Graph> owned;  // a graph fxscope built, else null
    const graph::Graph* graph = nullptr;        // the enclosing graph's subgraph, or OWNED
    std::shared_ptr<const PlannedSteps> steps;
  };
  std::vector<Callee> graphs;
};

struct StepPlan {
  std::size_t group = 0;   // index in the plan
  std::string group_name;  // the plan's kernel name
  StepKind kind = StepKind::generated;
  std::string name;  // the kernel's entry, or the library call
  std::vector<graph::NodeId> nodes;
  std::size_t group_ops = 0;  // the group's op nodes, for coverage when a step cannot run
  std::vector<graph::NodeId> reads;
  std::vector<graph::NodeId> writes;
  // Among WRITES, values this step writes without a part a later kernel adds (a convolution run
  // without the bias Inductor's epilogue adds): what it stores is not the node's value.
  std::vector<graph::NodeId> partial_writes;
  std::vector<codegen::GeneratedKernel> variants;  // generated: the default config first
  std::optional<GemmSpec> gemm;
  std::optional<ConvSpec> conv;
  std::optional<ConvBackwardSpec> conv_backward;
  std::optional<AttentionSpec> attention;
  std::optional<SubgraphCall> call;
  // max-autotune, on a GEMM step followed by the kernel that consumes its product: that kernel
  // in cuBLASLt's epilogue (the runtime times both and keeps the faster; `writes` then also holds
  // the epilogue's output, so its buffer lives from this step), or why it cannot ride there.
  std::optional<EpilogueMatch> fused_epilogue;
  std::string epilogue_note;
};

struct SkippedGroup {
  std::size_t group = 0;
  std::string name;
  std::size_t ops = 0;
  std::string why;
};

struct PlannedSteps {
  std::vector<StepPlan> steps;
  std::vector<SkippedGroup> skipped;
  std::size_t ops = 0;  // op nodes in the plan's groups (views excluded)
  std::size_t ran_ops = 0;
  // Buffers a step reads that no earlier step wrote and that are not graph inputs: a gap
  // between the plan and the generated kernels, named so that a wrong result can be traced.
  std::vector<std::string> read_before_write;
};

// TUNE: also generate the launch configurations max-autotune tries. RUN_SEED: the run's seed,
// from which dropout's seeds are derived (the same in every mode). CLUSTERS: the device runs
// thread block clusters (codegen::CodegenOptions::clusters).
PlannedSteps plan_steps(const graph::Graph& graph, const fusion::FusionPlan& plan,
                        const ops::SymbolHints& hints, bool tune, std::uint64_t run_seed = 0,
                        bool clusters = false);

// Every generated variant's source of PLANNED's steps, its callees' steps included: what a run
// hands the compiler to build in parallel before the steps are built one by one.
std::vector<const std::string*> kernel_sources(const PlannedSteps& planned);

// Whether STEP takes indices from data (a gather, a scatter, an embedding lookup): the bytes it
// moves depend on the values, not on the buffers' sizes, and launched on its own, on buffers that
// later steps reused, its indices may point anywhere. GEMMs, convolutions and attention do not;
// torch.cond's step does (its predicate picks what it launches).
bool indexes_by_data(const StepPlan& step, const graph::Graph& graph);

// A scratch buffer of generated steps (KernelParam::scratch_elements): one per node and dtype
// however many steps name it, alive from the first of them to the last. A split reduction's first
// pass writes its partial states and its second, a later step, reads them: the two must share
// one allocation that nothing else takes in between.
struct ScratchBuffer {
  graph::NodeId node = 0;
  std::string dtype;
  std::size_t bytes = 0;  // the largest any variant asks for
  std::size_t first_step = 0;
  std::size_t last_step = 0;
};
std::vector<ScratchBuffer> scratch_buffers(const std::vector<StepPlan>& steps);

}  // namespace fxscope::gpu
