#pragma once
// A convolution node of an ATen graph (aten.convolution) as cuDNN takes it: sizes and strides of
// input, weight and output, stride, padding, dilation, groups, and how far each tensor's address
// is known to be aligned (cuDNN's engines are chosen for an alignment promised in advance).

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
  // Bytes (a power of two up to 16) that divide each tensor's address: buffers start aligned, a
  // view into one is aligned as far as its offset allows.
  int x_align = 16, w_align = 16, bias_align = 16, out_align = 16;
};

bool is_conv_target(const std::string& target);

// aten.convolution_backward: the gradients of a convolution's input, weight and bias from the
// gradient of its output, each where the graph takes it (a getitem of the returned tuple).
struct ConvBackwardSpec {
  // x and w: the forward's input and weight; out: the output's gradient (what cuDNN calls dy).
  ConvSpec conv;
  std::optional<graph::NodeId> grad_x, grad_w, grad_bias;
  std::vector<std::int64_t> grad_x_strides, grad_w_strides;
};

bool is_conv_backward_target(const std::string& target);
Result<ConvBackwardSpec> describe_conv_backward(const graph::Graph& graph, graph::NodeId node,
                                                const ops::SymbolHints& hints);

// How the weight lies in memory: cuDNN's filter descriptor names a layout, not strides.
enum class WeightLayout { contiguous, channels_last, other };
WeightLayout weight_layout(const ConvSpec& spec);

Result<ConvSpec> describe_conv(const graph::Graph& graph, graph::NodeId node,
                               const ops::SymbolHints& hints);

// A 1-d convolution as a 2-d one of height 1 (cuDNN plans 2-d and 3-d convolutions); others as
// they are.
ConvSpec with_two_spatial_dims(ConvSpec spec);
// "f32 x 1x64x56x56 w 64x64x3x3 -> 1x64x56x56 stride 1,1 pad 1,1 dilation 1,1 groups 1", for
// errors.
std::string conv_shape_text(const ConvSpec& spec);

}  // namespace fxscope::gpu
