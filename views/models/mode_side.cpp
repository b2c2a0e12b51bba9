#include "models/mode_side.h"

#include "fxscope/cost/device_spec.h"
#include "fxscope/report/fuse_report.h"

namespace fxscope::views {

Result<report::ModeSide> predicted_side(const LoadedLog& log, const std::string& unit_id,
                                        fusion::Mode mode) {
  const cost::DeviceSpec device = cost::find_device("H200").value_or(cost::known_devices().front());
  auto fuse = report::build_fuse_report(log.log, mode, unit_id, device,
                                        report::ModeCoverage::requested_mode_only);
  if (!fuse) return fuse.error();
  if (fuse->units.empty()) return make_error("nothing to plan in " + unit_id);
  const report::UnitFuseReport& unit = fuse->units[0];
  report::ModeSide side;
  report::RunMode& run = side.run;
  run.mode = std::string(fusion::to_string(mode));
  if (!unit.predicted.empty()) {
    run.total_us = unit.predicted[0].total_us;
    run.launches = double(unit.predicted[0].launches);
  }
  // Forward and backward together, as a run of the unit measures them.
  for (const report::GraphReport& graph : unit.graphs) {
    const auto& groups = graph.fusion.ours.groups;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      report::RunKernel kernel;
      kernel.name = groups[g].name;
      kernel.group = groups[g].name;
      if (g < graph.ours.kernels.size()) kernel.us = graph.ours.kernels[g].total_us;
      run.kernel_us += kernel.us;
      for (graph::NodeId id : groups[g].nodes) {
        if (id < graph.fusion.post_grad.size()) {
          kernel.nodes.push_back(graph.fusion.post_grad.node(id).name);
        }
      }
      run.kernels.push_back(std::move(kernel));
    }
  }
  return side;
}

Result<report::ModeSide> mode_side(const LoadedLog& log, const report::RunResult* run,
                                   const std::string& unit_id, fusion::Mode mode) {
  if (run != nullptr && run->unit == unit_id) {
    if (const report::RunMode* measured = run->find_mode(fusion::to_string(mode))) {
      return report::side_of(*measured);
    }
  }
  return predicted_side(log, unit_id, mode);
}

}  // namespace fxscope::views
