#pragma once
// Time per kernel group of the shown graph, for the heat colouring, the legend, the Kernels tab
// and the inspector: measured where a GPU run of the same unit and mode names the group's
// post-grad nodes (report::attribute_run on the plan's kernels, as `compare` gives them), else
// the cost model's prediction, always marked as such.

#include <QColor>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fxscope/report/run_result.h"
#include "layout/canvas_graph.h"

namespace fxscope::views {

struct GroupHeat {
  double us = 0;
  bool measured = false;
  std::vector<std::size_t> kernels;  // the run's kernels (indices into the mode) on its nodes
  // The kernel the run ran for this very group (its `group` names it), among KERNELS: groups
  // may share nodes (a reduction recomputing a pointwise chain), so not every kernel on its
  // nodes is its own.
  std::optional<std::size_t> own;
};

struct HeatOverlay {
  std::vector<GroupHeat> groups;  // parallel to CanvasGraph::groups
  double max_us = 0;
  std::size_t measured_groups = 0;
  // The run's mode for this graph; null without a run of this unit and mode.
  const report::RunMode* mode = nullptr;
  std::string device;                      // the run's device, empty without one
  std::vector<std::size_t> stray_kernels;  // measured kernels on none of the shown groups
  // Measured us per post-grad node name: each kernel's time shared evenly by its nodes.
  std::unordered_map<std::string, double> per_node;
  // Why a run that exists is not shown ("the run is of unit 1/0"); empty otherwise.
  std::string mismatch;

  // One line for the legend: "measured on NVIDIA H200, default: 3 of 3 groups measured".
  std::string source() const;
};

// GRAPH's groups timed from RUN (may be null). RUN must outlive the overlay (it points into it).
HeatOverlay build_heat_overlay(const CanvasGraph& graph, const report::RunResult* run);

// The heat scale: FRACTION 0 (cool, pale yellow) to 1 (hot, dark red).
QColor heat_color(double fraction);

}  // namespace fxscope::views
