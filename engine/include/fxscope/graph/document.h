#pragma once
// The content of an fxscope JSON file: graphs of one capture (each labelled by compile id and
// level), free-form annotations per node (fusion group, predicted_us ...) and document metadata.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fxscope/graph/graph.h"

namespace fxscope::graph {

// One graph of a Document with the annotations attached to its nodes.
struct DocumentGraph {
  std::string label;       // what users see: "[0/0] post_grad"
  std::string compile_id;  // "0/0" (frame_id/frame_compile_id)
  std::string level;       // dynamo, aot, aot_forward, aot_backward, post_grad, fragments
  Graph graph;
  std::map<NodeId, nlohmann::json> annotations;  // node -> JSON object {key: value}
};

// Several labelled graphs plus per-node annotations and metadata; see docs/formats.md.
class Document {
 public:
  // Appends GRAPH labelled "[COMPILE_ID] LEVEL"; returns its index.
  std::size_t add_graph(std::string compile_id, std::string level, Graph graph);
  // Appends an entry as it is (used when reading a file back).
  std::size_t add_graph(DocumentGraph entry);

  const std::vector<DocumentGraph>& graphs() const { return graphs_; }
  std::size_t size() const { return graphs_.size(); }

  // Sets annotation KEY of NODE in graph GRAPH (both must exist); replaces an earlier value.
  void annotate(std::size_t graph, NodeId node, const std::string& key, nlohmann::json value);
  // The annotation, or nullptr when the graph, node or key has none.
  const nlohmann::json* annotation(std::size_t graph, NodeId node, std::string_view key) const;

  // Free-form JSON object: capture path, torch version, fxscope version ...
  nlohmann::json& metadata() { return metadata_; }
  const nlohmann::json& metadata() const { return metadata_; }

 private:
  std::vector<DocumentGraph> graphs_;
  nlohmann::json metadata_ = nlohmann::json::object();
};

}  // namespace fxscope::graph
