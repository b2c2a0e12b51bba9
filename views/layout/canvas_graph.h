#pragma once
// What the graph canvas shows for one request, built off the UI thread as one immutable value:
// the graph of a compile unit at a level, its nodes' kernel groups in a mode, and the layout.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/graph.h"
#include "fxscope/report/run_attribution.h"
#include "layout/graph_layout.h"
#include "layout/unit_cuts.h"
#include "window/loaded_log.h"

namespace fxscope::views {

// Which graph of the unit: what the user wrote, the ATen graph Inductor fuses, or, for a unit
// compiled for training, the backward ATen graph AOTAutograd made for it.
enum class GraphLevel { kDynamo, kAten, kAtenBackward };
// Whose kernel groups the clusters are.
enum class GroupSource { kFxscope, kInductor };

struct CanvasRequest {
  std::size_t unit = 0;  // index into the summary's (and the log's) units
  GraphLevel level = GraphLevel::kAten;
  GroupSource groups = GroupSource::kFxscope;
  fusion::Mode mode = fusion::Mode::default_mode;
};

// One kernel group drawn as a cluster.
struct CanvasGroup {
  std::string name;
  fusion::GroupKind kind = fusion::GroupKind::pointwise;
  double predicted_us = 0;
  std::vector<graph::NodeId> nodes;  // members on the shown graph; only groups with members
  // The post-grad node names the kernel runs, whatever the level shown: what a GPU run's
  // kernels name, so measured time finds its group on the Dynamo graph too.
  std::vector<std::string> aten_nodes;
  // Kernels drawn as this cluster: a kernel whose nodes all run in an earlier one (a split
  // reduction's second pass) has nothing of its own to enclose, so it joins that cluster; so does
  // a layout copy, with the convolution (or attention call) it copies for.
  std::size_t kernels = 1;
  // The plan's layout copies drawn in this cluster, by name: a GPU run's kernel of that name is
  // this cluster's time (the copy's nodes are only the origins Inductor names it after).
  std::vector<std::string> layout_copies;
  // Every kernel drawn as this cluster, as indices into the plan's groups (CanvasGraph::fusion),
  // its own first: what the Kernel source view generates.
  std::vector<std::size_t> plan_groups;
  // The same kernels by name (parallel to plan_groups): what a GPU run's kernels give as their
  // `group`, so a run's time finds the cluster its kernel is drawn in.
  std::vector<std::string> kernel_names;
};

struct CanvasGraph {
  CanvasRequest request;
  std::string compile_id;
  std::string where;  // which graph of the log: "[0/0] inductor_post_grad_graph line 12"
  graph::Graph graph;
  std::vector<int> group_of;  // per node: index into groups, -1 outside every group
  std::vector<CanvasGroup> groups;
  std::vector<std::string> op_text;           // per node: "addmm", "input x"
  std::vector<std::string> shape_text;        // per node: "f32[8, 64]"
  std::vector<GraphLayoutInput::Edge> edges;  // those drawn (exporting::draws_edge)
  GraphLayoutResult layout;                   // clusters parallel to groups
  std::vector<UnitCut> cuts;                  // graph breaks to the neighbouring units
  std::string problem;                        // why there is nothing to draw, when there is not
  std::vector<std::string> notes;             // for the status bar: layout engine, graphs left out
  double plan_ms = 0;
  std::size_t kernels = 0;  // launches of the plan shown; clusters may hold more than one
  // Every kernel of the plan shown, parallel to its groups (CanvasGroup::plan_groups index it):
  // what a GPU run's time lands on, as `compare` attributes it; a cluster's time is its kernels'.
  std::vector<report::AttributionGroup> run_groups;
  // The planned graph when the groups are fxscope's: the Kernel source view generates a
  // cluster's CUDA C from it when asked (null for Inductor's groups).
  std::shared_ptr<const fusion::GraphFusion> fusion;
};

// "triton_poi_fused_add_0  5.0 us": a group's title on its cluster.
std::string cluster_label(const CanvasGroup& group);

// OUT's boxes (filling its op_text and shape_text), drawn edges (filling its edges) and
// clusters, for the layout: what every canvas is laid out from.
GraphLayoutInput layout_input(CanvasGraph& out);

using CanvasGraphPtr = std::shared_ptr<const CanvasGraph>;

// Parses, plans, prices and lays out REQUEST's graph of LOG. Slow on big graphs: off the UI
// thread. Never fails: a unit without the graph gives an empty graph and a `problem`.
CanvasGraphPtr build_canvas_graph(const LoadedLog& log, const CanvasRequest& request,
                                  std::size_t dot_limit = kDotNodeLimit);

}  // namespace fxscope::views
