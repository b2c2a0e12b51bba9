#pragma once
// What the comparison marks on the shown ("before") log: each compile unit, and on the shown
// graph each node and kernel group, as added, removed or changed in the "after" log. Read from
// the engine's diff alone; nothing is compared here a second time.

#include <QColor>
#include <QString>
#include <cstddef>
#include <string>
#include <vector>

#include "fxscope/report/run_diff.h"
#include "layout/canvas_graph.h"

namespace fxscope::views {

enum class ChangeMark { none, added, removed, changed };

// "added", "removed", "changed", "" for none.
QString to_text(ChangeMark mark);
// Green, red, amber; a pale grey for what did not change, so that the marks stand out.
QColor mark_color(ChangeMark mark);

// A unit of the "before" log with compile id COMPILE_ID: removed when no unit of "after" pairs
// with it, changed when pair_changed.
ChangeMark unit_mark(const report::RunDiff& diff, const std::string& compile_id);
// PAIR's graph or kernels differ, or one side hit a break the other log lacks.
bool pair_changed(const report::RunDiff& diff, const report::UnitDiff& pair);

// The shown graph's marks: a node whose op "after" lacks is removed, one whose op "after" has a
// different count of is changed; a group is removed or changed as the diff names its kernel
// ("after" dropped it or fused it otherwise), else removed when all its nodes are, changed when
// some are marked. A unit only in "before" is removed whole. What only "after" has is listed.
struct GraphMarks {
  ChangeMark unit = ChangeMark::none;
  std::vector<ChangeMark> nodes;   // parallel to the graph's nodes
  std::vector<ChangeMark> groups;  // parallel to CanvasGraph::groups
  // What "after" has that this graph cannot draw: ops it has more of where this graph has none,
  // kernels it added ("aten.mul.Tensor x2", "triton_poi_fused_gelu_1").
  std::vector<std::string> only_after;
  std::size_t marked_nodes() const;
  std::size_t marked_groups() const;
};

GraphMarks build_graph_marks(const CanvasGraph& graph, const report::RunDiff& diff);

// For the inspector: "compared: torch.ops.aten.slice.Tensor 6 before, 4 after" when the diff
// counts node ID's op differently in its unit's pair; empty otherwise.
std::string node_change_text(const CanvasGraph& graph, const report::RunDiff& diff,
                             graph::NodeId id);

}  // namespace fxscope::views
