#include "layout/document_canvas.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include "fxscope/export/dot_writer.h"
#include "fxscope/graph/graph_json.h"

namespace fxscope::views {
namespace {

fusion::GroupKind kind_named(const std::string& name) {
  for (auto kind :
       {fusion::GroupKind::pointwise, fusion::GroupKind::reduction,
        fusion::GroupKind::persistent_reduction, fusion::GroupKind::template_gemm,
        fusion::GroupKind::combo, fusion::GroupKind::extern_kernel, fusion::GroupKind::eager_op}) {
    if (fusion::to_string(kind) == name) return kind;
  }
  return fusion::GroupKind::pointwise;
}

}  // namespace

bool is_fxscope_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c)) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c == '{';
  }
  return false;
}

Result<graph::Document> read_document(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  auto doc = graph::parse_document(text.str());
  if (!doc) return make_error(path + ": " + doc.error().message);
  return doc;
}

CanvasGraphPtr document_canvas(const graph::Document& doc, std::size_t index) {
  auto out = std::make_shared<CanvasGraph>();
  if (index >= doc.size()) {
    out->problem = "the document has no graph " + std::to_string(index);
    return out;
  }
  const graph::DocumentGraph& entry = doc.graphs()[index];
  out->compile_id = entry.compile_id;
  out->where = entry.label;
  out->request.level = entry.level == "dynamo" ? GraphLevel::kDynamo : GraphLevel::kAten;
  out->graph = entry.graph;
  const exporting::DotGraph annotated = exporting::document_graph(entry);
  out->group_of.assign(out->graph.size(), -1);
  std::vector<int> shown_index(annotated.groups.size(), -1);
  for (graph::NodeId id = 0; id < out->graph.size(); ++id) {
    const int k = id < annotated.group_of.size() ? annotated.group_of[id] : -1;
    if (k < 0) continue;
    int& shown = shown_index[std::size_t(k)];
    if (shown < 0) {
      const exporting::DotGroup& g = annotated.groups[std::size_t(k)];
      shown = int(out->groups.size());
      CanvasGroup group;
      group.name = g.name;
      group.kind = kind_named(g.kind);
      group.predicted_us = g.predicted_us;
      out->groups.push_back(std::move(group));
    }
    out->groups[std::size_t(shown)].nodes.push_back(id);
    out->group_of[id] = shown;
  }
  if (out->graph.empty()) {
    out->problem = entry.label + " is empty";
    return out;
  }
  out->layout = layout_graph(layout_input(*out));
  out->notes.push_back("read from an fxscope JSON file");
  return out;
}

}  // namespace fxscope::views
