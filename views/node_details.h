#pragma once
// The inspector's text for one node of a CanvasGraph: what it is, its value, where the user's
// code made it and which kernel computes it.

#include <string>

#include "canvas_graph.h"

namespace fxscope::views {

std::string node_details(const CanvasGraph& graph, graph::NodeId id);

}  // namespace fxscope::views
