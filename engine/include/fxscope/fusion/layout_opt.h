#pragma once
// Whether Inductor computes a graph's 4-d values in channels-last layout
// (GraphLowering.decide_layout_opt). With it, convolutions take their inputs in channels-last and
// values computed from a convolution are laid out so; without it, a convolution's inputs keep the
// strides the FX graph records (constrain_conv_to_fx_strides), so an input not yet in memory is
// copied while the convolution is lowered.

#include "fxscope/fusion/planner.h"
#include "fxscope/graph/graph.h"

namespace fxscope::fusion {

bool decide_layout_opt(const graph::Graph& graph, const PlanOptions& options);

}  // namespace fxscope::fusion
