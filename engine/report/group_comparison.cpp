#include "fxscope/report/group_comparison.h"

#include <algorithm>

#include "fxscope/report/run_attribution.h"

namespace fxscope::report {
namespace {

constexpr const char* kOutsidePlan = "(nodes outside the plan)";
constexpr const char* kUnattributed = "(unattributed kernels)";

// The measured column of RUN in MODE; null when the mode was not measured (WHY says so).
const RunMode* fill_column(const MeasuredRun& source, const std::string& backend,
                           const std::string& mode, MeasuredColumn& column) {
  if (!source.run) {
    column.why_absent = source.why_absent;
    return nullptr;
  }
  const RunMode* m = source.run->find_mode(mode);
  if (!m) {
    column.why_absent = backend + ": the run has no mode " + mode;
    return nullptr;
  }
  column.present = true;
  column.device = source.run->device;
  column.torch_version = source.run->torch_version;
  column.kernel_us = m->kernel_us;
  column.total_us = m->total_us;
  column.launches = m->launches;
  column.attributed_share = m->kernel_us > 0 ? m->attributed_us / m->kernel_us : 0.0;
  column.cuda_graph_share = m->cuda_graph_share();
  return m;
}

// MEASURED's kernel time on the rows (MEMBER selects the column; GROUPS are the rows' kernels) by
// the one attribution rule; then what no row holds: nodes outside the plan, and kernels attributed
// to no node.
void distribute(const RunMode& measured, const std::vector<AttributionGroup>& groups,
                std::optional<double> CompareRow::*member, std::vector<CompareRow>& rows,
                CompareRow& outside, CompareRow& unattributed) {
  const RunAttribution attribution = attribute_run(measured, groups);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].*member = attribution.groups[i].us;
  for (const std::string& node : attribution.outside_nodes) {
    if (std::find(outside.nodes.begin(), outside.nodes.end(), node) == outside.nodes.end()) {
      outside.nodes.push_back(node);
    }
  }
  outside.*member = attribution.outside_us;
  unattributed.*member = attribution.unattributed_us;
}

std::optional<Error> wrong_unit(const MeasuredRun& source, const std::string& backend,
                                const std::string& unit) {
  if (source.run && !source.run->unit.empty() && source.run->unit != unit) {
    return make_error(backend + " run: it ran unit " + source.run->unit + ", not unit " + unit);
  }
  return std::nullopt;
}

bool any_time(const CompareRow& row) {
  const auto positive = [](const std::optional<double>& v) { return v && *v > 0.005; };
  return positive(row.engine_us) || positive(row.pytorch_us);
}

// How far the rows' predictions land from MEMBER's times, over the unit's first (forward) graph:
// the one a run re-runs.
cost::PredictionError prediction_error_of(const std::vector<CompareRow>& rows,
                                          std::optional<double> CompareRow::*member,
                                          double measured_kernel_us) {
  std::vector<cost::PredictedMeasured> pairs;
  double predicted = 0;
  for (const auto& r : rows) {
    if (!r.predicted_us || r.graph != rows.front().graph) continue;
    predicted += *r.predicted_us;
    if (const auto& v = r.*member; v) pairs.push_back({*r.predicted_us, *v});
  }
  return cost::prediction_error(pairs, predicted, measured_kernel_us);
}

}  // namespace

Result<Comparison> compare_unit(const FuseReport& fuse, const std::string& mode,
                                const MeasuredRun& engine, const MeasuredRun& pytorch) {
  if (fuse.units.size() != 1) {
    return make_error(fuse.path + ": compare needs exactly one compile unit (use --unit)");
  }
  const UnitFuseReport& unit = fuse.units.front();
  if (auto e = wrong_unit(engine, "engine", unit.compile_id)) return *e;
  if (auto e = wrong_unit(pytorch, "pytorch", unit.compile_id)) return *e;
  Comparison c;
  c.path = fuse.path;
  c.unit = unit.compile_id;
  c.mode = mode;
  c.device = fuse.device.name;
  std::vector<AttributionGroup> kernels;  // parallel to the rows
  for (const GraphReport& g : unit.graphs) {
    const auto planned = plan_attribution_groups(g.fusion.ours, g.fusion.post_grad);
    kernels.insert(kernels.end(), planned.begin(), planned.end());
    const auto& groups = g.fusion.ours.groups;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      CompareRow& row = c.rows.emplace_back();
      row.graph = g.fusion.where;
      row.group = groups[i].name;
      row.kind = std::string(fusion::to_string(groups[i].kind));
      for (const auto id : groups[i].nodes) row.nodes.push_back(g.fusion.post_grad.node(id).name);
      if (i < g.dynamo_nodes.size()) row.dynamo_nodes = g.dynamo_nodes[i];
      if (i < g.ours.kernels.size()) {
        row.predicted_us = g.ours.kernels[i].device_us;
        c.predicted_kernel_us += g.ours.kernels[i].device_us;
      }
    }
  }
  if (unit.graphs.size() > 1) {
    c.notes.push_back("the unit has " + std::to_string(unit.graphs.size()) +
                      " graphs (forward and backward); a run re-runs its forward graph only");
  }
  for (const ModePrediction& p : unit.predicted) {
    if (fusion::to_string(p.mode) != mode) continue;
    c.predicted_total_us = p.total_us;
    c.predicted_launches = static_cast<double>(p.launches);
  }
  CompareRow outside;
  outside.group = kOutsidePlan;
  CompareRow unattributed;
  unattributed.group = kUnattributed;
  if (const auto* m = fill_column(engine, "engine", mode, c.engine)) {
    distribute(*m, kernels, &CompareRow::engine_us, c.rows, outside, unattributed);
  }
  if (const auto* m = fill_column(pytorch, "pytorch", mode, c.pytorch)) {
    distribute(*m, kernels, &CompareRow::pytorch_us, c.rows, outside, unattributed);
  }
  if (c.engine.present) {
    c.engine.prediction_error =
        prediction_error_of(c.rows, &CompareRow::engine_us, c.engine.kernel_us);
  }
  if (c.pytorch.present) {
    c.pytorch.prediction_error =
        prediction_error_of(c.rows, &CompareRow::pytorch_us, c.pytorch.kernel_us);
  }
  if (any_time(outside)) {
    c.notes.push_back(
        "measured time on nodes no planned group holds (CUDA graph input copies, "
        "or nodes the plan names differently): row " +
        std::string(kOutsidePlan));
    c.rows.push_back(std::move(outside));
  }
  if (any_time(unattributed)) c.rows.push_back(std::move(unattributed));
  return c;
}

}  // namespace fxscope::report
