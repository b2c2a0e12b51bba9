#pragma once
// max-autotune's cuBLASLt epilogue candidate: the pointwise kernel after a GEMM is replaced by
// the GEMM's own epilogue when that kernel computes exactly act(product + bias), with act one
// of cuBLASLt's: none, relu, or GELU in its tanh form (cuBLASLt's GELU is the tanh
// approximation, up to 4.7e-4 from the erf GELU, so an erf GELU is not offered). The kernel's
// ops are evaluated as a scalar function of the product and the bias and compared with each
// activation, so any decomposition Inductor wrote is recognised.

#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/gpu/gemm_spec.h"

namespace fxscope::gpu {

struct EpilogueMatch {
  GemmSpec fused;       // GEMM writing `out` through the epilogue (bias and activation set)
  graph::NodeId out{};  // the node the epilogue kernel wrote
  std::string what;     // "bias + relu"
};

// Whether the kernel computing NODES (those of its group or its epilogue; views and the GEMM's
// own nodes may be among them) and writing WRITES can ride in the epilogue of GEMM (the spec of
// node GEMM_NODE). The error says why not, in one line ("reads arg2_1 besides the product and
// one bias").
Result<EpilogueMatch> match_gemm_epilogue(const graph::Graph& graph, graph::NodeId gemm_node,
                                          const GemmSpec& gemm,
                                          const std::vector<graph::NodeId>& nodes,
                                          const std::vector<graph::NodeId>& writes,
                                          const ops::SymbolHints& hints);

}  // namespace fxscope::gpu
