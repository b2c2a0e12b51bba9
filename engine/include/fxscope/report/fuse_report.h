#pragma once
// What `fxscope-cli fuse` shows: for each compile unit, the kernels fxscope's planner forms in one
// mode beside the kernels Inductor generated, each with its predicted time on a device, the
// agreement of the two, and the predicted time and speedup of every mode.

#include <optional>
#include <string>
#include <vector>

#include "fxscope/cost/device_spec.h"
#include "fxscope/cost/roofline.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::report {

// One mode's predicted cost of a whole unit (forward and backward together).
struct ModePrediction {
  fusion::Mode mode = fusion::Mode::eager;
  std::size_t launches = 0;
  double total_us = 0;
  double speedup_over_eager = 0;  // eager total / this total
  bool cuda_graphs = false;       // replayed from a CUDA graph (reduce-overhead, max-autotune)
  // Where the mode wants CUDA graphs: why they cannot be used, or what limits them ("dynamic
  // shapes: a new input shape records a new CUDA graph").
  std::vector<std::string> cuda_graph_notes;
};

// One post-grad graph of a unit planned in the requested mode, with every group's cost.
struct GraphReport {
  fusion::GraphFusion fusion;
  cost::ModeCost ours;      // parallel to fusion.ours.groups
  cost::ModeCost inductor;  // parallel to fusion.inductor.groups
  // For each of our groups, the Dynamo nodes (the user's own ops) it computes, by name: how the
  // fusion is drawn on the graph the user wrote. Empty where the log does not tell.
  std::vector<std::vector<std::string>> dynamo_nodes;
};

// One compile unit.
struct UnitFuseReport {
  std::string compile_id;
  fusion::Mode mode = fusion::Mode::default_mode;
  std::vector<GraphReport> graphs;
  std::vector<ModePrediction> predicted;  // kAllModes order (only MODE under requested_mode_only)
  std::vector<cost::ClassShare> shares;   // op-class shares of the requested mode
};

struct FuseReport {
  std::string path;
  cost::DeviceSpec device;
  std::vector<UnitFuseReport> units;
  Warnings warnings;
};

// Turns a planned group into the work the cost model prices (class from its kind and ops,
// precision from its output's dtype; its shape class from its sizes and the plan's MODE).
cost::KernelWork kernel_work(const fusion::KernelGroup& group, const graph::Graph& graph,
                             fusion::Mode mode);

// Which modes a report predicts: every mode (the CLI's per-mode summary, 4 more plans per unit)
// or only the requested one (the GUI re-plans on each selection and shows that mode alone).
enum class ModeCoverage { every_mode, requested_mode_only };

// Plans UNIT_ID (every unit when empty) of LOG in MODE and prices it on DEVICE. An unknown
// unit id is an Error naming it and the ids there are.
Result<FuseReport> build_fuse_report(const trace::TraceLog& log, fusion::Mode mode,
                                     const std::string& unit_id, const cost::DeviceSpec& device,
                                     ModeCoverage coverage = ModeCoverage::every_mode);

}  // namespace fxscope::report
