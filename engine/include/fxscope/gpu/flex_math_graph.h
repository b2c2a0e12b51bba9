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
// op returns them so). An error names what it cannot build: symbolic sizes, broadcast batches,
// an op of a subgraph that is neither elementwise nor a read of a captured buffer at indices.
Result<graph::Graph> flex_attention_math(const graph::Graph& graph, graph::NodeId flex);

// The backward of flex_attention_backward FLEX of GRAPH (sdpa_dense_backward): the softmax again
// from the forward's log-sum-exp, dV = P^T dO, dS = P (dO V^T - rowsum(O dO) + dLSE), the score
// subgraph's gradient from its joint graph, masked and scaled, dQ = dS K and dK = dS^T Q; each
// gradient stored in its getitem's layout. Its placeholders are Q, K, V, the attention, its
// log-sum-exp, their gradients (the latter's only when the op takes one), then the mask
// subgraph's buffers; its outputs dQ, dK, dV. A score subgraph that captures buffers is refused
// (their gradients are not computed).
Result<graph::Graph> flex_attention_backward_math(const graph::Graph& graph, graph::NodeId flex);

}  // namespace fxscope::gpu
