#pragma once
// A convolution node of an ATen graph (aten.convolution) as cuDNN takes it: sizes and strides of
// input, weight and output, stride, padding, dilation and groups.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::gpu {

struct ConvSpec {
  graph::NodeId x = 0, w = 0, out = 0;
  std::optional<graph::NodeId> bias;
  std::string dtype;
  std::vector<std::int64_t> x_sizes, x_strides, w_sizes, w_strides, out_sizes, out_strides;
  std::vector<int> stride, padding, dilation;
  int groups = 1;
};

bool is_conv_target(const std::string& target);
Result<ConvSpec> describe_conv(const graph::Graph& graph, graph::NodeId node,
                               const ops::SymbolHints& hints);

}  // namespace fxscope::gpu
