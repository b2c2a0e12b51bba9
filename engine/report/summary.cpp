#include "fxscope/report/summary.h"

#include <set>

#include "fxscope/core/parallel_for.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/fx_readable_parser.h"

namespace fxscope::report {
namespace {

using trace::Artifact;
using trace::ArtifactKind;

// One piece of parsing work: a level of one unit. Jobs are independent, so they run in parallel.
enum class Level { dynamo, aten, post_grad, output_code };

struct Job {
  std::size_t unit = 0;
  Level level = Level::dynamo;
  std::vector<const Artifact*> artifacts;
  // Results.
  std::size_t ops = 0;
  std::size_t triton = 0;
  std::size_t externs = 0;
  Warnings warnings;
};

std::string where(const Artifact& a) {
  return "[" + a.id.str() + "] " + a.name;
}

std::vector<const Artifact*> aten_graphs(const trace::CompileUnit& unit) {
  if (const Artifact* inference = unit.find(ArtifactKind::kAotInferenceGraph)) return {inference};
  std::vector<const Artifact*> graphs;
  if (const Artifact* fwd = unit.find(ArtifactKind::kAotForwardGraph)) graphs.push_back(fwd);
  if (const Artifact* bwd = unit.find(ArtifactKind::kAotBackwardGraph)) graphs.push_back(bwd);
  return graphs;
}

// The final attempt's artifacts of KIND, one per direction (none, forward, backward).
std::vector<const Artifact*> per_direction(const trace::CompileUnit& unit, ArtifactKind kind) {
  std::vector<const Artifact*> found;
  for (auto direction :
       {trace::Direction::kNone, trace::Direction::kForward, trace::Direction::kBackward}) {
    const Artifact* a = unit.find(kind, direction);
    if (a != nullptr && a->direction == direction) found.push_back(a);
  }
  return found;
}

void run(Job& job, const trace::CompileUnit& unit) {
  for (const Artifact* a : job.artifacts) {
    if (job.level == Level::output_code) {
      auto code = fusion::read_inductor_code(unit, *a);
      job.ops += code.launches().size();
      job.triton += code.kernel_launch_count();
      job.externs += code.extern_launch_count();
      job.warnings.insert(job.warnings.end(), code.warnings().begin(), code.warnings().end());
    } else {
      auto parsed = graph::parse_fx_readable(a->payload.text(), where(*a));
      job.ops += parsed.graph.op_count();
      for (auto& w : parsed.warnings) job.warnings.push_back(std::move(w));
    }
  }
}

UnitSummary describe(const trace::CompileUnit& unit) {
  UnitSummary s;
  s.compile_id = unit.id.without_attempt().str();
  s.attempts = unit.final_attempt + 1;
  s.frame_id = unit.id.frame_id;
  if (const auto* f = unit.compiled_frame()) s.frame = *f;
  if (const auto* f = unit.user_frame()) s.user_frame = *f;
  if (unit.metrics) {
    s.compile_time_s = unit.metrics->entire_frame_compile_time_s;
    s.guard_count = unit.metrics->guard_count;
    s.restart_reasons = unit.metrics->restart_reasons;
    if (unit.metrics->fail_type) {
      s.failure = *unit.metrics->fail_type;
      if (unit.metrics->fail_reason) s.failure += ": " + *unit.metrics->fail_reason;
    }
  }
  s.producer = unit.producer;
  for (const auto& issue : unit.export_issues)
    s.export_issues.push_back(issue.kind + ": " + issue.detail);
  s.graph_breaks = unit.graph_breaks;
  s.recompile = unit.recompile;
  return s;
}

std::vector<Job> plan_jobs(const std::vector<trace::CompileUnit>& units) {
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const auto& unit = units[i];
    const auto add = [&](Level level, std::vector<const Artifact*> artifacts) {
      if (!artifacts.empty()) jobs.push_back(Job{i, level, std::move(artifacts), 0, 0, 0, {}});
    };
    if (const Artifact* dynamo = unit.dynamo_graph()) add(Level::dynamo, {dynamo});
    add(Level::aten, aten_graphs(unit));
    add(Level::post_grad, per_direction(unit, ArtifactKind::kPostGradGraph));
    add(Level::output_code, unit.inductor_codes());
  }
  return jobs;
}

}  // namespace

std::size_t Summary::frame_count() const {
  std::set<int> frames;
  for (const auto& u : units) frames.insert(u.frame_id);
  return frames.size();
}

std::size_t Summary::graph_break_hits() const {
  std::size_t hits = 0;
  for (const auto& b : graph_breaks) hits += b.count;
  return hits;
}

Summary summarize(const trace::TraceLog& log) {
  Summary summary;
  summary.path = log.path();
  summary.other_logs = log.other_logs();
  summary.bytes = log.stats().bytes;
  summary.lines = log.stats().lines;
  summary.graph_breaks = log.graph_breaks();
  summary.recompiles = log.recompiles();
  summary.warnings = log.warnings();
  if (auto check = check_recompiles(log, std::nullopt)) summary.recompile_check = std::move(*check);
  for (const auto& unit : log.units()) summary.units.push_back(describe(unit));
  summary.impact_device = break_impact_device();
  summary.break_impacts = rank_break_impact(log, summary.units, summary.impact_device);

  auto jobs = plan_jobs(log.units());
  parallel_for(jobs.size(), [&](std::size_t i) { run(jobs[i], log.units()[jobs[i].unit]); });
  for (auto& job : jobs) {
    UnitSummary& u = summary.units[job.unit];
    switch (job.level) {
      case Level::dynamo:
        u.dynamo_ops = job.ops;
        break;
      case Level::aten:
        u.aten_ops = job.ops;
        break;
      case Level::post_grad:
        u.post_grad_ops = job.ops;
        break;
      case Level::output_code:
        u.inductor_kernels = job.ops;
        u.triton_launches = job.triton;
        u.extern_launches = job.externs;
        break;
    }
    for (auto& w : job.warnings) summary.warnings.push_back(std::move(w));
  }
  return summary;
}

}  // namespace fxscope::report
