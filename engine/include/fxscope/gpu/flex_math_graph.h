#pragma once
// flex attention's forward as ATen ops, a graph the engine plans and runs like any other: the
// flex_attention op's own eager implementation (math_attention in
// torch/_higher_order_ops/flex_attention.py), not Inductor's template.

#include "fxscope/core/result.h"
#include "fxscope/graph/graph.h"

namespace fxscope::gpu {

// The forward of flex_attention FLEX of GRAPH: scores Q K^T in f32, scaled; the score and mask
// subgraphs applied elementwise over broadcast index tensors (b, h, q_idx, kv_idx); a softmax
// that gives fully masked rows zeros; the product with V in Q's dtype, stored in Q's stride order.
// Its placeholders are Q, K, V, then the score subgraph's buffers and the mask subgraph's; its
// outputs the op's three: the attention, the log-sum-exp and the row maxima, both in base 2 (the
// op returns them so). An error names what it cannot build: symbolic sizes, grouped-query heads,
// an op of a subgraph that is not elementwise.
Result<graph::Graph> flex_attention_math(const graph::Graph& graph, graph::NodeId flex);

}  // namespace fxscope::gpu
