#pragma once
// The one rule by which a GPU run's kernel time lands on kernel groups: the heat overlay,
// `compare`, the A/B view and the exports all call attribute_run, so the app and the CLI give
// the same time to the same group of the same run.

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"
#include "fxscope/report/run_result.h"

namespace fxscope::report {

// A group measured time may land on: a planned kernel, a cluster of the canvas, a kernel of
// another mode.
struct AttributionGroup {
  // The kernels this group stands for, its own first: a run's kernel whose `group` is one of
  // them (and no other group's) is this group's own.
  std::vector<std::string> names;
  std::vector<std::string> nodes;  // post-grad node names
  // Names among NAMES that are layout copies: their nodes are only the origins Inductor names
  // them after, so the name alone places them.
  std::vector<std::string> layout_copies;
};

struct GroupTime {
  double us = 0;
  bool measured = false;             // some kernel's time landed here
  std::vector<std::size_t> kernels;  // indices into the mode's kernels, ascending
  // The kernel the run ran for this very group (its `group` is the group's first name), among
  // KERNELS: groups may share nodes, so not every kernel on its nodes is its own.
  std::optional<std::size_t> own;
};

struct RunAttribution {
  std::vector<GroupTime> groups;  // parallel to the groups given
  // Kernels none of whose time landed on a group (unattributed, or on nodes no group holds).
  std::vector<std::size_t> stray_kernels;
  // Attributed kernel time on nodes no group holds, and those nodes in the order met.
  double outside_us = 0;
  std::vector<std::string> outside_nodes;
  // The mode's kernel time attributed to no node (copies, kernels the run could not place).
  double unattributed_us = 0;
  // Each kernel's time shared evenly by its nodes: a node's own share, whatever its group.
  std::unordered_map<std::string, double> per_node;
};

// PLAN's kernels (planned on POST_GRAD) as groups, parallel to its groups: what `compare` and the
// heat overlay attribute a run to, so that both give a kernel the same time.
std::vector<AttributionGroup> plan_attribution_groups(const fusion::FusionPlan& plan,
                                                      const graph::Graph& post_grad);

// Where MODE's kernel time lands on GROUPS. A kernel goes whole to the group it was run for (its
// `group` names that group and its nodes are all the group's, or it is one of the group's layout
// copies); else whole to a group running exactly its nodes (a split reduction's kernels, several
// over one node set, take such groups in turn); else each node takes an even share, split evenly
// among the groups holding that node (a node recomputed by two groups), so the groups' times and
// OUTSIDE_US add up to the attributed kernel time with nothing counted twice.
RunAttribution attribute_run(const RunMode& mode, const std::vector<AttributionGroup>& groups);

}  // namespace fxscope::report
