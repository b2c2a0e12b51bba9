#include "fxscope/export/unit_document.h"

#include <string>
#include <utility>
#include <vector>

#include "fxscope/export/cluster_closure.h"
#include "fxscope/graph/fx_readable_parser.h"

namespace fxscope::exporting {
namespace {

void annotate_post_grad(graph::Document& doc, std::size_t index,
                        const report::GraphReport& graph_report) {
  const auto& fusion = graph_report.fusion;
  const std::size_t size = fusion.post_grad.size();
  // The group a drawing shows each node in (drawn_owners): the DOT draws what the app does.
  const std::vector<int> owner = drawn_owners(fusion.ours, size);
  for (graph::NodeId id = 0; id < size; ++id) {
    if (owner[id] < 0) continue;
    const auto k = std::size_t(owner[id]);
    const auto& group = fusion.ours.groups[k];
    const double us =
        k < graph_report.ours.kernels.size() ? graph_report.ours.kernels[k].total_us : 0.0;
    doc.annotate(index, id, kKernelKey, group.name);
    doc.annotate(index, id, kKernelKindKey, std::string(fusion::to_string(group.kind)));
    doc.annotate(index, id, kFusionGroupKey, k);
    doc.annotate(index, id, kPredictedKey, us);
  }
  for (const auto& group : fusion.inductor.groups) {
    for (graph::NodeId id : group.nodes) {
      if (id < size) doc.annotate(index, id, kInductorKernelKey, group.name);
    }
  }
}

// The Dynamo graph (what the user wrote), each node with the kernels that compute it.
void add_dynamo_graph(graph::Document& doc, const PlannedUnit& planned) {
  const trace::Artifact* dynamo = planned.unit ? planned.unit->dynamo_graph() : nullptr;
  if (dynamo == nullptr) return;
  const std::string where =
      "[" + dynamo->id.str() + "] " + dynamo->name + " line " + std::to_string(dynamo->line);
  auto parsed = graph::parse_fx_readable(dynamo->payload.text(), where);
  const std::size_t index = doc.add_graph(planned.compile_id, "dynamo", std::move(parsed.graph));
  const graph::Graph& graph = doc.graphs()[index].graph;
  // Collected first and written once: a Dynamo node (an input, a parameter) may be computed
  // with hundreds of kernels, and rewriting its annotation per kernel would be quadratic.
  std::vector<std::vector<std::string>> kernels(graph.size());
  for (const auto& graph_report : planned.report.graphs) {
    const auto& groups = graph_report.fusion.ours.groups;
    for (std::size_t k = 0; k < groups.size() && k < graph_report.dynamo_nodes.size(); ++k) {
      for (const auto& name : graph_report.dynamo_nodes[k]) {
        if (const auto id = graph.find(name)) kernels[*id].push_back(groups[k].name);
      }
    }
  }
  for (graph::NodeId id = 0; id < graph.size(); ++id) {
    if (!kernels[id].empty()) doc.annotate(index, id, kKernelsKey, std::move(kernels[id]));
  }
}

}  // namespace

graph::Document unit_document(const PlannedUnit& planned) {
  graph::Document doc;
  add_dynamo_graph(doc, planned);
  double total_us = 0;
  std::size_t launches = 0;
  for (const auto& graph_report : planned.report.graphs) {
    graph::DocumentGraph entry;
    entry.label = graph_report.fusion.where;
    entry.compile_id = planned.compile_id;
    entry.level = "post_grad";
    entry.graph = graph_report.fusion.post_grad;
    const std::size_t index = doc.add_graph(std::move(entry));
    annotate_post_grad(doc, index, graph_report);
    total_us += graph_report.ours.total_us;
    launches += graph_report.fusion.ours.groups.size();
  }
  auto& meta = doc.metadata();
  meta["source"] = planned.log_path;
  meta["compile_id"] = planned.compile_id;
  meta["mode"] = std::string(fusion::to_string(planned.report.mode));
  meta["device"] = planned.device.name;
  meta["predicted_us"] = total_us;
  meta["launches"] = launches;
  meta["notes"] = planned.notes;
  meta["fxscope_version"] = FXSCOPE_VERSION;
  return doc;
}

}  // namespace fxscope::exporting
