#pragma once
// The inspector's text for one node of a CanvasGraph: what it is, its value, where the user's
// code made it, which kernel computes it and how long that kernel took (measured or predicted).

#include <string>

#include "layout/canvas_graph.h"
#include "layout/heat_overlay.h"

namespace fxscope::views {

// HEAT (may be null) adds the measured time of the node's kernel and, on the ATen graph, the
// node's own share of it.
std::string node_details(const CanvasGraph& graph, graph::NodeId id,
                         const HeatOverlay* heat = nullptr);

}  // namespace fxscope::views
