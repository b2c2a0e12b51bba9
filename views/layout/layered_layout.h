#pragma once
// A layered layout fxscope computes itself, for graphs too big for Graphviz dot: longest-path
// layers, barycentre ordering, straight-down curves and cluster boxes around their members.
// Linear in nodes and edges apart from the sorts, so a 5,000-node ATen graph takes
// milliseconds where dot takes half a minute; crossings are not minimized beyond the
// barycentres, and cluster boxes are their members' bounds, so neighbouring ones may overlap.

#include "layout/graph_layout.h"

namespace fxscope::views {

GraphLayoutResult layout_layered(const GraphLayoutInput& input);

}  // namespace fxscope::views
