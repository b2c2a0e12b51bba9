#include "fxscope/export/dot_writer.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <string_view>

#include "fxscope/export/cluster_closure.h"
#include "fxscope/export/unit_document.h"

namespace fxscope::exporting {
namespace {

// A DOT double-quoted string; newlines in TEXT become DOT's centred line breaks.
std::string dot_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c != '\r') {
      out += c;
    }
  }
  return out + "\"";
}

std::string us_text(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f us", us);
  return text;
}

// A pale fill per group, hues spread by the golden angle so neighbours differ; extern kernels
// (cuBLAS, cuDNN) are grey, as on the app's canvas.
std::string group_fill(const DotGroup& group, std::size_t index) {
  if (group.kind == "extern") return "0 0 0.88";
  const double hue = std::fmod(0.08 + double(index) * 0.618034, 1.0);
  char text[48];
  std::snprintf(text, sizeof text, "%.3f 0.22 1.0", hue);
  return text;
}

std::string node_id(std::size_t graph, std::size_t node) {
  return "g" + std::to_string(graph) + "_n" + std::to_string(node);
}

void write_node(std::string& out, std::size_t g, const graph::Graph& graph, graph::NodeId id,
                const std::string& note, const std::string& indent) {
  const graph::Node& node = graph.node(id);
  std::string label = node.name;
  const std::string op = node_op_text(node);
  if (!op.empty() && op != node.name) label += "\n" + op;
  const std::string shape = node_shape_text(node);
  if (!shape.empty()) label += "\n" + shape;
  if (!note.empty()) label += "\n" + note;
  if (!note.empty() && node.op == graph::OpKind::output) {
    out += indent + "{ rank=sink; " + node_id(g, id) + " }\n";
  }
  out += indent + node_id(g, id) + " [label=" + dot_string(label) +
         ", tooltip=" + dot_string(node.target);
  if (node.op == graph::OpKind::placeholder || node.op == graph::OpKind::output) {
    out += ", shape=ellipse";
  }
  out += "];\n";
}

void write_graph(std::string& out, std::size_t g, const DotGraph& dg, bool own_cluster) {
  const std::string indent = own_cluster ? "    " : "  ";
  if (own_cluster) {
    std::string label = dg.title;
    for (const auto& note : dg.notes) label += "\n" + note;
    out += "  subgraph cluster_graph" + std::to_string(g) + " {\n    label=" + dot_string(label) +
           ";\n    style=dashed;\n";
  }
  const graph::Graph& graph = *dg.graph;
  const std::vector<std::string> notes = undrawn_edge_notes(graph);
  std::vector<std::vector<graph::NodeId>> members(dg.groups.size());
  for (graph::NodeId id = 0; id < graph.size(); ++id) {
    const int group = id < dg.group_of.size() ? dg.group_of[id] : -1;
    if (group >= 0 && std::size_t(group) < members.size()) {
      members[std::size_t(group)].push_back(id);
    } else {
      write_node(out, g, graph, id, notes[id], indent);
    }
  }
  for (std::size_t k = 0; k < dg.groups.size(); ++k) {
    if (members[k].empty()) continue;
    const DotGroup& group = dg.groups[k];
    out += indent + "subgraph cluster_g" + std::to_string(g) + "_k" + std::to_string(k) + " {\n";
    out +=
        indent + "  label=" +
        dot_string(group.name + "\n" + group.kind + ", predicted " + us_text(group.predicted_us)) +
        ";\n";
    out += indent + "  style=\"filled,rounded\";\n" + indent +
           "  fillcolor=" + dot_string(group_fill(group, k)) + ";\n";
    for (graph::NodeId id : members[k]) write_node(out, g, graph, id, notes[id], indent + "  ");
    out += indent + "}\n";
  }
  for (graph::NodeId id = 0; id < graph.size(); ++id) {
    for (graph::NodeId from : graph.inputs(id)) {
      if (!draws_edge(graph, notes, from, id)) continue;
      out += indent + node_id(g, from) + " -> " + node_id(g, id) + ";\n";
    }
  }
  if (own_cluster) out += "  }\n";
}

const nlohmann::json* annotation(const graph::DocumentGraph& entry, graph::NodeId id,
                                 const char* key) {
  const auto it = entry.annotations.find(id);
  if (it == entry.annotations.end() || !it->second.is_object()) return nullptr;
  const auto value = it->second.find(key);
  return value == it->second.end() ? nullptr : &*value;
}

}  // namespace

DotGraph document_graph(const graph::DocumentGraph& entry) {
  DotGraph dg;
  dg.title = entry.label;
  dg.graph = &entry.graph;
  dg.group_of.assign(entry.graph.size(), -1);
  for (graph::NodeId id = 0; id < entry.graph.size(); ++id) {
    const nlohmann::json* index = annotation(entry, id, kFusionGroupKey);
    if (index == nullptr || !index->is_number_unsigned()) continue;
    const std::size_t k = index->get<std::size_t>();
    // An index far beyond the node count is not a group of this graph.
    if (k > entry.graph.size()) continue;
    if (k >= dg.groups.size()) dg.groups.resize(k + 1);
    DotGroup& group = dg.groups[k];
    if (const auto* name = annotation(entry, id, kKernelKey); name && name->is_string()) {
      group.name = name->get<std::string>();
    }
    if (const auto* kind = annotation(entry, id, kKernelKindKey); kind && kind->is_string()) {
      group.kind = kind->get<std::string>();
    }
    if (const auto* us = annotation(entry, id, kPredictedKey); us && us->is_number()) {
      group.predicted_us = us->get<double>();
    }
    dg.group_of[id] = int(k);
  }
  dg.group_of = drawn_clusters(entry.graph, std::move(dg.group_of));
  return dg;
}

std::vector<std::string> undrawn_edge_notes(const graph::Graph& graph) {
  std::vector<std::string> notes(graph.size());
  const auto users = graph.users();
  for (graph::NodeId id = 0; id < graph.size(); ++id) {
    const graph::Node& node = graph.node(id);
    const std::size_t inputs = graph.inputs(id).size();
    if (node.op == graph::OpKind::output && inputs > kMostDrawnEdges) {
      notes[id] = "returns " + std::to_string(inputs) + " values";
    } else if (node.meta && node.meta->is_sym_scalar() && users[id].size() > kMostDrawnEdges) {
      notes[id] = "read by " + std::to_string(users[id].size()) + " nodes";
    }
  }
  return notes;
}

bool draws_edge(const graph::Graph& graph, const std::vector<std::string>& notes,
                graph::NodeId from, graph::NodeId to) {
  const bool into_output = to < notes.size() && !notes[to].empty();
  const bool from_size =
      from < notes.size() && !notes[from].empty() && graph.node(from).op != graph::OpKind::output;
  return !(into_output && graph.node(to).op == graph::OpKind::output) && !from_size;
}

std::string node_op_text(const graph::Node& node) {
  switch (node.op) {
    case graph::OpKind::placeholder:
      return "input";
    case graph::OpKind::output:
      return "output";
    case graph::OpKind::get_attr:
      return "attr";
    default:
      break;
  }
  // torch.ops.aten.addmm.default -> addmm.default: the overload tells which kernel runs.
  std::string_view target = node.target;
  for (std::string_view prefix : {"torch.ops.aten.", "torch.ops.", "torch._C._nn.", "torch."}) {
    if (target.starts_with(prefix)) {
      target.remove_prefix(prefix.size());
      break;
    }
  }
  return std::string(target);
}

std::string node_shape_text(const graph::Node& node) {
  if (!node.meta) return {};
  if (node.meta->is_sym_scalar()) return "Sym(" + node.meta->sym + ")";
  std::string text = node.meta->dtype + "[";
  for (std::size_t i = 0; i < node.meta->sizes.size(); ++i) {
    text += (i ? ", " : "") + node.meta->sizes[i].to_string();
  }
  return text + "]";
}

std::string write_dot(const std::vector<DotGraph>& graphs, const std::string& title) {
  std::string out = "digraph fxscope {\n";
  out += "  graph [rankdir=TB, nodesep=0.25, ranksep=0.35, fontname=\"Helvetica\", labelloc=t";
  const bool nested = graphs.size() > 1;
  std::string label = title;
  if (!nested && !graphs.empty()) {
    label += (label.empty() ? "" : "\n") + graphs.front().title;
    for (const auto& note : graphs.front().notes) label += "\n" + note;
  }
  if (!label.empty()) out += ", label=" + dot_string(label);
  out += "];\n";
  out +=
      "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\", "
      "fontsize=10];\n";
  out += "  edge [arrowsize=0.6];\n";
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    if (graphs[g].graph != nullptr) write_graph(out, g, graphs[g], nested);
  }
  return out + "}\n";
}

std::vector<DotGraph> dot_graphs(const graph::Document& doc) {
  std::vector<DotGraph> out;
  const auto& meta = doc.metadata();
  for (const auto& entry : doc.graphs()) {
    if (entry.level == "post_grad") out.push_back(document_graph(entry));
  }
  if (out.empty()) {
    for (const auto& entry : doc.graphs()) out.push_back(document_graph(entry));
  }
  // The mode and device the groups were planned for belong in every title.
  std::string planned_for;
  if (const auto mode = meta.find("mode"); mode != meta.end() && mode->is_string()) {
    planned_for = ", mode " + mode->get<std::string>();
  }
  if (const auto device = meta.find("device"); device != meta.end() && device->is_string()) {
    planned_for += " on " + device->get<std::string>();
  }
  for (auto& dg : out) dg.title += planned_for;
  if (const auto notes = meta.find("notes");
      notes != meta.end() && notes->is_array() && !out.empty()) {
    for (const auto& note : *notes) {
      if (note.is_string()) out.front().notes.push_back(note.get<std::string>());
    }
  }
  return out;
}

std::string document_dot(const graph::Document& doc) {
  return write_dot(dot_graphs(doc));
}

}  // namespace fxscope::exporting
