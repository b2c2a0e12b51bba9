#pragma once
// What one reduction node reduces: its input, the reduced dimensions, and how its elements
// combine (sum, max, Welford's mean and variance, online softmax ...).

#include <cstdint>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::codegen {

enum class Combine : std::uint8_t {
  sum,
  mean,
  prod,
  max,
  min,
  any,
  all,
  welford,
  argmax,
  argmin,
  softmax
};

struct ReductionShape {
  graph::NodeId node = 0;
  graph::NodeId input = 0;
  Combine combine = Combine::sum;
  std::vector<std::int64_t> input_sizes;
  std::vector<bool> reduced;  // per input dimension
  std::int64_t rows = 1;      // product of the kept sizes
  std::int64_t rnumel = 1;    // product of the reduced sizes
  double correction = 0.0;    // var_mean / var: divide m2 by (n - correction)
  // True when the reduced dimensions are the innermost ones: row-major position = row * rnumel + r.
  bool trailing = true;
  // max.dim / min.dim: an argmax (argmin) whose tuple gives the value (getitem 0) beside the
  // index (getitem 1).
  bool values_and_indices = false;
};

// An op lowered as a reduction (Welford's included): generate() and the reduction builder must
// agree on which nodes these are, so both ask here.
bool is_reduction(const graph::Node& n);

Result<ReductionShape> reduction_shape(const graph::Graph& graph, graph::NodeId node,
                                       const ops::SymbolHints& hints);

}  // namespace fxscope::codegen
