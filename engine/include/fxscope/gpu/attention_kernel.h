#pragma once
// The runtime's own attention kernel for SDPA nodes the plan keeps as extern kernels
// (_scaled_dot_product_efficient_attention / _flash_attention / _cudnn_attention): one block per
// query row computes its scores, an additive bias, a causal mask, the softmax and the weighted
// sum of values, all in shared memory. Strides are baked in, so views of q/k/v cost nothing.
// f16 and bf16 tensors are read and written in their dtype and computed in float, as PyTorch's
// kernels accumulate. The forward also writes the rows' log-sum-exp and zero philox seed and
// offset (no dropout is applied) where the graph takes them: what a training step's backward
// reads. The backward ops (*_attention_backward) run a kernel of their own
// (attention_backward.cpp) from those saved tensors.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::gpu {

struct AttentionTensor {
  graph::NodeId node = 0;
  std::array<std::int64_t, 4> sizes{};    // batch, heads, rows, head dim (or columns for bias)
  std::array<std::int64_t, 4> strides{};  // 0 where broadcast
  std::string dtype = "f32";              // f32, bf16 or f16: read and written as such
};

struct AttentionSpec {
  AttentionTensor q, k, v, out;
  std::optional<AttentionTensor> bias;
  bool causal = false;
  double scale = 0.0;
  // Tiled: a block takes 16 query rows of one head and holds that head's keys and values in
  // shared memory (loaded once, coalesced); else one block per query row reads them from
  // global memory. Eager runs the simple form, the fused modes the tiled one, so comparing
  // their outputs checks one against the other.
  bool tiled = false;
  // Tensor cores: in the compiled modes, bf16 or f16 operands of a head dim that is a multiple
  // of 16 up to 128 run the flash-attention form of attention_mma.cpp (attention_mma_fits), as
  // PyTorch's own SDPA kernels run on tensor cores, where attention_mma_enabled(); eager's f32
  // kernel checks it.
  bool tensor_cores = false;
  // Forward: the log-sum-exp of each query row's scaled scores, f32 [B, H, L(, 1)] (getitem 1),
  // when the graph takes it; the philox seed and offset outputs, written as zeros.
  // Backward: the forward's log-sum-exp, read.
  std::optional<AttentionTensor> lse;
  std::vector<graph::NodeId> zeroed;
  // Backward: gradient of the output and the forward's output in; dq, dk, dv (getitems 0-2) out.
  bool backward = false;
  AttentionTensor grad_out, fwd_out, dq, dk, dv;
};

bool is_attention_target(const std::string& target);
// The SDPA backward ops: describe_attention gives their spec with backward set.
bool is_attention_backward_target(const std::string& target);
// NODE's attention; its output is the getitem [0] user. Errors name the node and what is missing.
Result<AttentionSpec> describe_attention(const graph::Graph& graph, graph::NodeId node,
                                         const ops::SymbolHints& hints);
// The kernel "fxscope_attention" for SPEC and its launch.
std::string attention_source(const AttentionSpec& spec);
int attention_threads(const AttentionSpec& spec);
long long attention_blocks(const AttentionSpec& spec);
std::size_t attention_shared_bytes(const AttentionSpec& spec);
// The backward's kernel source, block count and shared memory (attention_backward.cpp).
Result<AttentionSpec> describe_attention_backward(const graph::Graph& graph, graph::NodeId node,
                                                  const ops::SymbolHints& hints);
std::string attention_backward_source(const AttentionSpec& spec);
// The spec's tensor arguments in the order the kernel takes them (null where absent).
std::vector<std::optional<graph::NodeId>> attention_arguments(const AttentionSpec& spec);
// Whether the tiled form fits in shared memory for SPEC's sizes.
bool attention_tiles_fit(const AttentionSpec& spec);
// Whether SPEC can run on tensor cores (attention_mma.cpp), and that form's source and launch.
// The runtime takes that form unless FXSCOPE_ATTENTION_TENSOR_CORES=0.
bool attention_mma_enabled();
bool attention_mma_fits(const AttentionSpec& spec);
std::string attention_mma_source(const AttentionSpec& spec);
int attention_mma_threads();
long long attention_mma_blocks(const AttentionSpec& spec);
std::size_t attention_mma_shared_bytes(const AttentionSpec& spec);

}  // namespace fxscope::gpu
