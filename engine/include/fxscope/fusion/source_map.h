#pragma once
// Post-grad nodes traced back to the Dynamo nodes the user wrote, so fusion can be drawn on the
// user's own graph: by the provenance mapping when the log has it, else by source location.

#include <vector>

#include "fxscope/graph/graph.h"
#include "fxscope/inductor/provenance.h"

namespace fxscope::fusion {

// For each node of POST_GRAD, the nodes of DYNAMO it comes from (sorted; empty when the log
// does not tell). PROVENANCE may be null.
std::vector<std::vector<graph::NodeId>> map_to_dynamo(const graph::Graph& post_grad,
                                                      const graph::Graph& dynamo,
                                                      const inductor::Provenance* provenance);

}  // namespace fxscope::fusion
