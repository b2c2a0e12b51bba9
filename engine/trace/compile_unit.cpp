#include "fxscope/trace/compile_unit.h"

#include <nlohmann/json.hpp>

namespace fxscope::trace {

const Artifact* CompileUnit::find(ArtifactKind kind, Direction direction) const {
  const Artifact* any_attempt = nullptr;
  for (auto it = artifacts.rbegin(); it != artifacts.rend(); ++it) {
    if (it->kind != kind) continue;
    if (direction != Direction::kNone && it->direction != direction) continue;
    if (it->id.attempt == final_attempt) return &*it;
    if (any_attempt == nullptr) any_attempt = &*it;
  }
  return any_attempt;
}

std::vector<const Artifact*> CompileUnit::find_all(ArtifactKind kind) const {
  std::vector<const Artifact*> found;
  for (const auto& a : artifacts) {
    if (a.kind == kind) found.push_back(&a);
  }
  return found;
}

const Artifact* CompileUnit::aot_graph() const {
  const Artifact* inference = find(ArtifactKind::kAotInferenceGraph);
  return inference != nullptr ? inference : find(ArtifactKind::kAotForwardGraph);
}

std::vector<const Artifact*> CompileUnit::aot_graphs() const {
  const auto aot = [](const Artifact& a) {
    return a.kind == ArtifactKind::kAotInferenceGraph || a.kind == ArtifactKind::kAotForwardGraph ||
           a.kind == ArtifactKind::kAotBackwardGraph;
  };
  bool in_final = false;
  for (const auto& a : artifacts) in_final |= aot(a) && a.id.attempt == final_attempt;
  std::vector<const Artifact*> found;
  for (const auto& a : artifacts) {
    if (aot(a) && (!in_final || a.id.attempt == final_attempt)) found.push_back(&a);
  }
  return found;
}

std::vector<const Artifact*> CompileUnit::inductor_codes() const {
  std::vector<const Artifact*> found;
  for (auto direction : {Direction::kNone, Direction::kForward, Direction::kBackward}) {
    const Artifact* a = find(ArtifactKind::kOutputCode, direction);
    if (a != nullptr && a->direction == direction) found.push_back(a);
  }
  if (found.empty()) {
    if (const Artifact* wrapper = find(ArtifactKind::kAotWrapperCode)) found.push_back(wrapper);
  }
  return found;
}

std::vector<TensorSizes> CompileUnit::dynamo_sizes() const {
  std::vector<TensorSizes> sizes;
  const Artifact* graph = dynamo_graph();
  if (graph == nullptr) return sizes;
  // ordered_json: the map's order is the graph's node order, which users expect to see.
  const auto j = nlohmann::ordered_json::parse(graph->envelope, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return sizes;
  const auto it = j.find("dynamo_output_graph");
  if (it == j.end() || !it->is_object()) return sizes;
  const auto map = it->find("sizes");
  if (map == it->end() || !map->is_object()) return sizes;
  for (const auto& [name, dims] : map->items()) {
    TensorSizes entry{name, {}};
    if (dims.is_array()) {
      for (const auto& d : dims) {
        entry.dims.push_back(d.is_string() ? d.get<std::string>() : d.dump());
      }
    }
    sizes.push_back(std::move(entry));
  }
  return sizes;
}

}  // namespace fxscope::trace
