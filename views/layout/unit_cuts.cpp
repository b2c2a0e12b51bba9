#include "layout/unit_cuts.h"

#include "fxscope/report/graph_break_impact.h"

namespace fxscope::views {
namespace {

const std::string kResumePrefix = "torch_dynamo_resume_in_";

// The file's name only: the whole path is in the Graph breaks tab and the tooltip of the tree.
std::string describe(const trace::GraphBreak& gb) {
  const auto slash = gb.file.find_last_of("/\\");
  const std::string file = slash == std::string::npos ? gb.file : gb.file.substr(slash + 1);
  return "graph break at " + file + ":" + std::to_string(gb.line) + ": " + gb.reason;
}

std::string unit_name(const report::UnitSummary& u) {
  return "[" + u.compile_id + "] " + u.frame.function;
}

}  // namespace

std::vector<UnitCut> unit_cuts(const report::Summary& summary, std::size_t unit) {
  std::vector<UnitCut> cuts;
  if (unit >= summary.units.size()) return cuts;
  const report::UnitSummary& self = summary.units[unit];
  // Resumed earlier: the unit whose break at that line made this function.
  if (self.frame.function.starts_with(kResumePrefix)) {
    for (std::size_t u = unit; u-- > 0;) {
      const report::UnitSummary& before = summary.units[u];
      for (std::size_t b : before.graph_breaks) {
        if (b >= summary.graph_breaks.size()) continue;
        const trace::GraphBreak& gb = summary.graph_breaks[b];
        if (!report::resumes(before, gb, self)) continue;
        cuts.push_back({false, describe(gb), unit_name(before), u});
        break;
      }
      if (!cuts.empty()) break;
    }
  }
  for (std::size_t b : self.graph_breaks) {
    if (b >= summary.graph_breaks.size()) continue;
    const trace::GraphBreak& gb = summary.graph_breaks[b];
    UnitCut cut{true, describe(gb), {}, std::nullopt};
    if (const auto u = report::resumed_unit(summary.units, unit, gb)) {
      cut.neighbour = unit_name(summary.units[*u]);
      cut.neighbour_unit = u;
    }
    cuts.push_back(std::move(cut));
  }
  return cuts;
}

}  // namespace fxscope::views
