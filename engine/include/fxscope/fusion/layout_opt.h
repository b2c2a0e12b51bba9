#pragma once
// Whether Inductor computes a graph's 4-d values in channels-last layout
// (GraphLowering.decide_layout_opt). With it, convolutions take their inputs in channels-last and
// values computed from a convolution are laid out so; without it, a convolution's inputs keep the
// strides the FX graph records (constrain_conv_to_fx_strides), so an input not yet in memory is
// copied while the convolution is lowered.

#include <vector>

#include "fxscope/fusion/planner.h"
#include "fxscope/graph/graph.h"

namespace fxscope::fusion {

bool decide_layout_opt(const graph::Graph& graph, const PlanOptions& options);

// GraphLowering.find_nodes_prefer_channels_last, one flag per node: the convolutions, every node
// a flagged node uses (walking back from the end), then every user of a flagged node (walking
// forward up to the last convolution); a bmm is never flagged by a neighbour and passes no flag
// on. Values flagged so are stored channels-last when run_node realizes them for their reuse,
// whatever their dims mean (a window-partitioned 4-d value takes its windows as channels).
std::vector<bool> nodes_prefer_channels_last(const graph::Graph& graph);

}  // namespace fxscope::fusion
