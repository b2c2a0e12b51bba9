#pragma once
// CUDA C for one kernel of a fusion plan: a fused group (default, reduce-overhead, max-autotune)
// or one eager op (eager). The generator is plain C++ (no CUDA needed), so every group of every
// sample log is generated and checked on machines without a GPU; engine/gpu compiles the source
// with NVRTC and launches it. Shapes are concrete (symbols resolved from hints) and baked into the
// source as constants, so one source is one specialisation and its hash is its cache key.
//
// Contract with the runtime (engine/gpu):
// - Every buffer the kernel touches is one pointer parameter, in `params` order. A param names the
//   graph node whose value it is; for a view node (permute, slice, expand ...) the runtime passes
//   the base buffer's pointer advanced by `alias_of(view).offset` elements, and the kernel indexes
//   it with the view's own sizes and strides.
// - Extern groups (GEMM, convolution, attention, fallbacks) are not generated here: the runtime
//   runs them through cuBLAS / cuDNN; generate() refuses them with a message.
// - Launch: a 1-D grid of `grid` blocks of `block` threads, `shared_bytes` of dynamic shared
//   memory; `config` is what max-autotune varies (candidates() lists what is worth trying).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::codegen {

// One tunable launch configuration.
struct LaunchConfig {
  int block = 256;  // threads per block
  // pointwise: elements per thread; one 16-byte vector when it equals the width the outputs allow
  // (4 floats, 8 halves), else that many scalar elements a block apart
  int items_per_thread = 1;
  int rows_per_block = 1;  // reductions: outputs per block
  friend bool operator==(const LaunchConfig&, const LaunchConfig&) = default;
};

// One pointer parameter of a generated kernel.
struct KernelParam {
  graph::NodeId node = 0;  // whose value: a placeholder, an op node, or a view of one
  std::string dtype;       // as FX prints it: f32, f16, bf16, i64, i32, b8
  bool written = false;    // an output of the kernel (or a scratch buffer of a split reduction)
  std::int64_t scratch_elements = 0;  // > 0: a scratch buffer the runtime allocates, not a node
  // Scratch buffers: a split reduction's two kernels both name the reduction node (the first
  // writes scratch_elements doubles of partial states, the second reads them): the runtime gives
  // them one allocation. A layout copy (channels-last input of a convolution, an aligned attention
  // mask) writes a scratch of the copied node's dtype that no generated kernel reads.
};

struct GeneratedKernel {
  std::string entry;   // the extern "C" __global__ function's name
  std::string source;  // a complete translation unit for NVRTC (no #include of toolkit headers)
  std::vector<KernelParam> params;
  std::int64_t grid = 1;
  int block = 256;
  std::size_t shared_bytes = 0;
  int cluster = 1;  // blocks a thread block cluster (compile-time __cluster_dims__; grid divides)
  LaunchConfig config;
  std::string summary;  // "pointwise 65536 x f32, 3 reads 1 write": what the report shows
};

// Where a view node's data lives: a base buffer (a node that owns memory) and an element offset.
struct Alias {
  graph::NodeId base = 0;
  std::int64_t offset = 0;
};
// Follows view ops (view, _unsafe_view, reshape of a contiguous tensor, permute, t, transpose,
// expand, unsqueeze, squeeze, slice, select, alias, as_strided, getitem of split/unbind ...) to the
// node that owns the memory; nullopt when NODE is not a view, or is a view that needs a copy.
// A copy_ into a view of a computed buffer is that view (the copy stores into its memory).
std::optional<Alias> alias_of(const graph::Graph& graph, graph::NodeId node,
                              const ops::SymbolHints& hints);

struct CodegenOptions {
  ops::SymbolHints hints;  // values of symbolic sizes
  // None lets the generator choose (16-byte vectors where it can, threads per row from the row
  // length and the device's size); a config is used as given, {256, 1, 1} included, so that a
  // tuning candidate equal to LaunchConfig{} is that candidate, not the default kernel again.
  std::optional<LaunchConfig> config;
  // The device runs thread block clusters (compute capability 9.0 and up): a reduction over few
  // long rows may then share each row among the blocks of a cluster.
  bool clusters = false;
  // The run's seed: eager's rand / randn draw from the seeds prims.inductor_seeds writes for it
  // (rng_seed_values), so that eager and the compiled modes drop the same elements.
  std::uint64_t run_seed = 0;
};

// The kernel for GROUP of a plan of GRAPH. Errors name the group and the op that cannot be
// generated ("group 7 triton_poi_fused_foo_3: aten.bar has no CUDA lowering").
Result<GeneratedKernel> generate(const graph::Graph& graph, const fusion::KernelGroup& group,
                                 const CodegenOptions& options);

// index_put / index_put_ in two launches (the runtime's form of an eager call or of ATen's call
// in Inductor's plan): a group of the one index_put node with the first note copies self into
// the output over the whole grid, one with the second scatters the values into it. Without
// either note, an eager call does both in one block (a barrier between them), and a fused
// Scatter group (Inductor's index_put_impl_) only scatters: another kernel filled its output.
inline constexpr std::string_view kIndexPutSelfNote = "index_put: self copied into its output";
inline constexpr std::string_view kIndexPutScatterNote = "index_put: values scattered";
bool is_index_put(const graph::Node& node);
// aten.scatter of a tensor or a value (src or value, no reduce).
bool is_scatter(const graph::Node& node);
// The index_put node of a group that holds only that node.
std::optional<graph::NodeId> lone_index_put(const graph::Graph& graph,
                                            const fusion::KernelGroup& group);

// Whether GROUP, storing buffers of its own, computes (from what it reads) a part of a cat it
// holds but does not store: Inductor writes that part into the cat's slice, the planner's group
// stores only its own outputs, so the runtime adds the group's cat copy (the
// group without outputs: generate() then copies each part it holds into every member cat's
// slice).
bool fills_cat_slices_apart(const graph::Graph& graph, const fusion::KernelGroup& group);

// ATen ops outside Inductor's lowerings that run as a generated kernel of their own, eager or as
// the extern call in Inductor's plan (the fused LSTM cell and its backward, sort, topk, histc,
// transformers' grouped_mm_fallback, nonzero):
// the node of a group
// that holds only such a node.
std::optional<graph::NodeId> lone_generated_extern(const graph::Graph& graph,
                                                   const fusion::KernelGroup& group);

// False for groups a library runs (extern and template groups, and eager calls of GEMMs,
// convolutions, attention and other ATen fallbacks): generate() refuses those.
bool has_generated_kernel(const graph::Graph& graph, const fusion::KernelGroup& group);

// The bytes KERNEL moves in DRAM at least: each buffer parameter once, its distinct elements (an
// expanded view's base, not what it is expanded to), scratch buffers included (a layout copy's
// destination, a split reduction's partial states). What the bandwidth target judges a kernel
// on, rather than its group's bytes in the plan, which follow Inductor's buffers.
double kernel_bytes(const GeneratedKernel& kernel, const graph::Graph& graph,
                    const ops::SymbolHints& hints);

// Launch configurations max-autotune tries for GROUP (the default config first).
std::vector<LaunchConfig> candidates(const graph::Graph& graph, const fusion::KernelGroup& group,
                                     const ops::SymbolHints& hints);

}  // namespace fxscope::codegen
