#include "fxscope/report/rank_comparison_output.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

#include "fxscope/report/summary_json.h"

namespace fxscope::report {

namespace {

using json = nlohmann::json;

// A group's value shown in text: one line, cut to what a terminal shows.
std::string shown_value(const std::string& value) {
  constexpr std::size_t kWidth = 100;
  const std::string shortened = short_op_names(value);
  std::string line = shortened.substr(0, shortened.find('\n'));
  if (line.size() > kWidth) line = line.substr(0, kWidth) + "...";
  if (shortened.find('\n') != std::string::npos) line += " ...";
  return line.empty() ? "(none)" : line;
}

}  // namespace

json to_json(const RankComparison& c) {
  json ranks = json::array();
  for (const auto& r : c.ranks) {
    json rank{{"rank", r.rank},
              {"path", r.path},
              {"units", r.units},
              {"graph_breaks", r.graph_breaks},
              {"recompiles", r.recompiles},
              {"kernels", r.kernels},
              {"compile_s", r.compile_s}};
    if (!r.error.empty()) rank["error"] = r.error;
    ranks.push_back(std::move(rank));
  }
  json divergence = json::array();
  for (const auto& d : c.divergence) {
    divergence.push_back({{"kind", to_string(d.kind)},
                          {"detail", d.detail},
                          {"compile_id", d.compile_id},
                          {"groups", d.groups},
                          {"values", d.values}});
  }
  return json{{"fxscope_version", FXSCOPE_VERSION},
              {"dir", c.dir},
              {"ranks", ranks},
              {"divergence", divergence},
              {"warnings", to_json(c.warnings)}};
}

std::string to_text(const RankComparison& c) {
  std::ostringstream out;
  out << c.dir << ": " << c.ranks.size() << (c.ranks.size() == 1 ? " rank" : " ranks") << "\n";
  for (const auto& r : c.ranks) {
    out << "  rank " << r.rank << "  ";
    if (!r.error.empty()) {
      out << "not read: " << r.error << "\n";
      continue;
    }
    char compile[32];
    std::snprintf(compile, sizeof compile, "%.2f", r.compile_s);
    out << r.units << " units, " << r.graph_breaks << " graph breaks, " << r.recompiles
        << " recompiles, " << r.kernels << " kernels, compiled in " << compile << " s  " << r.path
        << "\n";
  }
  if (c.divergence.empty()) {
    out << "The ranks agree: same compiles, graphs, caches, recompiles and collectives.\n";
  } else {
    out << c.divergence.size() << " divergences, most harmful first:\n";
    for (const auto& d : c.divergence) {
      out << "  [" << to_string(d.kind) << "] " << d.detail << "\n";
      for (std::size_t g = 0; g < d.groups.size(); ++g) {
        out << "      " << ranks_text(d.groups[g]) << ": "
            << shown_value(g < d.values.size() ? d.values[g] : std::string()) << "\n";
      }
    }
  }
  for (const auto& w : c.warnings) out << "  warning: " << w.where << ": " << w.message << "\n";
  return out.str();
}

}  // namespace fxscope::report
