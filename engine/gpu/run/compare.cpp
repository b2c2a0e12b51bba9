#include "fxscope/gpu/compare.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace fxscope::gpu {
namespace {

constexpr const char* kOutsidePlan = "(nodes outside the plan)";
constexpr const char* kUnattributed = "(unattributed kernels)";

// The measured column of RUN in MODE; null when the mode was not measured (WHY says so).
const report::RunMode* fill_column(const MeasuredRun& source, const std::string& backend,
                                   const std::string& mode, MeasuredColumn& column) {
  if (!source.run) {
    column.why_absent = source.why_absent;
    return nullptr;
  }
  const report::RunMode* m = source.run->find_mode(mode);
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
  return m;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Spreads MEASURED over the rows (MEMBER selects the column): a kernel that runs exactly a row's
// nodes goes to that row whole; the others are shared evenly by their nodes, each node's share
// going to the row holding it. Then what no row holds: nodes outside the plan, and kernels
// attributed to no node.
void distribute(const report::RunMode& measured, std::optional<double> CompareRow::*member,
                std::vector<CompareRow>& rows, CompareRow& outside, CompareRow& unattributed) {
  // A split reduction is two kernels over the same nodes: rows with equal node sets take the
  // kernels with that set in turn, unless a kernel's group names a row.
  std::map<std::vector<std::string>, std::vector<std::size_t>> rows_of_nodes;
  std::map<std::vector<std::string>, std::size_t> taken;
  std::unordered_map<std::string, std::size_t> row_of_node;
  std::unordered_map<std::string, std::size_t> row_named;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].*member = 0.0;
    rows_of_nodes[sorted(rows[i].nodes)].push_back(i);
    row_named.emplace(rows[i].group, i);
    for (const auto& n : rows[i].nodes) row_of_node.emplace(n, i);
  }
  double attributed = 0;
  double outside_us = 0;
  for (const report::RunKernel& k : measured.kernels) {
    if (k.nodes.empty()) continue;
    attributed += k.us;
    const auto key = sorted(k.nodes);
    if (const auto it = rows_of_nodes.find(key); it != rows_of_nodes.end()) {
      const auto named = row_named.find(k.group);
      const bool by_name = named != row_named.end() && sorted(rows[named->second].nodes) == key;
      const std::size_t row =
          by_name ? named->second : it->second[taken[key]++ % it->second.size()];
      *(rows[row].*member) += k.us;
      continue;
    }
    const double share = k.us / static_cast<double>(k.nodes.size());
    for (const auto& node : k.nodes) {
      if (const auto it = row_of_node.find(node); it != row_of_node.end()) {
        *(rows[it->second].*member) += share;
        continue;
      }
      outside_us += share;
      if (std::find(outside.nodes.begin(), outside.nodes.end(), node) == outside.nodes.end()) {
        outside.nodes.push_back(node);
      }
    }
  }
  outside.*member = outside_us;
  unattributed.*member = std::max(0.0, measured.kernel_us - attributed);
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

Result<Comparison> compare_unit(const report::FuseReport& fuse, const std::string& mode,
                                const MeasuredRun& engine, const MeasuredRun& pytorch) {
  if (fuse.units.size() != 1) {
    return make_error(fuse.path + ": compare needs exactly one compile unit (use --unit)");
  }
  const report::UnitFuseReport& unit = fuse.units.front();
  if (auto e = wrong_unit(engine, "engine", unit.compile_id)) return *e;
  if (auto e = wrong_unit(pytorch, "pytorch", unit.compile_id)) return *e;
  Comparison c;
  c.path = fuse.path;
  c.unit = unit.compile_id;
  c.mode = mode;
  c.device = fuse.device.name;
  for (const report::GraphReport& g : unit.graphs) {
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
  for (const report::ModePrediction& p : unit.predicted) {
    if (fusion::to_string(p.mode) != mode) continue;
    c.predicted_total_us = p.total_us;
    c.predicted_launches = static_cast<double>(p.launches);
  }
  CompareRow outside;
  outside.group = kOutsidePlan;
  CompareRow unattributed;
  unattributed.group = kUnattributed;
  if (const auto* m = fill_column(engine, "engine", mode, c.engine)) {
    distribute(*m, &CompareRow::engine_us, c.rows, outside, unattributed);
  }
  if (const auto* m = fill_column(pytorch, "pytorch", mode, c.pytorch)) {
    distribute(*m, &CompareRow::pytorch_us, c.rows, outside, unattributed);
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

}  // namespace fxscope::gpu
