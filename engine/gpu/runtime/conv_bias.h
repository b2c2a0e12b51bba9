#pragma once
// Convolutions the runtime runs without their bias: Inductor's convolution lowering calls the
// library without the bias and a pointwise kernel adds it (a bf16 model casts it there), so
// every generated kernel that reads such a convolution's buffer adds the bias itself.

#include <cstddef>
#include <optional>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"

namespace fxscope::gpu {

// The bias of convolution CONV where an op computes it (a cast of the parameter); nullopt for
// any other node.
std::optional<graph::NodeId> conv_bias(const graph::Graph& g, graph::NodeId conv);
// Whether CONV's bias is computed by a group of PLAN other than CONV_GROUP that also lists CONV:
// the library call then runs without the bias.
bool bias_in_epilogue(const graph::Graph& g, const fusion::FusionPlan& plan, std::size_t conv_group,
                      graph::NodeId conv);
// GROUP with the bias of each convolution it reads whose buffer holds the value without it (no
// kernel stores the whole value back), and the views it reads that convolution through, among
// its nodes: its kernel then adds the bias to what it loads.
fusion::KernelGroup with_conv_biases(const graph::Graph& g, const fusion::FusionPlan& plan,
                                     fusion::KernelGroup group);

}  // namespace fxscope::gpu
