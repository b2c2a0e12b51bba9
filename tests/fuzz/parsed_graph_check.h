#pragma once
// Fuzz helper: what every graph parser must hand back, checked on each parsed graph, so that a
// broken index or a graph that cannot be saved shows as a crash rather than passing silently.

#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fxscope/graph/document.h"
#include "fxscope/graph/graph.h"
#include "fxscope/graph/graph_json.h"
#include "fxscope/graph/parsed_graph.h"

namespace fxscope::fuzz {

// Every NodeId a graph gives out indexes its nodes, and each node is found by its name.
inline void check_graph(const graph::Graph& graph) {
  for (graph::NodeId id = 0; id < graph.size(); ++id) {
    for (const graph::NodeId input : graph.inputs(id)) {
      if (input >= graph.size()) std::abort();
    }
    const auto found = graph.find(graph.node(id).name);
    if (!found || *found >= graph.size()) std::abort();
  }
  for (const auto& users : graph.users()) {
    for (const graph::NodeId user : users) {
      if (user >= graph.size()) std::abort();
    }
  }
  for (const auto& subgraph : graph.subgraphs()) check_graph(subgraph);
}

// The graph checked, then saved as an fxscope JSON document and read back: whatever a parser
// builds must survive fxscope's own file format.
inline void check_parsed_graph(const graph::ParsedGraph& parsed, std::string_view level) {
  check_graph(parsed.graph);
  graph::Document doc;
  doc.add_graph("0/0", std::string(level), parsed.graph);
  const auto reread = graph::parse_document(graph::to_json_text(doc));
  if (!reread || reread->size() != 1 || reread->graphs()[0].graph.size() != parsed.graph.size()) {
    std::abort();
  }
}

}  // namespace fxscope::fuzz
