#pragma once
// What every export starts from: one compile unit of a log planned in one mode and priced on one
// device, with the notes a reader of the export needs (graph breaks, the recompile that made it).

#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/cost/device_spec.h"
#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/report/fuse_report.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::exporting {

// Which unit, mode and device an export shows. An empty unit means the first unit that has an
// ATen graph to plan.
struct ExportRequest {
  std::string unit;
  fusion::Mode mode = fusion::Mode::default_mode;
  cost::DeviceSpec device = default_device();

  // The canvas's device, so that exports and the app agree on predicted times.
  static cost::DeviceSpec default_device();
};

struct PlannedUnit {
  std::string log_path;
  std::string compile_id;                    // "0/0"
  const trace::CompileUnit* unit = nullptr;  // points into the log the plan was made from
  report::UnitFuseReport report;
  cost::DeviceSpec device;
  // One line each: "graph break at capture.py:83: Unsupported Tensor.item() call ...",
  // "recompiled: 0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16", "12 guards".
  std::vector<std::string> notes;
};

// Plans REQUEST's unit of LOG. An unknown unit, or a log without a plannable unit, is an Error
// naming the log and the ids it has.
Result<PlannedUnit> plan_unit(const trace::TraceLog& log, const ExportRequest& request);

}  // namespace fxscope::exporting
