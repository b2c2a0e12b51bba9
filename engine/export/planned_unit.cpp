#include "fxscope/export/planned_unit.h"

#include <utility>

namespace fxscope::exporting {
namespace {

// The first unit whose fusion has a graph to draw: units that only hit a graph break before
// tracing anything have none.
std::string first_plannable_unit(const trace::TraceLog& log) {
  for (const auto& unit : log.units()) {
    if (unit.find(trace::ArtifactKind::kPostGradGraph) || unit.aot_graph()) {
      return unit.id.without_attempt().str();
    }
  }
  return {};
}

std::vector<std::string> unit_notes(const trace::TraceLog& log, const trace::CompileUnit& unit) {
  std::vector<std::string> notes;
  for (std::size_t b : unit.graph_breaks) {
    if (b >= log.graph_breaks().size()) continue;
    const auto& gb = log.graph_breaks()[b];
    notes.push_back("graph break at " + gb.location() + ": " + gb.reason);
  }
  if (unit.recompile && *unit.recompile < log.recompiles().size()) {
    for (const auto& reason : log.recompiles()[*unit.recompile].reasons) {
      notes.push_back("recompiled: " + reason.failed_id.str() + ": " + reason.text);
    }
  }
  if (unit.metrics && unit.metrics->guard_count) {
    notes.push_back(std::to_string(*unit.metrics->guard_count) + " guards");
  }
  return notes;
}

}  // namespace

cost::DeviceSpec ExportRequest::default_device() {
  return cost::find_device("H200").value_or(cost::known_devices().front());
}

Result<PlannedUnit> plan_unit(const trace::TraceLog& log, const ExportRequest& request) {
  const std::string id = request.unit.empty() ? first_plannable_unit(log) : request.unit;
  if (id.empty()) return make_error(log.path() + ": no compile unit has an ATen graph to export");
  auto report = report::build_fuse_report(log, request.mode, id, request.device,
                                          report::ModeCoverage::requested_mode_only);
  if (!report) return report.error();
  if (report->units.empty() || report->units.front().graphs.empty()) {
    return make_error(log.path() + ": compile unit " + id + " has no ATen graph to export");
  }
  PlannedUnit planned;
  planned.log_path = log.path();
  planned.compile_id = id;
  planned.device = request.device;
  planned.report = std::move(report->units.front());
  for (const auto& unit : log.units()) {
    if (unit.id.without_attempt().str() != id) continue;
    planned.unit = &unit;
    planned.notes = unit_notes(log, unit);
    break;
  }
  return planned;
}

}  // namespace fxscope::exporting
