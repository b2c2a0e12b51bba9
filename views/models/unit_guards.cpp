#include "models/unit_guards.h"

#include <utility>

#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/guards/recompile_replay.h"
#include "fxscope/report/guards_report.h"

namespace fxscope::views {
namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += (out.empty() ? "" : "\n") + line;
  return out;
}

std::vector<std::string> placeholders(const trace::CompileUnit& unit) {
  std::vector<std::string> names;
  const trace::Artifact* dynamo = unit.dynamo_graph();
  if (dynamo == nullptr) return names;
  const auto parsed = graph::parse_fx_readable(dynamo->payload.text(), dynamo->name);
  for (const auto& node : parsed.graph.nodes()) {
    if (node.op == graph::OpKind::placeholder) names.push_back(node.name);
  }
  return names;
}

}  // namespace

UnitGuards load_unit_guards(const LoadedLog& log, std::size_t unit) {
  UnitGuards out;
  out.unit = unit;
  const auto& units = log.log.units();
  if (unit >= units.size()) {
    out.problem = "no compile unit " + std::to_string(unit);
    return out;
  }
  const trace::CompileUnit& u = units[unit];
  const trace::CompileId id = u.id.without_attempt();
  out.compile_id = id.str();
  auto listing = report::list_guards(log.log, id);
  if (!listing || listing->units.empty()) {
    out.problem = listing ? "no guards for " + out.compile_id : listing.error().message;
    return out;
  }
  const report::UnitGuards& unit_guards = listing->units.front();
  if (!unit_guards.has_guards) {
    out.problem = "compile unit " + out.compile_id + " installed no guards (its compile failed)";
  }
  out.guards = unit_guards.guards.guards;
  out.recorded_input = guards::unit_input(u, unit_guards.guards);
  out.graph_inputs = placeholders(u);
  if (auto replay = report::check_recompiles(log.log, id)) {
    for (const auto& check : replay->recompiles) {
      out.recompiles.push_back(
          {check.compile_id.str(), joined(check.recorded), joined(check.predicted), check.match});
    }
    out.ranked_causes = report::recompile_causes_text(*replay);
  }
  return out;
}

GuardVerdict evaluate_unit_input(const LoadedLog& log, const std::string& compile_id,
                                 const guards::ProposedInput& input) {
  GuardVerdict verdict;
  const auto id = trace::CompileId::parse(compile_id);
  if (!id) {
    verdict.problem = "'" + compile_id + "' is not a compile id";
    return verdict;
  }
  auto result = report::evaluate_input(log.log, *id, input);
  if (!result) {
    verdict.problem = result.error().message;
    return verdict;
  }
  for (const report::FrameVerdict& frame : result->frames) {
    for (const report::EntryVerdict& entry : frame.entries) {
      const std::string entry_id = entry.compile_id.without_attempt().str();
      verdict.entries.push_back(
          entry_id + ": " +
          (entry.evaluation.reused ? std::string("reused") : entry.evaluation.reason));
      if (entry_id == compile_id) verdict.failed = entry.evaluation.failed;
    }
    if (frame.reused) verdict.reused = frame.reused->without_attempt().str();
  }
  return verdict;
}

}  // namespace fxscope::views
