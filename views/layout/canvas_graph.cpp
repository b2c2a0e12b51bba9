#include "layout/canvas_graph.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>

#include "fxscope/cost/device_spec.h"
#include "fxscope/export/cluster_closure.h"
#include "fxscope/export/dot_writer.h"
#include "fxscope/fusion/source_map.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/inductor/provenance.h"
#include "fxscope/report/fuse_report.h"

namespace fxscope::views {
namespace {

// "torch.ops.aten.addmm.default" -> "addmm"; "torch._C._nn.linear" -> "linear".
std::string short_target(const graph::Node& node) {
  switch (node.op) {
    case graph::OpKind::placeholder:
      return "input " + node.name;
    case graph::OpKind::output:
      return "output";
    case graph::OpKind::get_attr:
      return "attr " + node.name;
    default:
      break;
  }
  // torch.ops.NAMESPACE.OP.OVERLOAD names the op second to last, whatever the overload
  // (sum.dim_IntList, var_mean.correction); other targets (operator.getitem,
  // torch.ops.higher_order.cond) name it last.
  std::string_view target = node.target;
  if (target.starts_with("torch.ops.")) {
    target.remove_prefix(std::string_view("torch.ops.").size());
    const auto first = target.find('.');
    const auto second = first == std::string_view::npos ? first : target.find('.', first + 1);
    if (second != std::string_view::npos)
      return std::string(target.substr(first + 1, second - first - 1));
  }
  const auto dot = target.rfind('.');
  return std::string(dot == std::string_view::npos ? target : target.substr(dot + 1));
}

// The cluster already drawn around one of NODES (post-grad ids; on the Dynamo graph, around a
// node one of them came from); -1 when none is.
int drawn_cluster_of(const CanvasGraph& out, const std::vector<graph::NodeId>& nodes,
                     const std::vector<std::vector<graph::NodeId>>* to_dynamo) {
  for (graph::NodeId id : nodes) {
    if (to_dynamo == nullptr) {
      if (id < out.group_of.size() && out.group_of[id] >= 0) return out.group_of[id];
    } else if (id < to_dynamo->size()) {
      for (graph::NodeId d : (*to_dynamo)[id]) {
        if (d < out.group_of.size() && out.group_of[d] >= 0) return out.group_of[d];
      }
    }
  }
  return -1;
}

// The groups of PLAN on GRAPH: on the ATen graph its own nodes, on the Dynamo graph the nodes
// each ATen node came from (a Dynamo node in several groups stays in the first).
void assign_groups(CanvasGraph& out, const fusion::FusionPlan& plan, const cost::ModeCost& cost,
                   const graph::Graph& post_grad,
                   const std::vector<std::vector<graph::NodeId>>* to_dynamo) {
  out.group_of.assign(out.graph.size(), -1);
  // Which group each post-grad node is drawn in, as the DOT export draws it.
  const std::vector<int> owner = exporting::drawn_owners(plan, post_grad.size());
  // Groups that own none of their nodes, drawn with the cluster of one of them once all are.
  std::vector<std::pair<std::size_t, CanvasGroup>> owning_nothing;
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    const fusion::KernelGroup& group = plan.groups[g];
    // A layout copy is drawn below, with what it copies for; one of a graph input, which names
    // no node, here on the ATen graph, as a cluster of its own around the input
    // (exporting::drawn_owners).
    const bool copy = fusion::is_layout_copy(group);
    if (copy && (!group.nodes.empty() || to_dynamo != nullptr)) continue;
    CanvasGroup shown{
        group.name, group.kind, g < cost.kernels.size() ? cost.kernels[g].total_us : 0.0,
        {},         {},         1,
        {},         {g},        {group.name}};
    if (copy) shown.layout_copies.push_back(group.name);
    for (graph::NodeId id : group.nodes) {
      if (id < post_grad.size()) shown.aten_nodes.push_back(post_grad.node(id).name);
    }
    for (graph::NodeId id : group.drawn_nodes()) {
      if (id >= owner.size() || owner[id] != int(g)) continue;
      if (to_dynamo == nullptr) {
        if (id < out.group_of.size() && out.group_of[id] < 0) shown.nodes.push_back(id);
      } else if (id < to_dynamo->size()) {
        for (graph::NodeId d : (*to_dynamo)[id]) {
          if (d < out.group_of.size() && out.group_of[d] < 0) shown.nodes.push_back(d);
        }
      }
    }
    std::sort(shown.nodes.begin(), shown.nodes.end());
    shown.nodes.erase(std::unique(shown.nodes.begin(), shown.nodes.end()), shown.nodes.end());
    if (!shown.nodes.empty()) {
      for (graph::NodeId member : shown.nodes) out.group_of[member] = int(out.groups.size());
      out.groups.push_back(std::move(shown));
    } else {
      owning_nothing.emplace_back(g, std::move(shown));
    }
  }
  for (auto& [g, shown] : owning_nothing) {
    const fusion::KernelGroup& group = plan.groups[g];
    if (const int host = drawn_cluster_of(out, group.nodes, to_dynamo); host >= 0) {
      // Every node is drawn in another kernel's cluster (it runs in an earlier kernel too):
      // this one is drawn with it, not dropped.
      CanvasGroup& joined = out.groups[std::size_t(host)];
      joined.kernels += 1;
      joined.plan_groups.push_back(g);
      joined.kernel_names.push_back(group.name);
      joined.predicted_us += shown.predicted_us;
      // Its nodes are the host's already: listed once, so measured time per node (summed over
      // the group's nodes for the overlay) is not counted twice.
      for (std::string& name : shown.aten_nodes) {
        if (std::find(joined.aten_nodes.begin(), joined.aten_nodes.end(), name) ==
            joined.aten_nodes.end()) {
          joined.aten_nodes.push_back(std::move(name));
        }
      }
    }
  }
  // A layout copy computes none of the nodes it is named after (the convolution's or attention
  // call's origins): drawn as a cluster of its own it would take the convolution and its input's
  // batch norm away from their kernels. It joins the cluster of the op it copies for.
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    const fusion::KernelGroup& group = plan.groups[g];
    if (!fusion::is_layout_copy(group)) continue;
    if (group.nodes.empty()) continue;     // a copy of a graph input: a cluster of its own, above
    std::vector<graph::NodeId> consumers;  // the convolution or attention call among its origins
    for (graph::NodeId id : group.nodes) {
      if (id >= post_grad.size()) continue;
      const ops::OpClass c = ops::classify(post_grad.node(id).target).op_class;
      if (c == ops::OpClass::conv || c == ops::OpClass::attention) consumers.push_back(id);
    }
    int host = drawn_cluster_of(out, consumers, to_dynamo);
    if (host < 0) host = drawn_cluster_of(out, group.nodes, to_dynamo);
    if (host < 0) continue;
    CanvasGroup& joined = out.groups[std::size_t(host)];
    joined.kernels += 1;
    joined.plan_groups.push_back(g);
    joined.kernel_names.push_back(group.name);
    joined.predicted_us += g < cost.kernels.size() ? cost.kernels[g].total_us : 0.0;
    joined.layout_copies.push_back(group.name);
  }
  // The clusters dot can rank in the graph's order (exporting::drawn_clusters says why): a node
  // between two members of one cluster joins it, and a cluster that a path leaves and re-enters
  // keeps its larger part. Each group's members follow.
  out.group_of = exporting::drawn_clusters(out.graph, std::move(out.group_of));
  for (CanvasGroup& group : out.groups) group.nodes.clear();
  for (graph::NodeId id = 0; id < out.group_of.size(); ++id) {
    if (out.group_of[id] >= 0) out.groups[std::size_t(out.group_of[id])].nodes.push_back(id);
  }
}

}  // namespace

std::string cluster_label(const CanvasGroup& group) {
  char us[32];
  std::snprintf(us, sizeof us, "%.1f us", group.predicted_us);
  const std::string more =
      group.kernels > 1 ? " +" + std::to_string(group.kernels - 1) + " kernel" : std::string();
  return group.name + more + "  " + us;
}

GraphLayoutInput layout_input(CanvasGraph& out) {
  GraphLayoutInput input;
  const std::vector<std::string> notes = exporting::undrawn_edge_notes(out.graph);
  for (graph::NodeId id = 0; id < out.graph.size(); ++id) {
    const graph::Node& node = out.graph.node(id);
    out.op_text.push_back(short_target(node));
    std::string shape = exporting::node_shape_text(node);
    if (!notes[id].empty()) shape += (shape.empty() ? "" : ", ") + notes[id];
    out.shape_text.push_back(std::move(shape));
    const std::size_t chars = std::max(out.op_text.back().size(), out.shape_text.back().size());
    input.nodes.push_back(node_box(chars));
    if (!notes[id].empty() && node.op == graph::OpKind::output) input.bottom.push_back(id);
    for (graph::NodeId from : out.graph.inputs(id)) {
      if (exporting::draws_edge(out.graph, notes, from, id)) out.edges.push_back({from, id});
    }
  }
  input.edges = out.edges;
  for (const CanvasGroup& group : out.groups) {
    input.clusters.emplace_back(group.nodes.begin(), group.nodes.end());
    input.cluster_labels.push_back(cluster_label(group));
  }
  return input;
}

CanvasGraphPtr build_canvas_graph(const LoadedLog& log, const CanvasRequest& request,
                                  std::size_t dot_limit) {
  auto out = std::make_shared<CanvasGraph>();
  out->request = request;
  const auto& units = log.log.units();
  if (request.unit >= units.size()) {
    out->problem = "no compile unit " + std::to_string(request.unit);
    return out;
  }
  const trace::CompileUnit& unit = units[request.unit];
  out->compile_id = unit.id.without_attempt().str();
  out->cuts = unit_cuts(log.summary, request.unit);

  const auto start = std::chrono::steady_clock::now();
  const cost::DeviceSpec device = cost::find_device("H200").value_or(cost::known_devices().front());
  // The canvas shows one mode: predicting the other three would plan the unit three more times.
  auto report = report::build_fuse_report(log.log, request.mode, out->compile_id, device,
                                          report::ModeCoverage::requested_mode_only);
  out->plan_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!report || report->units.empty() || report->units[0].graphs.empty()) {
    out->problem = report ? "nothing to plan in " + out->compile_id : report.error().message;
    return out;
  }
  // A training unit plans two post-grad graphs, forward then backward.
  const auto& graphs = report->units[0].graphs;
  const bool backward = request.level == GraphLevel::kAtenBackward;
  if (backward && graphs.size() < 2) {
    out->problem = "compile unit " + out->compile_id +
                   " has no backward graph: it was compiled for inference (no input needed a "
                   "gradient)";
    return out;
  }
  const report::GraphReport& graph_report = graphs[backward ? 1 : 0];
  const fusion::GraphFusion& fusion = graph_report.fusion;
  if (!backward && graphs.size() > 1) {
    out->notes.push_back("the backward graph is under Level > ATen graph, backward");
  }
  const bool inductor = request.groups == GroupSource::kInductor;
  const fusion::FusionPlan& plan = inductor ? fusion.inductor : fusion.ours;
  const cost::ModeCost& cost = inductor ? graph_report.inductor : graph_report.ours;
  if (inductor && plan.groups.empty()) out->notes.push_back("no Inductor kernels in the log");
  // The planner's own gaps (an op it does not know, planned as a kernel of its own) change what
  // the groups mean: the status bar says so rather than drawing them as if all were known.
  out->notes.insert(out->notes.end(), plan.notes.begin(), plan.notes.end());
  out->kernels = plan.launches();
  out->run_groups = report::plan_attribution_groups(plan, fusion.post_grad);

  if (request.level != GraphLevel::kDynamo) {
    out->where = fusion.where;
    out->graph = fusion.post_grad;
    assign_groups(*out, plan, cost, fusion.post_grad, nullptr);
  } else {
    const trace::Artifact* dynamo = unit.dynamo_graph();
    if (dynamo == nullptr) {
      out->problem = "compile unit " + out->compile_id + " has no Dynamo graph in the log";
      return out;
    }
    out->where =
        "[" + dynamo->id.str() + "] " + dynamo->name + " line " + std::to_string(dynamo->line);
    out->graph = graph::parse_fx_readable(dynamo->payload.text(), out->where).graph;
    // Inductor's provenance names the Dynamo node of each ATen node; without it the mapping
    // falls back to source lines, which one line of user code shares among many nodes.
    std::optional<inductor::Provenance> provenance;
    if (const trace::Artifact* p = unit.find(trace::ArtifactKind::kProvenanceMappings)) {
      auto parsed = inductor::parse_provenance(p->payload.text(), p->name);
      if (parsed) provenance = std::move(*parsed);
    }
    const auto to_dynamo =
        fusion::map_to_dynamo(fusion.post_grad, out->graph, provenance ? &*provenance : nullptr);
    assign_groups(*out, plan, cost, fusion.post_grad, &to_dynamo);
  }
  if (out->graph.empty()) {
    // A backend that logs no ATen graph (eager, aot_eager, a custom one) leaves only Dynamo's.
    const bool only_dynamo = request.level != GraphLevel::kDynamo && unit.aot_graphs().empty() &&
                             unit.find(trace::ArtifactKind::kPostGradGraph) == nullptr &&
                             unit.dynamo_graph() != nullptr;
    out->problem = only_dynamo ? "compile unit " + out->compile_id +
                                     " has no ATen graph in the log (its backend logged none): "
                                     "Level > Dynamo graph shows its Dynamo graph"
                               : "the graph of " + out->compile_id + " is empty";
    return out;
  }
  out->layout = layout_graph(layout_input(*out), dot_limit);
  // The report is done with: its planned graph moves to the canvas for the Kernel source view.
  if (!inductor) {
    out->fusion = std::make_shared<const fusion::GraphFusion>(
        std::move(report->units[0].graphs[backward ? 1 : 0].fusion));
  }
  return out;
}

}  // namespace fxscope::views
