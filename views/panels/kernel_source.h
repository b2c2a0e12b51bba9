#pragma once
// The CUDA C fxscope generates for the kernels of a node's cluster: what `fxscope-cli run`
// compiles for it, shown beside the inspector (the Kernel source dock).

#include <string>

#include "layout/canvas_graph.h"

namespace fxscope::views {

// The source of every kernel drawn as NODE's cluster (its own first, then a split reduction's
// second pass or a layout copy joined to it), each under a header comment of group, nodes and
// launch; for a cluster a library runs, or groups that are Inductor's, a line saying why there is
// no source. Generated on demand, in a few milliseconds a kernel.
std::string kernel_source_text(const CanvasGraph& graph, graph::NodeId node);

}  // namespace fxscope::views
