#pragma once
// What a graph parser returns: the graph it could build and the problems it met on the way.

#include "fxscope/core/diagnostics.h"
#include "fxscope/graph/graph.h"

namespace fxscope::graph {

// A parsed graph plus warnings ("WHERE line N: ..."); parsers never fail outright.
struct ParsedGraph {
  Graph graph;
  Warnings warnings;
};

}  // namespace fxscope::graph
