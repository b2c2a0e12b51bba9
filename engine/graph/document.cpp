#include "fxscope/graph/document.h"

#include <nlohmann/json.hpp>

#include <utility>

namespace fxscope::graph {

std::size_t Document::add_graph(std::string compile_id, std::string level, Graph graph) {
  DocumentGraph entry;
  entry.label = "[" + compile_id + "] " + level;
  entry.compile_id = std::move(compile_id);
  entry.level = std::move(level);
  entry.graph = std::move(graph);
  return add_graph(std::move(entry));
}

std::size_t Document::add_graph(DocumentGraph entry) {
  graphs_.push_back(std::move(entry));
  return graphs_.size() - 1;
}

void Document::annotate(std::size_t graph, NodeId node, const std::string& key,
                        nlohmann::json value) {
  if (graph >= graphs_.size() || node >= graphs_[graph].graph.size()) return;
  nlohmann::json& slot = graphs_[graph].annotations[node];
  if (!slot.is_object()) slot = nlohmann::json::object();
  slot[key] = std::move(value);
}

const nlohmann::json* Document::annotation(std::size_t graph, NodeId node,
                                           std::string_view key) const {
  if (graph >= graphs_.size()) return nullptr;
  const auto& annotations = graphs_[graph].annotations;
  const auto it = annotations.find(node);
  if (it == annotations.end()) return nullptr;
  const auto value = it->second.find(key);
  return value == it->second.end() ? nullptr : &*value;
}

}  // namespace fxscope::graph
